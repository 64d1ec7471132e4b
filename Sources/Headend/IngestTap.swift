import Foundation
import GStreamer
import Lineup

/// One consumer of a channel's ingest other than a decoder (a timeshift buffer, a head-end
/// client, a clip job). Its own id space: never mixed with feed ids.
public struct TapID: Hashable, Sendable, CustomStringConvertible {
    public let value: UInt64
    public var description: String { "tap-\(value)" }
}

/// Why a tap stopped delivering.
public enum TapEnd: Error, Sendable, Equatable, CustomStringConvertible {
    /// The consumer fell more than `maxQueuedBytes` behind the ingest and was dropped: the ingest
    /// never waits for a consumer.
    case consumerTooSlow(queuedBytes: Int)
    /// The headend shut down.
    case headendStopped

    public var description: String {
        switch self {
        case .consumerTooSlow(let bytes): "the consumer fell \(bytes / 1024) KiB behind the channel and was dropped"
        case .headendStopped: "the head-end stopped"
        }
    }
}

/// A consumer's view of one channel's compressed ingest: first the cached GOP from its keyframe
/// (so every consumer starts at once, with `videoCaps`/`audioCaps` to start at it), then every
/// entry live, in arrival order, with nothing lost or doubled between the two.
///
/// The ingest pushes into a queue bounded by `maxQueuedBytes`; a consumer that lets it grow past
/// that is dropped (the sequence throws `TapEnd.consumerTooSlow`), never waited for. While open,
/// the tap keeps its channel running (the warm plan never stops a tapped channel). Iterate it
/// once; `close()` (or the iterating task being cancelled, or the tap being released) ends it.
public final class IngestTap: AsyncSequence, Sendable {
    public typealias Element = GOPCache.Entry

    public let id: TapID
    public let channel: Channel
    /// The caps to start at the first entry (nil when the channel has not delivered that track yet).
    public let videoCaps: Caps?
    public let audioCaps: Caps?
    public let maxQueuedBytes: Int
    /// A queue of 32 MB holds more than 10 s of a 20 Mb/s channel.
    public static let defaultMaxQueuedBytes = 32 << 20

    let queue: TapQueue
    private let release: @Sendable (TapID) -> Void

    init(id: TapID, channel: Channel, start: GOPCache.Start,
         queue: TapQueue, release: @escaping @Sendable (TapID) -> Void) {
        self.id = id
        self.channel = channel
        self.videoCaps = start.video
        self.audioCaps = start.audio
        self.maxQueuedBytes = queue.maxBytes
        self.queue = queue
        self.release = release
    }

    deinit { close() }

    /// Ends the tap: the channel is no longer held running for it. Idempotent, any thread.
    public func close() {
        if queue.finish(nil) { release(id) }
    }

    /// Bytes waiting for the consumer.
    public var queuedBytes: Int { queue.queuedBytes }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let queue: TapQueue
        public mutating func next() async throws -> GOPCache.Entry? { try await queue.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(queue: queue) }
}

/// The bounded queue between the ingest (producer: a streaming thread, under the cache lock) and
/// one consumer task. The producer never blocks: past `maxBytes` the queue ends itself.
final class TapQueue: @unchecked Sendable {
    let maxBytes: Int
    private let lock = NSLock()
    private var entries: [GOPCache.Entry] = []
    private var head = 0
    private var bytes = 0
    private var ended: TapEnd??
    private var waiter: CheckedContinuation<GOPCache.Entry?, any Error>?
    /// Called once, off the lock, when the producer drops the consumer.
    private let onOverflow: @Sendable () -> Void

    init(maxBytes: Int, onOverflow: @escaping @Sendable () -> Void) {
        self.maxBytes = maxBytes
        self.onOverflow = onOverflow
    }

    /// Puts the consumer's start in front of what was pushed since the attach (before the
    /// consumer reads anything). The start alone may exceed `maxBytes`.
    func prepend(_ start: [GOPCache.Entry]) {
        lock.withLock {
            guard ended == nil else { return }
            entries.insert(contentsOf: start, at: head)
            bytes += start.reduce(0) { $0 + $1.buffer.size }
        }
    }

    var queuedBytes: Int { lock.withLock { bytes } }

    /// Producer side. Never blocks; may end the queue (too slow).
    func push(_ entry: GOPCache.Entry) {
        lock.lock()
        guard ended == nil else { lock.unlock(); return }
        if let waiter {
            self.waiter = nil
            lock.unlock()
            waiter.resume(returning: entry)
            return
        }
        entries.append(entry)
        bytes += entry.buffer.size
        guard bytes > maxBytes else { lock.unlock(); return }
        let queued = bytes
        lock.unlock()
        if finish(.consumerTooSlow(queuedBytes: queued)) { onOverflow() }
    }

    /// Ends the queue: `nil` for a normal close (the consumer sees the end), else an error the
    /// consumer sees after nothing more. Returns true the first time only.
    @discardableResult
    func finish(_ reason: TapEnd?) -> Bool {
        lock.lock()
        guard ended == nil else { lock.unlock(); return false }
        ended = .some(reason)
        entries = []
        head = 0
        bytes = 0
        let waiter = self.waiter
        self.waiter = nil
        lock.unlock()
        if let waiter {
            if let reason { waiter.resume(throwing: reason) } else { waiter.resume(returning: nil) }
        }
        return true
    }

    /// Consumer side: the next entry, nil at a normal end, or the reason the tap was dropped.
    func next() async throws -> GOPCache.Entry? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<GOPCache.Entry?, any Error>) in
                lock.lock()
                if head < entries.count {
                    let entry = entries[head]
                    head += 1
                    bytes -= entry.buffer.size
                    if head > 256 && head * 2 > entries.count {
                        entries.removeFirst(head)
                        head = 0
                    }
                    lock.unlock()
                    continuation.resume(returning: entry)
                } else if let ended {
                    lock.unlock()
                    if let reason = ended { continuation.resume(throwing: reason) } else { continuation.resume(returning: nil) }
                } else if Task.isCancelled {
                    lock.unlock()
                    continuation.resume(returning: nil)
                } else {
                    waiter = continuation
                    lock.unlock()
                }
            }
        } onCancel: {
            let waiter = lock.withLock {
                let w = self.waiter
                self.waiter = nil
                return w
            }
            waiter?.resume(returning: nil)
        }
    }
}
