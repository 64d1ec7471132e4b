import Foundation
import Lineup
import Testing
@testable import Recordings

@Suite struct RecordingStoreTests {
    @Test func rulesAndTheScheduleSurviveReopening() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try RecordingStore(directory: dir.path)
        #expect(store.path.hasSuffix("/recordings.sqlite"))
        let rule = RecordingRule(id: RuleID("drama"), title: .pattern("^Drama"), channel: ChannelNumber(4, 1), days: [.friday],
                                 window: TimeWindow(startMinute: 1200, endMinute: 1320), newEpisodesOnly: true, keepLatest: 3,
                                 priority: 2, padding: Padding(before: 120, after: 600))
        try store.save(rule)
        #expect(throws: RecordingError.self) { try store.save(RecordingRule(id: RuleID("bad"), title: .pattern("(("))) }
        var r = recording("a", channel: 4, "2026-11-27T20:00:00Z")
        r.rules = [RuleID("drama")]
        r.programme.episodeXMLTVNS = "0.1."
        r.note = "moved"
        try store.save(Schedule(recordings: [r, recording("b", "2026-11-27T21:00:00Z")]))

        let reopened = try RecordingStore(directory: dir.path)
        #expect(try reopened.rules() == [rule])
        #expect(try reopened.recording(RecordingID("a")) == r)
        #expect(try reopened.recordings().map(\.id.rawValue) == ["a", "b"])
        #expect(try reopened.removeRule(RuleID("drama")))
        #expect(try reopened.rules().isEmpty)
    }

    @Test func aNewScheduleLeavesStartedRecordingsAloneAndRemovesDroppedOnes() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try RecordingStore(directory: dir.path)
        let a = recording("a", "2026-11-27T20:00:00Z")
        let b = recording("b", "2026-11-27T21:00:00Z")
        try store.save(Schedule(recordings: [a, b]))
        try store.appendPart(to: a.id, at: at("2026-11-27T20:00:00Z"))
        var moved = a
        moved.paddedStart = at("2026-11-27T22:00:00Z")
        moved.paddedEnd = at("2026-11-27T23:00:00Z")
        try store.save(Schedule(recordings: [moved], dropped: [b.id]))
        let stored = try store.recordings()
        #expect(stored.map(\.id) == [a.id])
        #expect(stored[0].state == .recording && stored[0].paddedStart == a.paddedStart, "the recorder's recording is not rescheduled")
    }

    @Test func aScheduleIsStoredWholeOrNotAtAll() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try RecordingStore(directory: dir.path)
        let kept = recording("kept", "2026-11-27T19:00:00Z")
        try store.save(Schedule(recordings: [kept]))
        var backwards = recording("backwards", "2026-11-27T21:00:00Z")
        backwards.paddedEnd = backwards.paddedStart.addingTimeInterval(-1)
        #expect { try store.save(Schedule(recordings: [recording("new", "2026-11-27T20:00:00Z"), backwards], dropped: [kept.id])) }
            throws: { ($0 as? RecordingError)?.code == .storage }
        #expect(try store.recordings().map(\.id) == [kept.id], "the failed write left the store as it was")
    }

    @Test func aRecordingCutByACrashIsResumedAsASecondPartWithTheGap() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let id = RecordingID("a")
        do {
            let store = try RecordingStore(directory: dir.path)
            try store.save(recording("a", "2026-11-27T20:00:00Z"))
            let part = try store.appendPart(to: id, at: at("2026-11-27T20:00:00Z"))
            #expect(part.number == 1)
            try store.updatePart(id, number: 1, bytes: 5_000_000, at: at("2026-11-27T20:10:00Z"))
            #expect(try store.interrupted().isEmpty, "being written by this process")
        }
        let after = try RecordingStore(directory: dir.path)
        let cut = try after.interrupted()
        #expect(cut.map(\.id) == [id])
        #expect(cut.first?.parts.first?.lastWrite == at("2026-11-27T20:10:00Z"))
        let second = try after.appendPart(to: id, at: at("2026-11-27T20:10:30Z"))
        #expect(second.number == 2)
        #expect(try after.interrupted().isEmpty, "resumed")
        try after.recordGap(id, from: at("2026-11-27T20:30:00Z"), to: at("2026-11-27T20:30:05Z"), reason: "source stalled")
        try after.finishPart(id, number: 2, bytes: 9_000_000, at: at("2026-11-27T21:00:00Z"))
        try after.finish(id, as: .partial, error: "3 s missing")
        let r = try #require(try after.recording(id))
        #expect(r.state == .partial && r.error == "3 s missing")
        #expect(r.parts.map(\.end) == [at("2026-11-27T20:10:00Z"), at("2026-11-27T21:00:00Z")])
        #expect(r.bytes == 14_000_000)
        #expect(r.gaps == [
            RecordingGap(start: at("2026-11-27T20:10:00Z"), end: at("2026-11-27T20:10:30Z"), reason: "restart"),
            RecordingGap(start: at("2026-11-27T20:30:00Z"), end: at("2026-11-27T20:30:05Z"), reason: "source stalled"),
        ])
    }

    /// The beginning fetched from the archive goes in front of the parts, once.
    @Test func aBeginningFetchedAfterwardsIsPartZero() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try RecordingStore(directory: dir.path)
        let id = RecordingID("a")
        try store.save(recording("a", "2026-11-27T20:00:00Z"))
        try store.appendPart(to: id, at: at("2026-11-27T20:04:00Z"))
        try store.finishPart(id, number: 1, bytes: 6_000_000, at: at("2026-11-27T21:00:00Z"))
        try store.addBeginning(to: id, from: at("2026-11-27T20:00:00Z"), to: at("2026-11-27T20:04:00Z"), bytes: 400_000)
        try store.finish(id, as: .done)
        let r = try #require(try store.recording(id))
        #expect(r.parts.map(\.number) == [0, 1])
        #expect(r.parts.map(\.start) == [at("2026-11-27T20:00:00Z"), at("2026-11-27T20:04:00Z")])
        #expect(r.parts.first?.end == at("2026-11-27T20:04:00Z"))
        #expect(r.bytes == 6_400_000)
        #expect(r.gaps.isEmpty)
        #expect { try store.addBeginning(to: id, from: at("2026-11-27T20:00:00Z"), to: at("2026-11-27T20:04:00Z"), bytes: 1) }
            throws: { ($0 as? RecordingError)?.code == .wrongState }
        #expect { try store.addBeginning(to: RecordingID("none"), from: Date(), to: Date().addingTimeInterval(1), bytes: 1) }
            throws: { ($0 as? RecordingError)?.code == .notFound }
        #expect { try store.addBeginning(to: id, from: Date(), to: Date().addingTimeInterval(-1), bytes: 1) }
            throws: { ($0 as? RecordingError)?.code == .badValue }
    }

    @Test func changesToWhatIsNotThereOrFinishedAreRefused() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try RecordingStore(directory: dir.path)
        let none = RecordingID("none")
        #expect { try store.appendPart(to: none, at: Date()) } throws: { ($0 as? RecordingError)?.code == .notFound }
        #expect { try store.setKeep(none, true) } throws: { ($0 as? RecordingError)?.code == .notFound }
        #expect { try store.recordGap(none, from: Date(), to: Date().addingTimeInterval(1), reason: "x") } throws: {
            ($0 as? RecordingError)?.code == .notFound
        }
        try store.save(recording("done", "2026-11-27T20:00:00Z", state: .done))
        #expect { try store.appendPart(to: RecordingID("done"), at: Date()) } throws: { ($0 as? RecordingError)?.code == .wrongState }
        #expect { try store.updatePart(RecordingID("done"), number: 1, bytes: -1, at: Date()) } throws: {
            ($0 as? RecordingError)?.code == .badValue
        }
        try store.setKeep(RecordingID("done"), true)
        try store.setFilePath(RecordingID("done"), "Done/Done (2026-11-27 2000).ts")
        let kept = try #require(try store.recording(RecordingID("done")))
        #expect(kept.keep && kept.filePath == "Done/Done (2026-11-27 2000).ts")
        #expect(try store.remove(RecordingID("done")))
        #expect(try store.recording(RecordingID("done")) == nil)
    }

    @Test func anUnwritableDirectorySaysWhere() {
        #expect {
            _ = try RecordingStore(directory: "/proc/flipbox-no")
        } throws: { error in
            (error as? RecordingError)?.code == .storage && "\(error)".contains("recordings")
        }
    }
}

@Suite struct RecordingResumeTests {
    @Test func whereARecordingWasLeftIsKeptReplacedForgottenAndGoesWithIt() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try RecordingStore(directory: dir.path)
        let a = recording("a", "2026-11-27T20:00:00Z")
        try store.save(Schedule(recordings: [a]))
        #expect(try store.resumePosition(a.id) == nil)
        try store.setResumePosition(a.id, at("2026-11-27T20:10:00Z"))
        try store.setResumePosition(a.id, at("2026-11-27T20:12:30Z"))
        #expect(try RecordingStore(directory: dir.path).resumePosition(a.id) == at("2026-11-27T20:12:30Z"))
        try store.setResumePosition(a.id, nil)
        #expect(try store.resumePosition(a.id) == nil)
        // None is kept for a recording that is not there; one goes with its recording.
        try store.setResumePosition(RecordingID("ghost"), at("2026-11-27T20:10:00Z"))
        #expect(try store.resumePosition(RecordingID("ghost")) == nil)
        try store.setResumePosition(a.id, at("2026-11-27T20:10:00Z"))
        #expect(try store.remove(a.id))
        try store.save(Schedule(recordings: [a]))
        #expect(try store.resumePosition(a.id) == nil)
    }
}
