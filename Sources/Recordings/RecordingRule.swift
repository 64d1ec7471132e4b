import Foundation
import Lineup

/// A series rule: which programmes of the guide to record, and how.
///
/// A rule is a value; ``validate()`` checks it before it is stored (a pattern that does not
/// compile, padding or counts out of bounds).
public struct RecordingRule: Hashable, Sendable, Codable, Identifiable {
    public var id: RuleID
    public var title: TitleMatch
    /// Nil: any channel.
    public var channel: ChannelNumber?
    /// Empty: any day. Days are those of the box's time zone, at the programme's start.
    public var days: Set<Weekday>
    /// Nil: any time. The programme's start must fall in the window (box's time zone).
    public var window: TimeWindow?
    /// Skip programmes whose episode was recorded or scheduled already.
    public var newEpisodesOnly: Bool
    /// Retention keeps this many of the rule's newest recordings; nil: no count.
    public var keepLatest: Int?
    /// Higher records first when a pool has too few streams.
    public var priority: Int
    public var padding: Padding

    public init(
        id: RuleID, title: TitleMatch, channel: ChannelNumber? = nil, days: Set<Weekday> = [],
        window: TimeWindow? = nil, newEpisodesOnly: Bool = false, keepLatest: Int? = nil,
        priority: Int = 0, padding: Padding = .standard
    ) {
        self.id = id
        self.title = title
        self.channel = channel
        self.days = days
        self.window = window
        self.newEpisodesOnly = newEpisodesOnly
        self.keepLatest = keepLatest
        self.priority = priority
        self.padding = padding
    }

    /// Priorities rules and requests may have.
    public static let priorities = -1000...1000

    static func validate(priority: Int, source: String) throws(RecordingError) {
        guard priorities.contains(priority) else {
            throw RecordingError(.badValue, "priority \(priority) is not within -1000...1000", source: source)
        }
    }

    /// The bounds: priority within ±1000, keep-N 1...10 000, padding within ``Padding/maximum``.
    public func validate() throws(RecordingError) {
        try title.validate()
        if title.text.trimmingCharacters(in: .whitespaces).isEmpty {
            throw RecordingError(.badValue, "the rule has no title to look for", source: id.rawValue)
        }
        try Self.validate(priority: priority, source: id.rawValue)
        if let keepLatest, !(1...10_000).contains(keepLatest) {
            throw RecordingError(.badValue, "keep-latest \(keepLatest) is not within 1...10000", source: id.rawValue)
        }
        try padding.validate(source: id.rawValue)
        try window?.validate(source: id.rawValue)
    }
}

/// Time recorded before a programme's start and after its stop.
public struct Padding: Hashable, Sendable, Codable {
    public var before: TimeInterval
    public var after: TimeInterval

    /// 1 minute before, 3 after.
    public static let standard = Padding(before: 60, after: 180)
    /// A time range is recorded exactly as asked.
    public static let none = Padding(before: 0, after: 0)
    /// The most either side may be: 6 hours.
    public static let maximum: TimeInterval = 6 * 3600

    public init(before: TimeInterval, after: TimeInterval) {
        self.before = before
        self.after = after
    }

    public func validate(source: String) throws(RecordingError) {
        for (name, value) in [("before", before), ("after", after)]
        where !(value.isFinite && value >= 0 && value <= Padding.maximum) {
            throw RecordingError(.badValue, "padding \(name) \(value) s is not within 0...\(Int(Padding.maximum)) s", source: source)
        }
    }

    /// The larger of each side: overlapping rules pad as much as the most generous asks.
    func union(_ other: Padding) -> Padding {
        Padding(before: max(before, other.before), after: max(after, other.after))
    }
}

/// A day of the week (ISO numbering: Monday 1 ... Sunday 7).
public enum Weekday: Int, Hashable, Sendable, Codable, CaseIterable, Comparable {
    case monday = 1, tuesday, wednesday, thursday, friday, saturday, sunday

    public static func < (a: Weekday, b: Weekday) -> Bool { a.rawValue < b.rawValue }

    /// From `Calendar`'s weekday (Sunday 1 ... Saturday 7).
    init?(calendarWeekday: Int) {
        guard (1...7).contains(calendarWeekday) else { return nil }
        self.init(rawValue: calendarWeekday == 1 ? 7 : calendarWeekday - 1)
    }
}

/// Times of day, in minutes after midnight, start inclusive, end exclusive; an end before the
/// start wraps past midnight (`22:00-02:00`).
public struct TimeWindow: Hashable, Sendable, Codable {
    public var startMinute: Int
    public var endMinute: Int

    public init(startMinute: Int, endMinute: Int) {
        self.startMinute = startMinute
        self.endMinute = endMinute
    }

    public func contains(minute: Int) -> Bool {
        if startMinute == endMinute { return true }
        if startMinute < endMinute { return startMinute <= minute && minute < endMinute }
        return minute >= startMinute || minute < endMinute
    }

    func validate(source: String) throws(RecordingError) {
        guard (0..<1440).contains(startMinute), (0..<1440).contains(endMinute) else {
            throw RecordingError(.badValue, "time window \(startMinute)-\(endMinute) is not within 0...1439 minutes", source: source)
        }
    }
}
