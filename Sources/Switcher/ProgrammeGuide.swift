import Foundation
import Output
import Parental

/// What is on a channel now and next, as the player shows it (banner, cards, status).
///
/// The player asks through this narrow interface; the executable hands it the XMLTV guide
/// (module `Guide`, SQLite), so the switcher does not depend on how the guide is stored.
/// Answers must be fast (a lookup, ≤ 1 ms) and never throw: no guide is no answer.
public protocol ProgrammeGuide: Sendable {
    func nowNext(channelID: String, at instant: Date) -> NowNext
    /// The programmes on at some moment in `from..<to` on each channel (by id), in time order.
    func programmes(channelIDs: [String], from: Date, to: Date) -> [String: [ProgrammeSummary]]
}

extension ProgrammeGuide {
    public func programmes(channelIDs: [String], from: Date, to: Date) -> [String: [ProgrammeSummary]] { [:] }
}

/// The viewer's reminders, as the player uses them (the executable keeps them in SQLite).
public protocol ReminderBook: Sendable {
    /// The reminders not yet proposed.
    func pending() -> [Reminder]
    /// Reminder `id` was proposed (or is past): forget it.
    func spend(_ id: Int64)
    /// Sets a reminder for `title` at `start` on channel `channelID`; nil when it cannot be kept.
    func add(channelID: String, title: String, start: Date, end: Date) -> Reminder?
}

/// The programme on now and the one after it; either may be unknown.
public struct NowNext: Sendable, Hashable {
    public var now: ProgrammeSummary?
    public var next: ProgrammeSummary?
    public init(now: ProgrammeSummary?, next: ProgrammeSummary?) {
        self.now = now
        self.next = next
    }
    public static let unknown = NowNext(now: nil, next: nil)

    /// The card placeholders `{{now.title}}`, `{{now.start}}`, `{{now.end}}`,
    /// `{{now.description}}`, `{{now.rating}}`, `{{next.title}}`, `{{next.start}}`.
    var cardFields: [String: String] {
        var out: [String: String] = [:]
        if let now {
            out["now.title"] = now.title
            out["now.start"] = ProgrammeSummary.time(now.start)
            out["now.end"] = ProgrammeSummary.time(now.end)
            out["now.description"] = now.description ?? ""
            out["now.rating"] = now.rating ?? ""
        }
        if let next {
            out["next.title"] = next.title
            out["next.start"] = ProgrammeSummary.time(next.start)
        }
        return out
    }

    /// How far `now` is at `instant`, 0...1.
    public func progress(at instant: Date) -> Double {
        guard let now, now.end > now.start else { return 0 }
        return min(1, max(0, instant.timeIntervalSince(now.start) / now.end.timeIntervalSince(now.start)))
    }
}

/// One programme, as much as the screen and the API need.
public struct ProgrammeSummary: Sendable, Hashable {
    public var title: String
    public var start: Date
    public var end: Date
    public var description: String?
    /// The first rating, e.g. `TV-PG`.
    public var rating: String?
    /// Every rating the guide gives, with its system (what the parental rules judge).
    public var ratings: [ContentRating]
    public init(title: String, start: Date, end: Date, description: String? = nil, rating: String? = nil,
                ratings: [ContentRating] = []) {
        self.title = title
        self.start = start
        self.end = end
        self.description = description
        self.rating = rating ?? ratings.first?.value
        self.ratings = ratings
    }

    /// `HH:mm` in the box's time zone.
    public static func time(_ date: Date) -> String {
        let c = Calendar.current.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", c.hour ?? 0, c.minute ?? 0)
    }
}
