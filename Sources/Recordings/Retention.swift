import Foundation

/// What retention may remove and why: pure, the caller deletes the files and the rows.
public enum Retention {
    public struct Policy: Hashable, Sendable, Codable {
        /// The most the recordings may take on disk; nil: no quota.
        public var quotaBytes: Int64?
        /// Recordings that ended more than this many days ago go; nil: no age limit.
        public var maxAgeDays: Int?
        /// Per rule: keep only its newest N recordings (from ``RecordingRule/keepLatest``).
        public var keepLatest: [RuleID: Int]

        public init(quotaBytes: Int64? = nil, maxAgeDays: Int? = nil, keepLatest: [RuleID: Int] = [:]) {
            self.quotaBytes = quotaBytes
            self.maxAgeDays = maxAgeDays
            self.keepLatest = keepLatest
        }
    }

    public enum Reason: Hashable, Sendable, Codable {
        /// Ended more than `days` days ago.
        case olderThan(days: Int)
        /// The rule keeps only its newest `count`.
        case beyondKeepLatest(rule: RuleID, count: Int)
        /// The recordings took more than the quota.
        case overQuota(quotaBytes: Int64)
    }

    public struct Removal: Hashable, Sendable, Codable {
        public var recording: RecordingID
        public var filePath: String?
        public var bytes: Int64
        public var reason: Reason
    }

    /// The recordings to delete, oldest first. Never one scheduled or in progress, nor one
    /// marked keep. A recording that several rules asked for goes by count only when every one
    /// of them keeps fewer. Sizes add up saturating (they come from outside).
    public static func removals(_ recordings: [Recording], policy: Policy, now: Date) -> [Removal] {
        let removable = recordings.filter { $0.state.hasFile && !$0.keep }
            .sorted { ($0.paddedEnd, $0.id) < ($1.paddedEnd, $1.id) }
        var chosen: [RecordingID: Reason] = [:]

        if let days = policy.maxAgeDays, days >= 0, days <= 100_000 {
            let cutoff = now.addingTimeInterval(-Double(days) * 86_400)
            for r in removable where r.paddedEnd < cutoff { chosen[r.id] = .olderThan(days: days) }
        }
        var beyond: [RecordingID: [(RuleID, Int)]] = [:]
        for (rule, count) in policy.keepLatest.sorted(by: { $0.key < $1.key }) where count >= 0 {
            let mine = recordings.filter { $0.rules.contains(rule) && ($0.state.hasFile || $0.state == .recording) }
                .sorted { ($0.paddedEnd, $0.id) > ($1.paddedEnd, $1.id) }
            for r in mine.dropFirst(count) { beyond[r.id, default: []].append((rule, count)) }
        }
        for r in removable where chosen[r.id] == nil {
            guard let counts = beyond[r.id], let first = counts.first else { continue }
            let everyRule = r.rules.allSatisfy { rule in counts.contains { $0.0 == rule } || policy.keepLatest[rule] == nil }
            if everyRule && !r.isOneOff { chosen[r.id] = .beyondKeepLatest(rule: first.0, count: first.1) }
        }
        if let quota = policy.quotaBytes {
            let counted = recordings.filter { $0.state.hasFile || $0.state == .recording }
            for r in removable where chosen[r.id] == nil {
                guard sum(counted.filter { chosen[$0.id] == nil }.map(\.bytes)) > quota else { break }
                chosen[r.id] = .overQuota(quotaBytes: quota)
            }
        }
        return removable.compactMap { r in
            chosen[r.id].map { Removal(recording: r.id, filePath: r.filePath, bytes: r.bytes, reason: $0) }
        }
    }

    static func sum(_ sizes: [Int64]) -> Int64 {
        sizes.reduce(Int64(0)) { total, size in
            let (result, overflow) = total.addingReportingOverflow(max(0, size))
            return overflow ? .max : result
        }
    }
}
