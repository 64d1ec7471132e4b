import Foundation

/// The rules of moving in a channel's buffer: previous/next marker, and where a seek lands given
/// the buffer and the breaks. Pure: no clock, no media.
public enum TimeshiftNavigation {
    /// Going to the previous marker within this long after one goes to the one before it (as a
    /// player's "previous chapter" does), so pressing it twice walks back.
    public static let previousGrace: TimeInterval = 3
    /// A marker this close ahead counts as where the picture already is.
    public static let nextSlack: TimeInterval = 0.5
    /// A seek to within this much of the live edge is live.
    public static let liveSlack: TimeInterval = 1

    /// The newest marker before `position` (less the grace); nil when there is none.
    public static func previous(_ markers: [Date], from position: Date) -> Date? {
        markers.filter { $0 < position.addingTimeInterval(-previousGrace) }.max()
    }

    /// The oldest marker after `position`; nil when there is none.
    public static func next(_ markers: [Date], from position: Date) -> Date? {
        markers.filter { $0 > position.addingTimeInterval(nextSlack) }.min()
    }

    /// Where a seek lands.
    public enum Landing: Sendable, Hashable {
        /// At this moment of the buffer (the seek goes to the keyframe at or before it).
        case at(Date, TimeshiftAdjustment?)
        /// At the live edge.
        case live(TimeshiftAdjustment?)
    }

    /// Where a seek from `position` to `target` lands, with `buffer` held: before the buffer
    /// lands at its start; with `linear` breaks, going forward over the start of an unwatched
    /// break lands at that start (the earliest such break), and going forward from inside one
    /// stays where it is; within `liveSlack` of the live edge (or past it) is live.
    public static func landing(from position: Date, to target: Date, buffer: ClosedRange<Date>,
                               breaks: [TimeshiftBreak], linear: Bool) -> Landing {
        let range = "\(TimeshiftTime.format(buffer.lowerBound)) to \(TimeshiftTime.format(buffer.upperBound))"
        var to = target
        var adjustment: TimeshiftAdjustment?
        if to < buffer.lowerBound {
            to = buffer.lowerBound
            adjustment = TimeshiftAdjustment(requested: target, reason: .beforeBuffer,
                                             message: "\(TimeshiftTime.format(target)) is before the buffer (it holds \(range)): moved to its start")
        }
        if linear, to > position {
            let skipped = breaks.filter { !$0.watched && $0.end > position && $0.start < to }.min { $0.start < $1.start }
            if let skipped {
                // From inside the break, the picture stays where it is.
                to = skipped.start <= position ? position : max(skipped.start, buffer.lowerBound)
                adjustment = TimeshiftAdjustment(requested: target, reason: .unwatchedBreak,
                                                 message: "a break from \(TimeshiftTime.format(skipped.start)) to \(TimeshiftTime.format(skipped.end)) is not watched yet: moved to its start")
                return .at(to, adjustment)
            }
        }
        if to >= buffer.upperBound.addingTimeInterval(-liveSlack) {
            if target > buffer.upperBound {
                adjustment = TimeshiftAdjustment(requested: target, reason: .pastLive,
                                                 message: "\(TimeshiftTime.format(target)) is after the live edge (the buffer holds \(range)): live")
            }
            return .live(adjustment)
        }
        return .at(to, adjustment)
    }
}

/// The parts of a channel's timeline a viewer has played (live or from the buffer), merged: what
/// says whether a break was watched. Pure.
public struct WatchedTime: Sendable, Hashable {
    /// Disjoint, in time order.
    public private(set) var spans: [ClosedRange<Date>] = []
    /// Gaps up to this long between played parts (a seek's keyframe, a late frame) count as played.
    public static let tolerance: TimeInterval = 1

    public init() {}

    /// Adds `from...to` (ignored when `to` is before `from`).
    public mutating func add(_ from: Date, _ to: Date) {
        guard from <= to else { return }
        var merged = from...to
        var kept: [ClosedRange<Date>] = []
        for span in spans {
            if span.upperBound.addingTimeInterval(Self.tolerance) < merged.lowerBound
                || merged.upperBound.addingTimeInterval(Self.tolerance) < span.lowerBound {
                kept.append(span)
            } else {
                merged = min(span.lowerBound, merged.lowerBound)...max(span.upperBound, merged.upperBound)
            }
        }
        kept.append(merged)
        spans = kept.sorted { $0.lowerBound < $1.lowerBound }
    }

    /// Whether one played part covers `start...end` (within the tolerance at each end).
    public func covers(_ start: Date, _ end: Date) -> Bool {
        spans.contains {
            $0.lowerBound <= start.addingTimeInterval(Self.tolerance) && $0.upperBound >= end.addingTimeInterval(-Self.tolerance)
        }
    }

    /// Forgets what ended before `limit` (it left the buffer).
    public mutating func forget(before limit: Date) {
        spans.removeAll { $0.upperBound < limit }
    }
}
