import Foundation
import Lineup
import Testing
@testable import Recordings

@Suite struct ConflictCheckTests {
    let pools = PoolLimits(
        poolOfChannel: [ChannelNumber(1): "tuner", ChannelNumber(2): "tuner", ChannelNumber(3): "tuner", ChannelNumber(9): "iptv"],
        limits: ["tuner": 1, "iptv": 2])

    @Test func twoChannelsOfAOneStreamPoolConflictAndPriorityDecides() {
        let a = recording("a", channel: 1, "2026-11-27T20:00:00Z", minutes: 60, priority: 1)
        let b = recording("b", channel: 2, "2026-11-27T20:30:00Z", minutes: 60, priority: 5)
        let conflicts = ConflictCheck.conflicts(in: [a, b], pools: pools)
        #expect(conflicts.count == 1)
        let c = conflicts[0]
        #expect(c.pool == "tuner" && c.limit == 1)
        #expect(c.start == at("2026-11-27T20:30:00Z") && c.end == at("2026-11-27T21:00:00Z"))
        #expect(c.recordings == [RecordingID("a"), RecordingID("b")])
        #expect(c.notRecorded == [RecordingID("a")], "the lower priority gives way")
        #expect(c.options == [.drop(recording: RecordingID("a")), .drop(recording: RecordingID("b"))], "lowest priority first")
    }

    @Test func recordingsOfOneChannelShareAStreamAndBackToBackIsNoConflict() {
        let a = recording("a", channel: 1, "2026-11-27T20:00:00Z")
        let b = recording("b", channel: 1, "2026-11-27T20:30:00Z")
        let c = recording("c", channel: 2, "2026-11-27T21:30:00Z")
        #expect(ConflictCheck.conflicts(in: [a, b, c], pools: pools).isEmpty)
    }

    @Test func unlimitedPoolsAndChannelsWithoutAPoolNeverConflict() {
        let a = recording("a", channel: 7, "2026-11-27T20:00:00Z")
        let b = recording("b", channel: 8, "2026-11-27T20:00:00Z")
        let open = PoolLimits(poolOfChannel: [ChannelNumber(8): "free"])
        #expect(ConflictCheck.conflicts(in: [a, b], pools: open).isEmpty)
    }

    @Test func aRecordingInProgressKeepsItsStreamAndFinishedOnesHoldNone() {
        let running = recording("run", channel: 1, "2026-11-27T20:00:00Z", state: .recording, priority: -5)
        let wanted = recording("new", channel: 2, "2026-11-27T20:00:00Z", priority: 100)
        let done = recording("old", channel: 3, "2026-11-27T20:00:00Z", state: .done)
        let c = ConflictCheck.conflicts(in: [running, wanted, done], pools: pools)
        #expect(c.map(\.notRecorded) == [[RecordingID("new")]])
        #expect(c.map(\.recordings) == [[RecordingID("new"), RecordingID("run")]])
    }

    @Test func anotherChannelWithTheSameProgrammeInAPoolWithRoomIsOffered() {
        var a = recording("a", channel: 1, "2026-11-27T20:00:00Z", priority: 1, title: "Film")
        var b = recording("b", channel: 2, "2026-11-27T20:00:00Z", priority: 2, title: "Match")
        a.programmeID = "film-1"
        b.programmeID = "match-2"
        let guide = [
            show("Film", channel: 9, "2026-11-27T20:00:00Z", id: "film-9"),
            show("film", channel: 3, "2026-11-27T20:00:00Z", id: "film-3"),
            show("Film", channel: 9, "2026-11-27T21:00:00Z", id: "film-9-later"),
        ]
        let c = ConflictCheck.conflicts(in: [a, b], pools: pools, programmes: guide)
        #expect(c.count == 1)
        #expect(c[0].options.first == .otherChannel(recording: RecordingID("a"), channel: ChannelNumber(9), programmeID: "film-9"),
                "channel 3 is in the same full pool; the 21:00 showing is another start")
        #expect(!c[0].options.contains(.otherChannel(recording: RecordingID("a"), channel: ChannelNumber(3), programmeID: "film-3")))
    }

    @Test func aSpanEndsWhenThePoolHasRoomAgainAndOnlyTheExcessGivesWay() {
        let two = PoolLimits(poolOfChannel: [ChannelNumber(1): "p", ChannelNumber(2): "p", ChannelNumber(3): "p"], limits: ["p": 2])
        let a = recording("a", channel: 1, "2026-11-27T20:00:00Z", minutes: 120, priority: 3)
        let b = recording("b", channel: 2, "2026-11-27T20:00:00Z", minutes: 30, priority: 2)
        let c = recording("c", channel: 3, "2026-11-27T20:15:00Z", minutes: 30, priority: 1)
        let d = recording("d", channel: 2, "2026-11-27T21:00:00Z", minutes: 30)
        let conflicts = ConflictCheck.conflicts(in: [a, b, c, d], pools: two)
        #expect(conflicts.count == 1)
        #expect(conflicts[0].start == at("2026-11-27T20:15:00Z") && conflicts[0].end == at("2026-11-27T20:30:00Z"))
        #expect(conflicts[0].notRecorded == [RecordingID("c")])
    }

    @Test func theScheduleComesCheckedAgainstThePools() {
        let guide = [
            show("Film", channel: 1, "2026-11-27T20:00:00Z"),
            show("Match", channel: 2, "2026-11-27T20:00:00Z"),
            show("Film", channel: 9, "2026-11-27T20:00:00Z"),
        ]
        let film = RecordingRule(id: RuleID("film"), title: .exact("Film"), channel: ChannelNumber(1))
        let match = RecordingRule(id: RuleID("match"), title: .exact("Match"), priority: 10)
        let result = schedule(rules: [film, match], guide, pools: pools)
        #expect(result.recordings.count == 2)
        let conflict = result.conflicts.first
        #expect(result.conflicts.count == 1 && conflict?.pool == "tuner")
        #expect(conflict?.notRecorded == [RecordingScheduler.recordingID(forProgramme: guide[0].id)])
        #expect(conflict?.options.first == .otherChannel(recording: RecordingScheduler.recordingID(forProgramme: guide[0].id),
                                                          channel: ChannelNumber(9), programmeID: guide[2].id))
        #expect(schedule(rules: [film, match], guide).conflicts.isEmpty, "no pools, no limits")
    }
}
