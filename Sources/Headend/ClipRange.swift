import Foundation
import Lineup

/// The ends of a clip as asked: `now` (the live edge), a relative time (`-60s`, `-1m30s`, `-90`,
/// taken from the live edge) or an ISO 8601 time. Pure: resolved against a buffer's range.
public enum ClipTime: Sendable, Hashable {
    case now
    case relative(Duration)
    case absolute(Date)

    /// Parses `text`; nil when it is none of the three forms.
    public init?(_ text: String) {
        let t = text.trimmingCharacters(in: .whitespaces)
        if t.lowercased() == "now" || t.lowercased() == "live" { self = .now; return }
        if t.first == "-" || t.first == "+", let amount = Duration(signed: t) { self = .relative(amount); return }
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: t.contains("."))
        guard let date = try? style.parse(t) else { return nil }
        self = .absolute(date)
    }

    /// The moment against a live edge.
    public func resolve(liveEdge: Date) -> Date {
        switch self {
        case .now: liveEdge
        case .relative(let d): liveEdge.addingTimeInterval(Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
        case .absolute(let date): date
        }
    }
}

/// Checks a clip's range against what the buffer holds.
public enum ClipRange {
    /// How far outside the buffer an end may be and still be taken (rounding, "now" a moment late).
    public static let slack: TimeInterval = 2

    /// The range to write: `from` and `to` resolved against `buffer` (oldest keyframe ... live
    /// edge). Throws `.badRange` with the buffer's range in the message.
    public static func resolve(from: ClipTime, to: ClipTime, buffer: ClosedRange<Date>) throws(ClipFailure) -> ClosedRange<Date> {
        let start = from.resolve(liveEdge: buffer.upperBound)
        var end = to.resolve(liveEdge: buffer.upperBound)
        let held = "the buffer holds \(describe(buffer.lowerBound)) to \(describe(buffer.upperBound))"
        guard start < end else {
            throw ClipFailure(.badRange, "from (\(describe(start))) must be before to (\(describe(end))); \(held)")
        }
        guard start >= buffer.lowerBound.addingTimeInterval(-slack) else {
            throw ClipFailure(.badRange, "from (\(describe(start))) is before the start of the buffer; \(held)")
        }
        guard end <= buffer.upperBound.addingTimeInterval(slack) else {
            throw ClipFailure(.badRange, "to (\(describe(end))) is after the live edge; \(held)")
        }
        end = min(end, buffer.upperBound)
        guard start < end else { throw ClipFailure(.badRange, "the range is empty; \(held)") }
        return max(start, buffer.lowerBound)...end
    }

    static func describe(_ date: Date) -> String { Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date) }
}
