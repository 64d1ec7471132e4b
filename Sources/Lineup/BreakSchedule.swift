import Foundation

/// Where a channel's ad break is known from: its MPEG-TS (SCTE-35 splice cues) or its lineup's
/// `breaks` schedule. The timeshift's and the recordings' breaks both say it.
public enum BreakOrigin: String, Sendable, Hashable, Codable {
    /// An SCTE-35 splice cue in the channel's MPEG-TS.
    case scte35
    /// The channel's `breaks` in the lineup.
    case lineup
}

/// A channel's breaks as the lineup gives them (`breaks:`), each rule one of:
///
/// - `every 30m at 28m for 2m`: a break of 2 minutes at 28 minutes into every 30 minutes,
///   counted from midnight UTC (so `every 1h at 58m` is at :58 past every hour).
/// - `2026-11-22T20:15:00Z for 90s`: one break at that moment.
///
/// Durations are `90s`, `2m`, `1h30m`, `500ms`. Pure data; `breaks(in:)` says which fall in a window.
public struct BreakSchedule: Sendable, Hashable, CustomStringConvertible {
    public enum Rule: Sendable, Hashable {
        case every(period: Duration, offset: Duration, length: Duration)
        case once(start: Date, length: Duration)
    }

    public var rules: [Rule]

    public init(rules: [Rule]) { self.rules = rules }

    /// Parses rules separated by `;` (a YAML list is joined so). Throws a message naming the bad rule.
    public init(parsing text: String) throws(LineupValueError) {
        var rules: [Rule] = []
        for part in text.split(separator: ";") {
            let rule = part.trimmingCharacters(in: .whitespaces)
            if rule.isEmpty { continue }
            rules.append(try Self.rule(rule))
        }
        guard !rules.isEmpty else { throw LineupValueError(.breaks, "`breaks` is empty; write e.g. `every 30m at 28m for 2m`") }
        self.rules = rules
    }

    private static func rule(_ text: String) throws(LineupValueError) -> Rule {
        let words = text.split(separator: " ").map(String.init)
        let example = "write `every 30m at 28m for 2m` or `2026-11-22T20:15:00Z for 2m`"
        if words.count == 6, words[0] == "every", words[2] == "at", words[4] == "for" {
            guard let period = duration(words[1]), period > .zero else { throw LineupValueError(.breaks, "break rule '\(text)': '\(words[1])' is not a period; \(example)") }
            guard let offset = duration(words[3]), offset < period else {
                throw LineupValueError(.breaks, "break rule '\(text)': '\(words[3])' is not a time within the period; \(example)")
            }
            guard let length = duration(words[5]), length > .zero, length <= period else {
                throw LineupValueError(.breaks, "break rule '\(text)': '\(words[5])' is not a length within the period; \(example)")
            }
            return .every(period: period, offset: offset, length: length)
        }
        if words.count == 3, words[1] == "for" {
            guard let start = try? Date.ISO8601FormatStyle(includingFractionalSeconds: words[0].contains(".")).parse(words[0]) else {
                throw LineupValueError(.breaks, "break rule '\(text)': '\(words[0])' is not an ISO 8601 time; \(example)")
            }
            guard let length = duration(words[2]), length > .zero else { throw LineupValueError(.breaks, "break rule '\(text)': '\(words[2])' is not a length; \(example)") }
            return .once(start: start, length: length)
        }
        throw LineupValueError(.breaks, "break rule '\(text)' is not understood; \(example)")
    }

    static func duration(_ text: String) -> Duration? { Duration(compact: text) }

    /// The breaks that overlap `window`, in time order.
    public func breaks(in window: ClosedRange<Date>) -> [DateInterval] {
        var out: [DateInterval] = []
        for rule in rules {
            switch rule {
            case .once(let start, let length):
                let interval = DateInterval(start: start, duration: length.seconds)
                if interval.end > window.lowerBound, interval.start < window.upperBound { out.append(interval) }
            case .every(let period, let offset, let length):
                let p = period.seconds, o = offset.seconds
                let day = (window.lowerBound.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400
                // Periods restart at each midnight UTC: walk the days the window touches.
                var midnight = day
                while midnight < window.upperBound.timeIntervalSince1970 {
                    let first = max(0, ((window.lowerBound.timeIntervalSince1970 - midnight - o - length.seconds) / p).rounded(.down))
                    var k = first
                    while true {
                        let start = midnight + k * p + o
                        if start >= midnight + 86_400 || start >= window.upperBound.timeIntervalSince1970 { break }
                        let interval = DateInterval(start: Date(timeIntervalSince1970: start), duration: length.seconds)
                        if interval.end > window.lowerBound { out.append(interval) }
                        k += 1
                    }
                    midnight += 86_400
                }
            }
        }
        return out.sorted { $0.start < $1.start }
    }

    public var description: String {
        rules.map { rule in
            switch rule {
            case .every(let period, let offset, let length): "every \(Self.text(period)) at \(Self.text(offset)) for \(Self.text(length))"
            case .once(let start, let length): "\(Date.ISO8601FormatStyle().format(start)) for \(Self.text(length))"
            }
        }.joined(separator: "; ")
    }

    private static func text(_ d: Duration) -> String {
        let ms = Int64(d.milliseconds.rounded())
        return ms % 1000 == 0 ? "\(ms / 1000)s" : "\(ms)ms"
    }
}

extension Channel {
    /// The channel's `breaks` (nil when it has none or they do not parse; the loader reports that).
    public var breakSchedule: BreakSchedule? {
        attributes["breaks"].flatMap { try? BreakSchedule(parsing: $0) }
    }

    /// `linear-breaks: true`: a forward seek does not skip a break the viewer has not watched.
    public var linearBreaks: Bool {
        ["true", "yes", "on", "1"].contains(attributes["linear-breaks"]?.lowercased() ?? "")
    }
}
