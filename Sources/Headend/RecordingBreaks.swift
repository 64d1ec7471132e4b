import Foundation
import Lineup

/// The ad breaks of a recording: those of its channel (SCTE-35 cues, the lineup's schedule)
/// inside what was written, and, in its playback, the marks they make and where skipping them
/// lands. Pure: no clock, no media.
public enum RecordingBreaks {
    /// The most breaks a recording reports (cues come from outside).
    public static let limit = 500

    /// The breaks overlapping `span` (the part written so far), clipped to it, in start order,
    /// at most `limit`: the cued ones (`cued`, from the channel's `SpliceCueLog`; one still
    /// open runs to the span's end) and the lineup's `schedule`. Empty ones are left out.
    public static func within(_ span: ClosedRange<Date>, cued: [DateInterval], schedule: BreakSchedule?) -> [TimeshiftBreak] {
        let lineup = (schedule?.breaks(in: span) ?? []).map { ($0, TimeshiftBreak.Origin.lineup) }
        let all = cued.map { ($0, TimeshiftBreak.Origin.scte35) } + lineup
        let clipped = all.compactMap { interval, origin -> TimeshiftBreak? in
            let start = max(interval.start, span.lowerBound), end = min(interval.end, span.upperBound)
            return end > start ? TimeshiftBreak(start: start, end: end, origin: origin) : nil
        }
        return Array(clipped.sorted { $0.start < $1.start }.prefix(limit))
    }

    /// A mark at each break's start and end, named for a viewer.
    public static func markers(_ breaks: [TimeshiftBreak]) -> [TimeshiftMarker] {
        breaks.flatMap { b in
            [TimeshiftMarker(time: b.start, name: "Break", kind: .adBreak),
             TimeshiftMarker(time: b.end, name: "End of break", kind: .adBreak)]
        }
    }
}

/// Skipping a recording's breaks as it plays (`skip-breaks`): when the position reaches a
/// break's start, the playback jumps to its end, once per break; a break the viewer went into
/// (a seek, a mark, the start of the playback landing inside it) plays. Pure.
public struct BreakSkipping: Sendable, Hashable {
    public private(set) var breaks: [TimeshiftBreak]
    /// The breaks (by index) skipped once or chosen by the viewer: never skipped again.
    public private(set) var done: Set<Int> = []
    /// A position this far past a break's start still skips it (the check runs a few times a second).
    public static let reach: TimeInterval = 5

    public init(breaks: [TimeshiftBreak]) {
        self.breaks = breaks.sorted { $0.start < $1.start }
    }

    /// The playback went to `position` by the viewer's choice: a break holding it plays.
    public mutating func moved(to position: Date) {
        for (i, b) in breaks.enumerated() where b.start <= position && position < b.end { done.insert(i) }
    }

    /// Where to jump from `position`: the end of a break not yet skipped nor chosen that the
    /// position has reached (within `reach` past its start), which then counts as skipped. Back
    /// to back breaks are jumped over together. Nil when it plays on.
    public mutating func jump(at position: Date) -> Date? {
        guard let i = breaks.indices.first(where: { i in
            !done.contains(i) && breaks[i].start <= position && position < breaks[i].end
                && position.timeIntervalSince(breaks[i].start) < Self.reach
        }) else { return nil }
        done.insert(i)
        var end = breaks[i].end
        // A break starting where this one ends (or within it) goes too.
        for j in breaks.indices where j > i && !done.contains(j) && breaks[j].start <= end {
            done.insert(j)
            end = max(end, breaks[j].end)
        }
        return end
    }
}
