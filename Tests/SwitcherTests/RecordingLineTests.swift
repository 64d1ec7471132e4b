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
    }
}
