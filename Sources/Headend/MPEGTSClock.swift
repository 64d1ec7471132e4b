import Foundation
import GStreamer
import MediaFormats

/// Where the MPEG-TS clock (the 90 kHz PTS in the segments of an HLS channel) falls in the
/// ingest's running time, which is what a WebVTT `X-TIMESTAMP-MAP` needs.
///
/// `hlsdemux` hands `tsdemux` each fragment with the playlist's time, and `tsdemux` puts the
/// first PCR there: the PTS in the stream are not the running times of the frames. So the PTS
/// of each video PES is read from the bytes entering the demuxer, in order, and paired with the
/// running time of the video frame that leaves the ingest next (one PES is one frame); the
/// newest pair maps. Thread-safe: bytes on the demuxer's thread, frames on the appsink's.
public final class MPEGTSClock: @unchecked Sendable {
    private let lock = NSLock()
    /// Video PTS read and not yet paired, per demuxer pad (an adaptive demuxer's variants).
    private var pending: [Int: [Int64?]] = [:]
    /// Unfinished TS packet bytes at the end of the last buffer, per pad.
    private var carry: [Int: [UInt8]] = [:]
    private var pair: (pts: Int64, runningTime: ClockTime)?
    private var activeValue = false
    private var jumpCount = 0

    public init() {}

    /// Whether timestamps are read (off until a channel has WebVTT renditions: reading costs a
    /// pass over every byte).
    var isActive: Bool {
        get { lock.withLock { activeValue } }
        set { lock.withLock { activeValue = newValue } }
    }

    /// Reads the video PES timestamps of what enters `parsebin` from the demuxer's pad `owner`.
    func watch(_ parsebin: Element, owner: Int) {
        parsebin.staticPad("sink")?.onBuffer { [self] buffer in
            guard isActive else { return }
            _ = buffer.withBytes { read($0, owner: owner) }
        }
    }

    /// A video frame of pad `owner` reached the ingest's sink at `runningTime`.
    func videoFrame(owner: Int, runningTime: ClockTime) {
        lock.withLock {
            guard var queue = pending[owner], !queue.isEmpty else { return }
            let pts = queue.removeFirst()
            pending[owner] = queue
            guard let pts, runningTime.isValid else { return }
            // The running time of PTS 0 by this pair and by the one before: a jump in the
            // stream's timestamps (a discontinuity) moves it. PTS are 33 bits and running times
            // come from GStreamer: wrapping arithmetic, and a jump judged on the magnitude (an
            // absurd running time is a jump, never a trap).
            func zero(_ p: (pts: Int64, runningTime: ClockTime)) -> Int64 { Int64(bitPattern: UInt64(p.runningTime)) &- p.pts &* 100_000 / 9 }
            if let old = pair {
                let (shift, overflow) = zero((pts, runningTime)).subtractingReportingOverflow(zero(old))
                if overflow || shift.magnitude > UInt64(ClockTime.second) { jumpCount += 1 }
            }
            pair = (pts, runningTime)
        }
    }

    /// The running time of the MPEG-TS time `pts` (90 kHz; wraps at 2^33 like the PTS), nil
    /// before the first video frame was paired or when it falls before the running time's zero
    /// or past 2^63. Any `pts` is safe (a hostile timestamp map gives any): it is taken modulo
    /// 2^33, the distance to the pair is at most 2^32 ticks, and the sum is checked.
    public func runningTime(ofMPEG pts: Int64) -> ClockTime? {
        guard let pair = lock.withLock({ pair }) else { return nil }
        let wrap: Int64 = 1 << 33
        // Wrapping subtraction keeps the difference right modulo 2^64, so modulo 2^33 too.
        var d = (pts &- pair.pts) % wrap
        if d >= wrap / 2 { d -= wrap } else if d < -wrap / 2 { d += wrap }
        // |d| <= 2^32: d * 10^9 fits in 63 bits.
        guard let base = Int64(exactly: UInt64(pair.runningTime)) else { return nil }
        let (t, overflow) = base.addingReportingOverflow(d * 1_000_000_000 / 90_000)
        return overflow || t < 0 ? nil : ClockTime(t)
    }

    /// How many times the mapping moved (a discontinuity in the video's timestamps, a wrap).
    public var jumps: Int { lock.withLock { jumpCount } }

    /// The running time of the newest video frame paired; nil before the first.
    public var newestRunningTime: ClockTime? { lock.withLock { pair?.runningTime } }

    /// Forgets the pairs (the ingest restarts).
    func reset() {
        lock.withLock { pending = [:]; carry = [:]; pair = nil; activeValue = false }
    }

    /// Unpaired timestamps kept per pad at most (a pad whose video is not ingested).
    private static let maxPending = 600

    /// Reads the video PES headers in `bytes`, whole packets (the rest carried to the next).
    func read(_ bytes: UnsafeRawBufferPointer, owner: Int) {
        lock.withLock {
            var data = carry.removeValue(forKey: owner) ?? []
            data.append(contentsOf: bytes)
            let (timestamps, rest) = VideoPES.timestamps(in: data)
            var queue = (pending[owner] ?? []) + timestamps
            if queue.count > Self.maxPending { queue.removeFirst(queue.count - Self.maxPending) }
            pending[owner] = queue
            carry[owner] = Array(data[rest...])
        }
    }
}
