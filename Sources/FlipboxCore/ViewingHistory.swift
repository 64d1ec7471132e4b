import Foundation

/// What a box is watched on, by hour of the week: the seconds each channel was on screen in
/// each of the week's 168 hours (the box's own time zone), decayed so that what was watched two
/// weeks ago counts half. The warm planner ranks the channels usually watched at this hour after
/// the ones the viewer's keys lead to, the last channel and favourites. Kept in the state
/// directory; nothing of it leaves the box. Pure: dates in, channel ids out.
public struct ViewingHistory: Sendable, Codable, Equatable {
    public static let hoursPerWeek = 7 * 24
    /// How long until what was watched counts half.
    public static let halfLife: TimeInterval = 14 * 24 * 3600
    /// Less on screen than this is surfing past, not watching.
    public static let minimumDwell: TimeInterval = 10
    /// The most one viewing counts (a channel left on all night is a day at most).
    public static let maximumDwell: TimeInterval = 24 * 3600
    /// Channels kept at most (the least watched go first beyond it).
    public static let maxChannels = 4096
    /// What makes a channel usual at an hour: this many seconds there (decayed), or more.
    public static let usualSeconds: Double = 300

    /// Seconds per channel id, per hour of the week (index 0: Sunday 00:00-01:00), as of `updated`.
    public private(set) var seconds: [String: [Double]] = [:]
    /// When the figures were last decayed.
    public private(set) var updated: Date?

    public init() {}

    /// `channel` was on screen from `start` to `end`: its seconds go to the hours they fell in.
    /// Nothing for a viewing shorter than `minimumDwell`, or dates that make no sense.
    public mutating func watched(_ channel: String, from start: Date, to end: Date, calendar: Calendar) {
        let length = end.timeIntervalSince(start)
        guard length.isFinite, length >= Self.minimumDwell, !channel.isEmpty else { return }
        decay(to: end)
        var row = seconds[channel] ?? Array(repeating: 0, count: Self.hoursPerWeek)
        var at = max(start, end.addingTimeInterval(-Self.maximumDwell))
        while at < end {
            guard let hour = Self.hourOfWeek(at, calendar: calendar) else { return }
            // The next hour begins this far on (by the clock's minutes and seconds: an hour's
            // boundary computed as a date can round back onto `at`, which would end the count).
            let parts = calendar.dateComponents([.minute, .second, .nanosecond], from: at)
            let into = Double(parts.minute ?? 0) * 60 + Double(parts.second ?? 0) + Double(parts.nanosecond ?? 0) / 1e9
            let until = min(at.addingTimeInterval(max(0.001, 3600 - into)), end)
            row[hour] += until.timeIntervalSince(at)
            at = until
        }
        seconds[channel] = row
        if seconds.count > Self.maxChannels, let least = seconds.min(by: { $0.value.reduce(0, +) < $1.value.reduce(0, +) })?.key {
            seconds[least] = nil
        }
    }

    /// The channels of `among` usually watched around `date`'s hour (that hour counts whole, the
    /// hours on either side half), most watched first, at most `count`.
    public func usual(at date: Date, calendar: Calendar, among: [String], count: Int = 3) -> [String] {
        guard let hour = Self.hourOfWeek(date, calendar: calendar), count > 0 else { return [] }
        let factor = updated.map { Self.decayFactor(over: date.timeIntervalSince($0)) } ?? 1
        let before = (hour + Self.hoursPerWeek - 1) % Self.hoursPerWeek, after = (hour + 1) % Self.hoursPerWeek
        let scored = among.compactMap { id -> (String, Double)? in
            guard let row = seconds[id], row.count == Self.hoursPerWeek else { return nil }
            let score = (row[hour] + 0.5 * (row[before] + row[after])) * factor
            return score >= Self.usualSeconds ? (id, score) : nil
        }
        return scored.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }.prefix(count).map(\.0)
    }

    /// The hour of the week `date` falls in (0: Sunday 00:00-01:00).
    public static func hourOfWeek(_ date: Date, calendar: Calendar) -> Int? {
        let parts = calendar.dateComponents([.weekday, .hour], from: date)
        guard let weekday = parts.weekday, let hour = parts.hour, (1...7).contains(weekday), (0..<24).contains(hour) else { return nil }
        return (weekday - 1) * 24 + hour
    }

    /// Decays every figure to `date` (never backwards: a clock set back decays nothing).
    private mutating func decay(to date: Date) {
        defer { updated = max(updated ?? date, date) }
        guard let updated, date > updated else { return }
        let factor = Self.decayFactor(over: date.timeIntervalSince(updated))
        guard factor < 1 else { return }
        for (id, row) in seconds { seconds[id] = row.map { $0 * factor } }
    }

    static func decayFactor(over interval: TimeInterval) -> Double {
        guard interval.isFinite, interval > 0 else { return 1 }
        return pow(0.5, interval / halfLife)
    }

    /// A history read from a file: rows of the wrong length, and numbers that are negative or
    /// not finite, are dropped.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let rows = try container.decode([String: [Double]].self, forKey: .seconds)
        seconds = rows.filter { !$0.key.isEmpty && $0.value.count == Self.hoursPerWeek && $0.value.allSatisfy { $0.isFinite && $0 >= 0 } }
        if seconds.count > Self.maxChannels { seconds = [:] }
        updated = try container.decodeIfPresent(Date.self, forKey: .updated)
    }
}
