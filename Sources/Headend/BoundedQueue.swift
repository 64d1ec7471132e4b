import Foundation

/// A queue between one producer that must never wait (an ingest streaming thread, a muxer's
/// output) and one consumer task, bounded in bytes: past `maxBytes` the queue ends itself with
/// `TapEnd.consumerTooSlow`, and the producer's next pushes are dropped.
///
/// Thread-safe. `push` never blocks; `next` suspends until an element, the end, or the
/// consumer's task being cancelled (which reads as a normal end).
public final class BoundedQueue<Element: Sendable>: @unchecked Sendable {
    public let maxBytes: Int
    private let cost: @Sendable (Element) -> Int
    private let lock = NSLock()
    private var elements: [Element] = []
    private var head = 0
    private var bytes = 0
    private var ended: TapEnd??
    private var waiter: CheckedContinuation<Element?, any Error>?
    /// Called once, off the lock, when the producer drops the consumer.
    private let onOverflow: @Sendable () -> Void

    /// `cost`: the bytes an element counts for. `onOverflow` runs once, on the producer's thread,
    /// when the queue ends itself.
    public init(maxBytes: Int, cost: @escaping @Sendable (Element) -> Int, onOverflow: @escaping @Sendable () -> Void = {}) {
        self.maxBytes = maxBytes
        self.cost = cost
        self.onOverflow = onOverflow
    }

    /// Puts `start` in front of what was pushed so far (before the consumer reads anything).
    /// The start alone may exceed `maxBytes`.
    public func prepend(_ start: [Element]) {
        lock.withLock {
            guard ended == nil else { return }
            elements.insert(contentsOf: start, at: head)
            bytes += start.reduce(0) { $0 + cost($1) }
        }
    }

    public var queuedBytes: Int { lock.withLock { bytes } }

    /// True once the queue ended (closed, dropped or stopped).
    public var isEnded: Bool { lock.withLock { ended != nil } }

    /// Producer side. Never blocks; may end the queue (too slow).
    public func push(_ element: Element) {
        lock.lock()
        guard ended == nil else { lock.unlock(); return }
        if let waiter {
            self.waiter = nil
            lock.unlock()
            waiter.resume(returning: element)
            return
        }
        elements.append(element)
        bytes += cost(element)
        guard bytes > maxBytes else { lock.unlock(); return }
        let queued = bytes
        lock.unlock()
        if finish(.consumerTooSlow(queuedBytes: queued)) { onOverflow() }
    }

    /// Ends the queue: `nil` for a normal close (the consumer sees the end), else an error the
    /// consumer sees after nothing more. Returns true the first time only.
    @discardableResult
    public func finish(_ reason: TapEnd?) -> Bool {
        lock.lock()
        guard ended == nil else { lock.unlock(); return false }
        ended = .some(reason)
        elements = []
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

    /// Consumer side: the next element, nil at a normal end, or the reason the queue ended.
    public func next() async throws -> Element? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Element?, any Error>) in
                lock.lock()
                if head < elements.count {
                    let element = elements[head]
                    head += 1
                    bytes -= cost(element)
                    if head > 256 && head * 2 > elements.count {
                        elements.removeFirst(head)
                        head = 0
                    }
                    lock.unlock()
                    continuation.resume(returning: element)
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
