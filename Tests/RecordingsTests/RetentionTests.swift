import Foundation
import Testing
@testable import Recordings

@Suite struct RetentionTests {
    func finished(_ id: String, _ start: String, bytes: Int64, rules: [String] = [], keep: Bool = false,
                  state: RecordingState = .done) -> Recording {
        var r = recording(id, start, state: state)
        r.parts = [RecordingPart(number: 1, start: r.paddedStart, lastWrite: r.paddedEnd, end: r.paddedEnd, bytes: bytes)]
        r.rules = rules.map(RuleID.init)
        r.keep = keep
        r.filePath = "\(id).ts"
        return r
    }

    @Test func aQuotaRemovesTheOldestFirstButNeverKeptOrInProgress() {
        let all = [
            finished("kept", "2026-11-01T20:00:00Z", bytes: 400, keep: true),
            finished("old", "2026-11-02T20:00:00Z", bytes: 300),
            finished("mid", "2026-11-03T20:00:00Z", bytes: 300),
            finished("new", "2026-11-04T20:00:00Z", bytes: 300),
            finished("live", "2026-11-01T19:00:00Z", bytes: 500, state: .recording),
        ]
        let out = Retention.removals(all, policy: Retention.Policy(quotaBytes: 1300), now: at("2026-11-05T00:00:00Z"))
        #expect(out.map(\.recording.rawValue) == ["old", "mid"])
        #expect(out.allSatisfy { $0.reason == .overQuota(quotaBytes: 1300) })
        #expect(out.first?.filePath == "old.ts" && out.first?.bytes == 300)
    }

    @Test func ageAndPerRuleCountsSayWhy() {
        let all = [
            finished("s1", "2026-11-01T20:00:00Z", bytes: 1, rules: ["series"]),
            finished("s2", "2026-11-08T20:00:00Z", bytes: 1, rules: ["series"]),
            finished("s3", "2026-11-15T20:00:00Z", bytes: 1, rules: ["series"]),
            finished("s4", "2026-11-22T20:00:00Z", bytes: 1, rules: ["series", "other"]),
            finished("ancient", "2026-01-01T20:00:00Z", bytes: 1, rules: ["series"]),
        ]
        let policy = Retention.Policy(maxAgeDays: 30, keepLatest: [RuleID("series"): 2, RuleID("other"): 5])
        let out = Retention.removals(all, policy: policy, now: at("2026-11-25T00:00:00Z"))
        #expect(out.map(\.recording.rawValue) == ["ancient", "s1", "s2"])
        #expect(out[0].reason == .olderThan(days: 30))
        #expect(out[1].reason == .beyondKeepLatest(rule: RuleID("series"), count: 2))
    }

    @Test func aRecordingAnotherRuleStillKeepsStays() {
        let all = [
            finished("a", "2026-11-01T20:00:00Z", bytes: 1, rules: ["x", "y"]),
            finished("b", "2026-11-02T20:00:00Z", bytes: 1, rules: ["x"]),
        ]
        let out = Retention.removals(all, policy: Retention.Policy(keepLatest: [RuleID("x"): 1, RuleID("y"): 3]), now: at("2026-11-03T00:00:00Z"))
        #expect(out.isEmpty, "rule y keeps three")
    }

    @Test func hugeAndNegativeSizesDoNotTrap() {
        let all = [
            finished("a", "2026-11-01T20:00:00Z", bytes: .max),
            finished("b", "2026-11-02T20:00:00Z", bytes: .max),
            finished("c", "2026-11-03T20:00:00Z", bytes: -5),
        ]
        let out = Retention.removals(all, policy: Retention.Policy(quotaBytes: 10), now: at("2026-11-05T00:00:00Z"))
        #expect(out.map(\.recording.rawValue) == ["a", "b"])
        #expect(Retention.sum([.max, 1, -3]) == .max)
    }
}
