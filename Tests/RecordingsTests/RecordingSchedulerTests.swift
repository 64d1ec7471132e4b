import Foundation
import Lineup
import Testing
@testable import Recordings

@Suite struct RecordingSchedulerTests {
    let guide = [
        show("Quiz", channel: 1, "2026-11-27T19:00:00Z", sub: "Heat 1", ns: "0.0."),
        show("Drama", channel: 1, "2026-11-27T20:00:00Z", sub: "The Start", ns: "0.1."),
        show("Drama", channel: 2, "2026-11-27T22:00:00Z", sub: "The Start", ns: "0.1."),
        show("Drama", channel: 1, "2026-11-28T20:00:00Z", sub: "The Middle", ns: "0.2."),
    ]

    @Test func aSeriesRuleRecordsNewEpisodesAndSkipsTheRepeat() {
        let rule = RecordingRule(id: RuleID("drama"), title: .exact("drama"), newEpisodesOnly: true)
        let result = schedule(rules: [rule], guide)
        #expect(result.recordings.map(\.programme.subTitle) == ["The Start", "The Middle"])
        #expect(result.recordings.allSatisfy { $0.channel == ChannelNumber(1) && $0.rules == [RuleID("drama")] })
        #expect(result.notes.map(\.kind) == [.repeatSkipped])
        let first = result.recordings[0]
        #expect(first.paddedStart == at("2026-11-27T19:59:00Z") && first.paddedEnd == at("2026-11-27T21:03:00Z"),
                "padding 1 min before and 3 after by default")
    }

    @Test func withoutNewOnlyEveryAiringIsRecordedAndFinishedOnesCountAsRecorded() {
        let all = RecordingRule(id: RuleID("drama"), title: .exact("Drama"))
        #expect(schedule(rules: [all], guide).recordings.count == 3)
        var done = recording("old", "2026-11-20T20:00:00Z", state: .done, title: "Drama")
        done.programme.episodeXMLTVNS = "0.1."
        let newOnly = RecordingRule(id: RuleID("drama"), title: .exact("Drama"), newEpisodesOnly: true)
        let result = schedule(rules: [newOnly], guide, existing: [done])
        #expect(result.recordings.map(\.programme.subTitle) == ["The Middle"], "S01E02 was recorded last week")
    }

    @Test func withoutEpisodeNumbersTheSubtitleAndDescriptionTellEpisodes() {
        let shows = [
            show("Talk", channel: 1, "2026-11-27T12:00:00Z", sub: "Guest A", desc: "A talks"),
            show("Talk", channel: 1, "2026-11-27T18:00:00Z", sub: "Guest A", desc: "A talks"),
            show("Talk", channel: 1, "2026-11-27T23:00:00Z", sub: "Guest B", desc: "B talks"),
        ]
        let rule = RecordingRule(id: RuleID("talk"), title: .exact("Talk"), newEpisodesOnly: true)
        #expect(schedule(rules: [rule], shows).recordings.map(\.programme.start) == [at("2026-11-27T12:00:00Z"), at("2026-11-27T23:00:00Z")])
    }

    @Test func overlappingRulesMakeOneRecordingNamingBoth() {
        let a = RecordingRule(id: RuleID("a"), title: .exact("Quiz"), priority: 1, padding: Padding(before: 300, after: 0))
        let b = RecordingRule(id: RuleID("b"), title: .pattern("^Qu"), channel: ChannelNumber(1), priority: 5)
        let result = schedule(rules: [a, b], guide)
        #expect(result.recordings.count == 1)
        let r = result.recordings[0]
        #expect(r.rules == [RuleID("a"), RuleID("b")])
        #expect(r.priority == 5)
        #expect(r.paddedStart == at("2026-11-27T18:55:00Z") && r.paddedEnd == at("2026-11-27T20:03:00Z"), "the most padding")
    }

    @Test func aRuleThatMatchesNothingIsANoteAndABadRuleIsLeftOut() {
        let none = RecordingRule(id: RuleID("none"), title: .exact("Nothing Like It"))
        let bad = RecordingRule(id: RuleID("bad"), title: .pattern("[unclosed"))
        let result = schedule(rules: [none, bad], guide)
        #expect(result.recordings.isEmpty)
        #expect(Set(result.notes.map(\.kind)) == [.ruleMatchedNothing, .badRule])
        #expect(result.notes.first { $0.kind == .badRule }?.message.contains("[unclosed") == true)
    }

    @Test func daysTimeWindowAndChannelNarrowARule() {
        let saturday = RecordingRule(id: RuleID("sat"), title: .exact("Drama"), days: [.saturday])
        #expect(schedule(rules: [saturday], guide).recordings.map(\.programme.subTitle) == ["The Middle"])
        let late = RecordingRule(id: RuleID("late"), title: .exact("Drama"), window: TimeWindow(startMinute: 21 * 60, endMinute: 23 * 60))
        #expect(schedule(rules: [late], guide).recordings.map(\.channel) == [ChannelNumber(2)])
        let two = RecordingRule(id: RuleID("two"), title: .exact("Drama"), channel: ChannelNumber(2))
        #expect(schedule(rules: [two], guide).recordings.count == 1)
    }

    @Test func oneOffsByProgrammeIdByChannelAndStartAndATimeRangeWithoutPadding() {
        let requests = [
            OneOffRequest(id: RecordingID("x"), target: .programme(id: guide[0].id)),
            OneOffRequest(id: RecordingID("y"), target: .programmeAt(channel: ChannelNumber(2), start: at("2026-11-27T22:00:00Z"))),
            OneOffRequest(id: RecordingID("z"), target: .timeRange(channel: ChannelNumber(5), start: at("2026-11-27T10:00:00Z"),
                                                                   end: at("2026-11-27T10:30:00Z"), title: nil)),
            OneOffRequest(id: RecordingID("w"), target: .programme(id: "nope")),
            OneOffRequest(id: RecordingID("u"), target: .programme(id: guide[3].id), priority: 5000),
            OneOffRequest(id: RecordingID("v"), target: .timeRange(channel: ChannelNumber(5), start: at("2026-11-27T10:00:00Z"),
                                                                   end: at("2026-11-27T09:00:00Z"), title: nil)),
        ]
        let result = schedule(oneOffs: requests, guide)
        #expect(result.recordings.map(\.id.rawValue) == ["z", "x", "y"])
        let range = result.recordings[0]
        #expect(range.paddedStart == at("2026-11-27T10:00:00Z") && range.paddedEnd == at("2026-11-27T10:30:00Z"))
        #expect(range.programme.title == "Channel 5" && range.isOneOff && range.programmeID == nil)
        #expect(result.notes.filter { $0.kind == .badRequest }.compactMap(\.recording) == ["u", "v", "w"].map(RecordingID.init))
    }

    @Test func aOneOffForAProgrammeARuleRecordsIsTheSameRecording() {
        let rule = RecordingRule(id: RuleID("quiz"), title: .exact("Quiz"))
        let request = OneOffRequest(id: RecordingID("mine"), target: .programme(id: guide[0].id), priority: 9)
        let result = schedule(rules: [rule], oneOffs: [request], guide)
        #expect(result.recordings.count == 1)
        #expect(result.recordings[0].rules == [RuleID("quiz")] && result.recordings[0].isOneOff && result.recordings[0].priority == 9)
    }

    @Test func aMovedProgrammeIsFollowedAndAVanishedOneIsSaid() {
        let rule = RecordingRule(id: RuleID("drama"), title: .exact("Drama"), channel: ChannelNumber(1))
        let first = schedule(rules: [rule], guide)
        #expect(first.recordings.count == 2)
        // The guide moves S01E02 an hour later (a new programme id) and drops S01E03.
        let moved = [show("Drama", channel: 1, "2026-11-27T21:00:00Z", id: "new-id", sub: "The Start", ns: "0.1.")]
        let second = schedule(rules: [rule], moved, existing: first.recordings)
        #expect(second.recordings.count == 2)
        let followed = second.recordings[0]
        #expect(followed.id == first.recordings[0].id, "the same recording")
        #expect(followed.programmeID == "new-id" && followed.paddedStart == at("2026-11-27T20:59:00Z"))
        #expect(followed.note?.contains("moved") == true)
        let vanished = second.recordings[1]
        #expect(vanished.id == first.recordings[1].id && vanished.paddedStart == first.recordings[1].paddedStart)
        #expect(second.notes.map(\.kind).sorted { $0.rawValue < $1.rawValue } == [.moved, .vanished])
    }

    @Test func recordingsInProgressAreKeptAndCancelledOnesAreNotMadeAgain() {
        let rule = RecordingRule(id: RuleID("drama"), title: .exact("Drama"))
        var running = recording("run", "2026-11-27T19:59:00Z", minutes: 64, state: .recording, title: "Drama")
        running.programmeID = guide[1].id
        running.programme = ProgrammeData(guide[1].programme)
        var cancelled = running
        cancelled.id = RecordingScheduler.recordingID(forProgramme: guide[2].id)
        cancelled.programmeID = guide[2].id
        cancelled.state = .cancelled
        let moved = [show("Drama", channel: 1, "2026-11-27T20:30:00Z", id: guide[1].id, sub: "The Start", ns: "0.1.")]
            + guide.dropFirst(2)
        let result = schedule(rules: [rule], moved, existing: [running, cancelled])
        #expect(result.recordings.map(\.id.rawValue) == ["run", RecordingScheduler.recordingID(forProgramme: guide[3].id).rawValue])
        #expect(result.recordings[0] == running, "never rescheduled")
    }

    @Test func aScheduledRecordingNoRuleWantsIsDroppedAndARemovedChannelIsSaid() {
        let rule = RecordingRule(id: RuleID("quiz"), title: .exact("Quiz"))
        let first = schedule(rules: [rule], guide)
        let second = schedule(rules: [], guide, existing: first.recordings)
        #expect(second.recordings.isEmpty && second.dropped == first.recordings.map(\.id))
        let third = schedule(rules: [rule], guide, existing: first.recordings, channels: [ChannelNumber(2)])
        #expect(third.notes.map(\.kind) == [.channelRemoved])
    }

    @Test func badProgrammesAreSkippedWithANote() {
        var broken = show("Drama", channel: 1, "2026-11-27T20:00:00Z", id: "b1")
        broken.programme.stop = broken.programme.start
        var far = show("Drama", channel: 1, "2026-11-27T20:00:00Z", id: "b2")
        far.programme.stop = Date(timeIntervalSince1970: 1e15)
        var nan = show("Drama", channel: 1, "2026-11-27T20:00:00Z", id: "b3")
        nan.programme.start = Date(timeIntervalSince1970: .nan)
        let rule = RecordingRule(id: RuleID("drama"), title: .exact("Drama"))
        let result = schedule(rules: [rule], [broken, far, nan, guide[3]])
        #expect(result.recordings.count == 1)
        #expect(result.notes.filter { $0.kind == .badProgramme }.compactMap(\.programmeID) == ["b1", "b2", "b3"])
    }

    @Test func finishedProgrammesAreNotScheduled() {
        let rule = RecordingRule(id: RuleID("drama"), title: .exact("Drama"))
        #expect(schedule(rules: [rule], guide, now: "2026-11-28T00:00:00Z").recordings.count == 1)
    }

    @Test func daysAndWindowsAreTheBoxsAndAProgrammeMovedUnderItsIdIsFollowed() {
        let late = show("Late Film", channel: 3, "2026-11-27T23:30:00Z", id: "film")
        let rule = RecordingRule(id: RuleID("sat"), title: .exact("Late Film"), days: [.saturday],
                                 window: TimeWindow(startMinute: 0, endMinute: 60))
        let paris = TimeZone(identifier: "Europe/Paris")!
        let input = ScheduleInput(rules: [rule], programmes: [late], timeZone: paris, now: at("2026-11-27T08:00:00Z"))
        let first = RecordingScheduler.derive(input)
        #expect(first.recordings.count == 1, "00:30 on Saturday in Paris")
        #expect(schedule(rules: [rule], [late]).recordings.isEmpty, "23:30 on Friday in UTC")

        let later = show("Late Film", channel: 3, "2026-11-27T23:45:00Z", id: "film")
        var again = input
        again.programmes = [later]
        again.existing = first.recordings
        let second = RecordingScheduler.derive(again)
        #expect(second.recordings.map(\.id) == first.recordings.map(\.id))
        #expect(second.recordings.first?.paddedStart == at("2026-11-27T23:44:00Z"))
        #expect(second.recordings.first?.note?.contains("Sat 00:30") == true, "\(second.recordings.first?.note ?? "")")
    }

    @Test func aRuleWhosePaddingChangedRepadsItsScheduledRecordings() {
        var rule = RecordingRule(id: RuleID("quiz"), title: .exact("Quiz"), padding: Padding(before: 600, after: 600))
        let first = schedule(rules: [rule], guide)
        #expect(first.recordings.first?.paddedStart == at("2026-11-27T18:50:00Z"))
        rule.padding = Padding(before: 0, after: 60)
        let second = schedule(rules: [rule], guide, existing: first.recordings)
        #expect(second.recordings.first?.paddedStart == at("2026-11-27T19:00:00Z"))
        #expect(second.recordings.first?.paddedEnd == at("2026-11-27T20:01:00Z"))
    }

    @Test func aScheduledRecordingWhoseTimePassedIsSaidMissed() {
        let rule = RecordingRule(id: RuleID("quiz"), title: .exact("Quiz"))
        let first = schedule(rules: [rule], guide)
        let later = schedule(rules: [rule], guide, existing: first.recordings, now: "2026-11-27T21:00:00Z")
        #expect(later.notes.map(\.kind) == [.missed, .ruleMatchedNothing], "the only Quiz is over")
        #expect(later.recordings == first.recordings, "left for the wiring to mark failed")
    }
}
