import Foundation
import NIOCore

/// Cuts one served channel's transport stream into HLS media segments at keyframes: a segment
/// starts with the PAT and PMT and a keyframe, and ends at the first keyframe at least
/// `targetDuration` after its start (so about one GOP, or 2 s, whichever is longer). The newest
/// `window` segments are kept and listed in a live playlist (sliding window, no end).
///
/// A `TransportStreamSubscriber`: fed by the fanout (its lock held), read by requests (any
/// thread). Durations come from the keyframes' PTS, so the cached GOP that starts the first
/// segment counts its real length.
///
/// A segment is bounded: a source that sends no keyframe (or keyframes minutes apart) has its
/// segment cut at `maxBytes` or `maxDuration`, whichever comes first; the next segment starts
/// with the newest PAT and PMT but no keyframe (a player shows the picture from the next
/// keyframe), and `onCut` says so.
final class HLSSegmenter: TransportStreamSubscriber, @unchecked Sendable {
    struct Segment: Sendable {
        var sequence: Int
        var duration: Double
        var data: ByteBuffer
    }

    let targetDuration: Double
    let window: Int
    /// The most one segment holds, in bytes and in time, when no keyframe ends it.
    let maxBytes: Int
    let maxDuration: Duration
    /// Called (outside the lock) when a segment was cut without a keyframe: its bytes and seconds.
    var onCut: (@Sendable (_ bytes: Int, _ seconds: Double) -> Void)?
    private let lock = NSLock()
    private var segments: [Segment] = []
    private var nextSequence = 0
    private var current: (chunks: [ByteBuffer], pts: UInt64?, started: ContinuousClock.Instant, bytes: Int)?
    /// The newest PAT and PMT, to start a segment cut without a keyframe.
    private var tables: ByteBuffer?
    private var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter: UInt64 = 0
    private var lastRead = ContinuousClock.now
    private var released = false
    private var playlistReads = 0
    private var segmentReads: [Int: Int] = [:]

    /// `firstSequence`: the first segment's number. A segmenter made later for the same channel
    /// must not reuse an earlier one's numbers (a cache in front, such as nginx, keeps segments
    /// by URL): `HLSServer` starts each at the Unix time in seconds, which an earlier segmenter of
    /// 2 s segments never reaches.
    init(targetDuration: Double = 2, window: Int = 6, firstSequence: Int = 0,
         maxBytes: Int = HLSServer.defaultSegmentBytes, maxDuration: Duration = HLSServer.defaultSegmentDuration) {
        self.targetDuration = targetDuration
        self.window = window
        self.nextSequence = firstSequence
        self.maxBytes = maxBytes
        self.maxDuration = maxDuration
    }

    func receive(_ chunk: ByteBuffer, keyframe: TransportStreamKeyframe?) {
        lock.lock()
        var ready: [CheckedContinuation<Void, Never>] = []
        var cut: (bytes: Int, seconds: Double)?
        if let keyframe {
            tables = keyframe.tables
            if let open = current {
                let duration = Self.seconds(from: open.pts, to: keyframe.pts) ?? (ContinuousClock.now - open.started).seconds
                if duration >= targetDuration {
                    close(open.chunks, duration: duration)
                    ready = Array(waiters.values)
                    waiters = [:]
                    current = ([keyframe.tables, chunk], keyframe.pts, .now, keyframe.tables.readableBytes + chunk.readableBytes)
                } else {
                    append(chunk)
                }
            } else {
                current = ([keyframe.tables, chunk], keyframe.pts, .now, keyframe.tables.readableBytes + chunk.readableBytes)
            }
        } else if current != nil {
            append(chunk)
        }
        // No keyframe in time: cut here rather than grow without bound.
        if let open = current, open.bytes >= maxBytes || ContinuousClock.now - open.started >= maxDuration {
            let seconds = (ContinuousClock.now - open.started).seconds
            close(open.chunks, duration: seconds)
            ready += waiters.values
            waiters = [:]
            current = (tables.map { [$0] } ?? [], nil, .now, tables?.readableBytes ?? 0)
            cut = (open.bytes, seconds)
        }
        let report = onCut
        lock.unlock()
        for waiter in ready { waiter.resume() }
        if let cut { report?(cut.bytes, cut.seconds) }
    }

    /// Adds `chunk` to the open segment (the lock held). The count stays below `maxBytes` plus
    /// one chunk, far from overflowing.
    private func append(_ chunk: ByteBuffer) {
        current?.chunks.append(chunk)
        current?.bytes += chunk.readableBytes
    }

    private func close(_ chunks: [ByteBuffer], duration: Double) {
        var data = ByteBuffer()
        data.reserveCapacity(chunks.reduce(0) { $0 + $1.readableBytes })
        for var c in chunks { data.writeBuffer(&c) }
        segments.append(Segment(sequence: nextSequence, duration: duration, data: data))
        nextSequence += 1
        if segments.count > window { segments.removeFirst(segments.count - window) }
    }

    /// Seconds between two 90 kHz times (33-bit, wrapping); nil when either is missing or the
    /// step is not plausible (a discontinuity).
    static func seconds(from a: UInt64?, to b: UInt64?) -> Double? {
        guard let a, let b else { return nil }
        let step = (b &- a) & ((1 << 33) - 1)
        let seconds = Double(step) / 90_000
        return seconds < 60 ? seconds : nil
    }

    /// Waits until at least one segment is complete (a cold channel: about one segment's time),
    /// or the waiting task is cancelled, or the segmenter is released.
    func waitForFirstSegment() async {
        let id: UInt64 = lock.withLock {
            nextWaiter += 1
            return nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                lock.lock()
                if segments.isEmpty && !Task.isCancelled && !released {
                    waiters[id] = continuation
                    lock.unlock()
                } else {
                    lock.unlock()
                    continuation.resume()
                }
            }
        } onCancel: {
            lock.withLock { waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Wakes anyone waiting; the segmenter is going away.
    func release() {
        let waiting = lock.withLock {
            released = true
            let w = waiters
            waiters = [:]
            return w
        }
        for w in waiting.values { w.resume() }
    }

    var isEmpty: Bool { lock.withLock { segments.isEmpty } }

    /// When a client last asked for the playlist or a segment.
    var lastAccess: ContinuousClock.Instant { lock.withLock { lastRead } }

    /// The live playlist, segment URIs relative to it.
    func playlist() -> String {
        lock.withLock {
            lastRead = .now
            playlistReads += 1
            let target = Int((segments.map(\.duration).max() ?? targetDuration).rounded(.up))
            var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:\(max(1, target))\n#EXT-X-MEDIA-SEQUENCE:\(segments.first?.sequence ?? 0)\n"
            for s in segments {
                text += "#EXTINF:\(String(format: "%.3f", s.duration)),\n\(s.sequence).ts\n"
            }
            return text
        }
    }

    /// The segment `sequence`, nil when it slid out of the window or does not exist yet.
    func segment(_ sequence: Int) -> ByteBuffer? {
        lock.withLock {
            lastRead = .now
            segmentReads[sequence, default: 0] += 1
            return segments.first { $0.sequence == sequence }?.data
        }
    }

    /// How many times the playlist and each segment number were asked for (what a cache in
    /// front lets through).
    var requests: (playlist: Int, segments: [Int: Int]) { lock.withLock { (playlistReads, segmentReads) } }
}

extension Duration {
    fileprivate var seconds: Double {
        let c = components
        return Double(c.seconds) + Double(c.attoseconds) / 1e18
    }
}
