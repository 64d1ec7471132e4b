import Foundation
import NIOCore

/// Receives a served channel's transport stream from a `TransportStreamFanout`.
///
/// Called with the fanout's lock held, on the muxer's streaming thread: push and return, never
/// block or wait.
protocol TransportStreamSubscriber: AnyObject, Sendable {
    /// `chunk` follows the previous one. `keyframe` is set when `chunk` starts a video keyframe.
    func receive(_ chunk: ByteBuffer, keyframe: TransportStreamKeyframe?)
}

/// What a subscriber needs where a chunk starts a keyframe: the newest PAT and PMT packets (a
/// player joining here needs them first) and the keyframe's presentation time (90 kHz).
struct TransportStreamKeyframe: Sendable {
    var tables: ByteBuffer
    var pts: UInt64?
}

/// One served channel's muxed transport stream, handed to every subscriber (HTTP clients, the
/// HLS segmenter, a multicast sender): the stream since the last keyframe is kept, so a new
/// subscriber starts at that keyframe at once, then follows live with nothing lost or doubled
/// between the two (both happen under one lock). Chunks are shared, not copied, per subscriber.
///
/// Thread-safe: `append` comes from the muxer's streaming thread.
final class TransportStreamFanout: @unchecked Sendable {
    /// A GOP of transport stream larger than this is not kept (subscribers then join at the next keyframe).
    let maxCachedBytes: Int
    private let lock = NSLock()
    private var scanner = TransportStreamScanner()
    /// The newest PAT+PMT and the stream from the last keyframe on (empty before the first keyframe).
    private var cachedKeyframe: TransportStreamKeyframe?
    private var cached: [ByteBuffer] = []
    private var cachedBytes = 0
    private var subscribers: [ObjectIdentifier: any TransportStreamSubscriber] = [:]
    private var keyframes = 0
    /// Packets of the frame being gathered, and its keyframe when it is one.
    private var pending = ByteBuffer()
    private var pendingKeyframe: TransportStreamKeyframe?
    private var lastChunk: ContinuousClock.Instant?

    init(maxCachedBytes: Int = 32 << 20) {
        self.maxCachedBytes = maxCachedBytes
    }

    /// Keyframes seen so far.
    var keyframeCount: Int { lock.withLock { keyframes } }

    /// When the muxer last delivered anything.
    var lastDelivery: ContinuousClock.Instant? { lock.withLock { lastChunk } }

    /// True when a keyframe is cached (a subscriber starts at once).
    var hasKeyframe: Bool { lock.withLock { cachedKeyframe != nil } }

    var subscriberCount: Int { lock.withLock { subscribers.count } }

    /// Adds muxed packets (whole 188-byte packets). They are gathered into one chunk per video
    /// frame (a chunk ends where the next frame starts, so a keyframe always starts a chunk), or
    /// per `maxChunkBytes`: subscribers get tens of chunks a second, not a call per packet.
    func append(_ bytes: UnsafeRawBufferPointer) {
        lock.lock()
        defer { lock.unlock() }
        lastChunk = .now
        let starts = scanner.scan(bytes)
        var from = 0
        for start in starts {
            pending.writeBytes(UnsafeRawBufferPointer(rebasing: bytes[from..<start.offset]))
            from = start.offset
            flushPending()
            if start.isKeyframe && !scanner.tables.isEmpty {
                pendingKeyframe = TransportStreamKeyframe(tables: ByteBuffer(bytes: scanner.tables), pts: start.pts)
            }
        }
        pending.writeBytes(UnsafeRawBufferPointer(rebasing: bytes[from...]))
        if pending.readableBytes >= Self.maxChunkBytes { flushPending() }
    }

    /// A chunk is handed on at the latest when it holds this much.
    static let maxChunkBytes = 64 << 10

    private func flushPending() {
        guard pending.readableBytes > 0 else { return }
        let chunk = pending
        pending = ByteBuffer()
        pending.reserveCapacity(16 << 10)
        let keyframe = pendingKeyframe
        pendingKeyframe = nil
        deliver(chunk, keyframe: keyframe)
    }

    private func deliver(_ chunk: ByteBuffer, keyframe: TransportStreamKeyframe?) {
        if let keyframe {
            keyframes += 1
            cachedKeyframe = keyframe
            cached = [chunk]
            cachedBytes = keyframe.tables.readableBytes + chunk.readableBytes
        } else if cachedKeyframe != nil {
            cached.append(chunk)
            cachedBytes += chunk.readableBytes
            if cachedBytes > maxCachedBytes {
                cachedKeyframe = nil
                cached = []
                cachedBytes = 0
            }
        }
        for subscriber in subscribers.values { subscriber.receive(chunk, keyframe: keyframe) }
    }

    /// Starts `subscriber` at the cached keyframe (when there is one) and registers it for
    /// everything after, under the lock.
    func subscribe(_ subscriber: any TransportStreamSubscriber) {
        lock.withLock {
            if let keyframe = cachedKeyframe, let first = cached.first {
                subscriber.receive(first, keyframe: keyframe)
                for chunk in cached.dropFirst() { subscriber.receive(chunk, keyframe: nil) }
            }
            subscribers[ObjectIdentifier(subscriber)] = subscriber
        }
    }

    func unsubscribe(_ subscriber: any TransportStreamSubscriber) {
        _ = lock.withLock { subscribers.removeValue(forKey: ObjectIdentifier(subscriber)) }
    }

    /// Forgets the cached GOP (the muxer was rebuilt: its tables and timeline start anew).
    func resetCache() {
        lock.withLock {
            scanner = TransportStreamScanner()
            pending = ByteBuffer()
            pendingKeyframe = nil
            cachedKeyframe = nil
            cached = []
            cachedBytes = 0
        }
    }
}
