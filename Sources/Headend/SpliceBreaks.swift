import Foundation
import GStreamer

/// The breaks a channel's SCTE-35 splice cues announce, on the wall clock. Pure.
///
/// A splice_insert out of network starts a break at its splice time; the break ends at the splice
/// time plus its break_duration when the cue gives one, else at the next splice_insert back in
/// (for the same event, or for whatever break is open). A splice back in before the end ends it
/// early; a cancel drops the event's break. A cue repeated (encoders send each several times
/// before the splice) changes nothing. A time_signal's segmentation descriptors of a break or a
/// placement opportunity work the same way: their start types go out, their end types come back
/// in, with segmentation_duration for break_duration (segmentation and splice_insert event ids
/// are apart).
struct SpliceBreaks: Sendable, Equatable {
    /// The event a cue belongs to.
    enum Event: Sendable, Hashable {
        case insert(UInt32)
        case segmentation(UInt32)
    }

    /// A cue as the breaks read it.
    struct Cue: Sendable, Equatable {
        var event: Event
        var isCancel = false
        var outOfNetwork: Bool
        var duration: ClockTime?
    }

    struct Break: Sendable, Equatable {
        var event: Event
        var start: Date
        /// Nil while the break waits for its splice back in.
        var end: Date?
    }

    /// In start order.
    private(set) var all: [Break] = []
    /// Breaks kept at most (the oldest go first): a channel never shown does not grow without end.
    static let limit = 256
    /// Cues for the same event this close are one splice.
    static let sameSplice: TimeInterval = 1

    /// The wall-clock moment of running time `time`, given `anchor`: a running time of the same
    /// ingest and the moment it played (its newest frame and its arrival).
    static func wallTime(of time: ClockTime, anchor: (runningTime: ClockTime, at: Date)) -> Date {
        let delta = Double(Int64(bitPattern: UInt64(time)) - Int64(bitPattern: UInt64(anchor.runningTime))) / 1e9
        return anchor.at.addingTimeInterval(delta)
    }

    /// Applies one splice_insert whose splice happens at `time`.
    mutating func apply(_ insert: SpliceInsert, at time: Date) {
        apply(Cue(event: .insert(insert.eventID), isCancel: insert.isCancel, outOfNetwork: insert.outOfNetwork, duration: insert.duration), at: time)
    }

    /// Applies one segmentation descriptor of a time_signal at `time`; false (nothing changed)
    /// when it is not of a break or placement opportunity type.
    @discardableResult
    mutating func apply(_ segmentation: SpliceSegmentation, at time: Date) -> Bool {
        guard segmentation.isCancel || segmentation.startsBreak || segmentation.endsBreak else { return false }
        apply(Cue(event: .segmentation(segmentation.eventID), isCancel: segmentation.isCancel,
                  outOfNetwork: segmentation.startsBreak, duration: segmentation.duration), at: time)
        return true
    }

    /// Applies one cue whose splice happens at `time`.
    mutating func apply(_ insert: Cue, at time: Date) {
        if insert.isCancel {
            if let i = all.lastIndex(where: { $0.event == insert.event }) { all.remove(at: i) }
            return
        }
        let duration = insert.duration.map { Double($0) / 1e9 }
        if insert.outOfNetwork {
            if let i = all.firstIndex(where: { $0.event == insert.event && abs($0.start.timeIntervalSince(time)) < Self.sameSplice }) {
                // The same cue again: a duration it gives now still counts.
                if all[i].end == nil, let duration { all[i].end = all[i].start.addingTimeInterval(duration) }
                return
            }
            // A break still open when the next one starts ends there.
            for i in all.indices where all[i].end == nil && all[i].start < time { all[i].end = time }
            all.append(Break(event: insert.event, start: time, end: duration.map { time.addingTimeInterval($0) }))
            all.sort { $0.start < $1.start }
            if all.count > Self.limit { all.removeFirst(all.count - Self.limit) }
        } else {
            let candidates = all.indices.filter { all[$0].start < time }
            guard let i = candidates.last(where: { all[$0].event == insert.event }) ?? candidates.last(where: { all[$0].end == nil }) else { return }
            if all[i].end.map({ time < $0 }) ?? true { all[i].end = time }
        }
    }

    /// The breaks as time ranges; one still open runs to `liveEdge` (or is empty before it starts).
    func intervals(until liveEdge: Date) -> [DateInterval] {
        all.map { DateInterval(start: $0.start, end: max($0.start, $0.end ?? liveEdge)) }
    }

    /// Forgets the breaks that ended before `limit`.
    mutating func forget(before limit: Date) {
        all.removeAll { ($0.end ?? .distantFuture) < limit }
    }
}
