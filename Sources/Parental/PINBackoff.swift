import Foundation

/// The wrong-PIN rule, as a value with wall-clock times (it is written to disk, so a restart
/// does not reset it): 5 wrong PINs are free; after that each try waits, 30 s after the 5th
/// wrong PIN, doubling with every further wrong one (60 s, 120 s, …, at most a day). A right
/// PIN clears the count.
public struct PINBackoff: Codable, Sendable, Hashable {
    public static let freeAttempts = 5
    public static let firstWait: Double = 30
    public static let longestWait: Double = 24 * 3600

    /// Wrong PINs in a row.
    public private(set) var failures = 0
    /// When the last wrong PIN was given.
    public private(set) var lastFailure: Date?

    public init() {}

    /// How long the next try must wait after the last wrong PIN (zero within the free tries).
    public var delay: Double {
        guard failures >= Self.freeAttempts else { return 0 }
        let doublings = min(failures - Self.freeAttempts, 32)
        return min(Self.firstWait * pow(2, Double(doublings)), Self.longestWait)
    }

    /// Seconds left before a try is allowed at `now`; nil when one is allowed now. A clock set
    /// back never makes the wait longer than `delay`.
    public func wait(at now: Date) -> Double? {
        guard delay > 0, let last = lastFailure else { return nil }
        let left = min(delay, delay - now.timeIntervalSince(last))
        return left > 0 ? left : nil
    }

    /// Wrong PINs left before tries must wait.
    public var freeAttemptsLeft: Int { max(0, Self.freeAttempts - failures) }

    public mutating func failed(at now: Date) {
        failures += 1
        lastFailure = now
    }

    public mutating func succeeded() {
        failures = 0
        lastFailure = nil
    }
}
