import Foundation
import GStreamer

/// One channel's SCTE-35 splice cues as its ingest reads them: the breaks they announce, on the
/// wall clock, and what was wrong with the ones it could not use (each kind told once).
///
/// Thread-safe: cues arrive on the ingest's streaming threads; the headend reads the breaks.
/// Kept across reconnects of the source (the breaks are wall-clock times by then).
public final class SpliceCueLog: @unchecked Sendable {
    private let lock = NSLock()
    private var breaks = SpliceBreaks()
    private var told: Set<String> = []

    public init() {}

    /// Records `command`, read in order with the video whose newest frame had running time
    /// `anchor.runningTime` and arrived at `anchor.at`. Returns a problem to log, the first time
    /// a problem of that kind shows up on this channel; nil otherwise.
    func record(_ command: SpliceCommand, anchor: (runningTime: ClockTime, at: Date)?) -> String? {
        switch command {
        case .empty:
            return nil
        case .malformed:
            return firstTime("a malformed SCTE-35 splice section was ignored")
        case .unsupported(let what):
            return firstTime("SCTE-35 \(what) cues are not read (only splice_insert, and time_signal with segmentation descriptors); ignored")
        case .timeSignal(let signal):
            guard let anchor else { return firstTime("an SCTE-35 cue came before any video; ignored") }
            let time = signal.runningTime.map { SpliceBreaks.wallTime(of: $0, anchor: anchor) } ?? anchor.at
            // Other segmentation types (programmes, chapters, ads within a break) make no break.
            lock.withLock { for segmentation in signal.segmentations { breaks.apply(segmentation, at: time) } }
            return nil
        case .insert(let insert):
            guard let anchor else { return firstTime("an SCTE-35 cue came before any video; ignored") }
            let time = insert.runningTime.map { SpliceBreaks.wallTime(of: $0, anchor: anchor) } ?? anchor.at
            lock.withLock { breaks.apply(insert, at: time) }
            return nil
        }
    }

    /// Records that the ingest's guard turned sections away; returns a problem to log the first time.
    func record(_ rejection: SpliceSectionRejection) -> String? {
        switch rejection {
        case .malformed: firstTime("a malformed SCTE-35 splice section was dropped before the demuxer")
        case .unaligned: firstTime("SCTE-35 cues are off: the stream does not come in whole 188-byte packets")
        }
    }

    /// The breaks as time ranges (one still open runs to `liveEdge`), in start order.
    public func intervals(until liveEdge: Date) -> [DateInterval] {
        lock.withLock { breaks.intervals(until: liveEdge) }
    }

    /// Forgets the breaks that ended before `limit` (they left the timeshift buffer).
    public func forget(before limit: Date) {
        lock.withLock { breaks.forget(before: limit) }
    }

    private func firstTime(_ problem: String) -> String? {
        lock.withLock { told.insert(problem).inserted } ? problem : nil
    }
}
