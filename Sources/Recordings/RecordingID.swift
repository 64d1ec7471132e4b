import Foundation

/// Identifies a scheduled or finished recording; stable across restarts (stored).
public struct RecordingID: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// A new id for a request someone makes: `o-` and eight hex digits.
    public static func fresh() -> RecordingID { RecordingID("o-" + freshDigits()) }
}

/// Eight random hex digits, for the ids of requests and rules.
func freshDigits() -> String {
    let hex = String(UInt32.random(in: .min ... .max), radix: 16)
    return String(repeating: "0", count: 8 - hex.count) + hex
}

/// Identifies a series rule; stable across restarts (stored).
public struct RuleID: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// A new rule id: `r-` and eight hex digits.
    public static func fresh() -> RuleID { RuleID("r-" + freshDigits()) }
}
