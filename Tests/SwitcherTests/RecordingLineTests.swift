import Foundation
import Lineup
import Recordings
@testable import Switcher
import Testing

/// What the screen says of the recordings: a failure and a conflict that loses a recording, in
/// words; nothing for the ones that went well.
@Suite struct RecordingLineTests {
    static let start = Date(timeIntervalSince1970: 1_795_896_000)

    static func recording(_ id: String, state: RecordingState, error: String? = nil) -> Recording {
        Recording(id: RecordingID(id), channel: ChannelNumber(5), programme: ProgrammeData(title: "The News", start: start, stop: start.addingTimeInterval(1800)),
                  paddedStart: start, paddedEnd: start.addingTimeInterval(1800), state: state, error: error)
    }

    @Test func failuresAndLostRecordingsAreSaidTheRestIsQuiet() {
        let failed = Player.recordingLine(.failed(Self.recording("a", state: .failed, error: "the disk holding /rec is full")), titles: [:])
        #expect(failed == "● Recording failed: The News — the disk holding /rec is full")
        let conflict = RecordingConflict(pool: "tuner", limit: 2, start: Self.start, end: Self.start.addingTimeInterval(1800),
                                         recordings: [RecordingID("a"), RecordingID("b"), RecordingID("c")], options: [],
                                         notRecorded: [RecordingID("c")])
        let lost = Player.recordingLine(.conflict(conflict), titles: [RecordingID("c"): "Late Film"])
        #expect(lost == "● Not recorded: Late Film (tuner has 2 streams at \(ProgrammeSummary.time(Self.start)))")
        var fine = conflict
        fine.notRecorded = []
        #expect(Player.recordingLine(.conflict(fine), titles: [:]) == nil)
        #expect(Player.recordingLine(.started(Self.recording("a", state: .recording)), titles: [:]) == nil)
        #expect(Player.recordingLine(.stopped(Self.recording("a", state: .done)), titles: [:]) == nil)
        var choosable = conflict
        choosable.options = [.drop(recording: RecordingID("a"))]
        #expect(Player.recordingLine(.conflict(choosable), titles: [RecordingID("c"): "Late Film"])?.hasSuffix(") · l to choose") == true)
    }

    /// The list's conflict rows: each option in words, the conflict beside it, an option two
    /// conflicts share listed once, ids standing in for unknown titles.
    @Test func aConflictsOptionsAreChoicesInWords() {
        let at = ProgrammeSummary.time(Self.start)
        let first = RecordingConflict(pool: "tuner", limit: 1, start: Self.start, end: Self.start.addingTimeInterval(1800),
                                      recordings: [RecordingID("a"), RecordingID("b")],
                                      options: [.otherChannel(recording: RecordingID("b"), channel: ChannelNumber(7), programmeID: "p7"),
                                                .drop(recording: RecordingID("b")), .drop(recording: RecordingID("a"))],
                                      notRecorded: [RecordingID("b")])
        var second = first
        second.start = Self.start.addingTimeInterval(900)
        second.recordings = [RecordingID("a"), RecordingID("z")]
        second.options = [.drop(recording: RecordingID("a")), .drop(recording: RecordingID("z"))]
        second.notRecorded = []
        let titles = [RecordingID("a"): "The News", RecordingID("b"): "Late Film"]
        let choices = ConflictChoice.choices(for: [first, second], title: { titles[$0] },
                                             channelName: { $0 == ChannelNumber(7) ? "Seven" : nil })
        #expect(choices.map(\.label) == ["Record Late Film on 7 Seven instead", "Drop Late Film", "Drop The News", "Drop z"])
        #expect(choices[0].conflict == "Not recorded: Late Film · tuner has 1 stream at \(at)")
        #expect(choices[0].option == .otherChannel(recording: RecordingID("b"), channel: ChannelNumber(7), programmeID: "p7"))
        #expect(choices[3].conflict == "2 recordings want a stream · tuner has 1 stream at \(ProgrammeSummary.time(second.start))")
    }

    /// The list's rows: the choices first, then the recordings; moves stop at the ends.
    @Test func theListPutsChoicesAboveTheRecordings() {
        let choice = ConflictChoice(option: .drop(recording: RecordingID("a")), label: "Drop The News", conflict: "…")
        let entry = RecordingListEntry(id: "r1", title: "Film", channel: ChannelNumber(5), start: Self.start,
                                       end: Self.start.addingTimeInterval(60), description: nil, recording: false, resume: nil)
        var list = RecordingListNavigator(choices: [choice], entries: [entry])
        #expect(list.focusedChoice == choice && list.focused == nil)
        #expect(list.choices == 1 && list.recordings == 1)
        list.move(.down)
        #expect(list.focused == entry && list.focusedChoice == nil)
        list.move(.pageDown)
        #expect(list.focus == 1)
        list.move(.pageUp)
        #expect(list.focus == 0)
    }
}
