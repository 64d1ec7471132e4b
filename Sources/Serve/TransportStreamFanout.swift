import Foundation
import NIOCore

/// Receives a served channel's transport stream from a `TransportStreamFanout`.
///
/// Called with the fanout's lock held, on the muxer's streaming thread: push and return, never
/// block or wait.
protocol TransportStreamSubscriber: AnyObject, Sendable {
    /// `chunk` follows the previous one. `keyframeTables` is set when `chunk` starts a video
    /// keyframe: the newest PAT and PMT packets, which a player joining here needs first.
    func receive(_ chunk: ByteBuffer, keyframeTables: ByteBuffer?)
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
    private var cachedTables: ByteBuffer?
    private var cached: [ByteBuffer] = []
    private var cachedBytes = 0
    private var subscribers: [ObjectIdentifier: any TransportStreamSubscriber] = [:]
    private var keyframes = 0
    private var lastChunk: ContinuousClock.Instant?

    init(maxCachedBytes: Int = 32 << 20) {
        self.maxCachedBytes = maxCachedBytes
    }

    /// Keyframes seen so far.
    var keyframeCount: Int { lock.withLock { keyframes } }

    /// When the muxer last delivered anything.
    var lastDelivery: ContinuousClock.Instant? { lock.withLock { lastChunk } }

    /// True when a keyframe is cached (a subscriber starts at once).
    var hasKeyframe: Bool { lock.withLock { cachedTables != nil } }

    var subscriberCount: Int { lock.withLock { subscribers.count } }

    /// Adds muxed packets (whole 188-byte packets), splitting them where a keyframe starts.
    func append(_ bytes: UnsafeRawBufferPointer) {
        lock.lock()
        defer { lock.unlock() }
        lastChunk = .now
        let starts = scanner.scan(bytes)
        let haveTables = !scanner.tables.isEmpty
        var from = 0
        func emit(upTo end: Int) {
            guard end > from else { return }
            let chunk = ByteBuffer(bytes: UnsafeRawBufferPointer(rebasing: bytes[from..<end]))
            deliver(chunk, keyframe: haveTables && starts.contains(from))
            from = end
        }
        for start in starts { emit(upTo: start) }
        emit(upTo: bytes.count)
    }

    private func deliver(_ chunk: ByteBuffer, keyframe: Bool) {
        var tables: ByteBuffer?
        if keyframe {
            keyframes += 1
            let t = ByteBuffer(bytes: scanner.tables)
            tables = t
            cachedTables = t
            cached = [chunk]
            cachedBytes = t.readableBytes + chunk.readableBytes
        } else if cachedTables != nil {
            cached.append(chunk)
            cachedBytes += chunk.readableBytes
            if cachedBytes > maxCachedBytes {
                cachedTables = nil
                cached = []
                cachedBytes = 0
            }
        }
        for subscriber in subscribers.values { subscriber.receive(chunk, keyframeTables: tables) }
    }

    /// Starts `subscriber` at the cached keyframe (when there is one) and registers it for
    /// everything after, under the lock.
    func subscribe(_ subscriber: any TransportStreamSubscriber) {
        lock.withLock {
            if let tables = cachedTables, let first = cached.first {
                subscriber.receive(first, keyframeTables: tables)
                for chunk in cached.dropFirst() { subscriber.receive(chunk, keyframeTables: nil) }
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
            cachedTables = nil
            cached = []
            cachedBytes = 0
        }
    }
}
