import Foundation

/// Fans events out to every subscriber. Thread-safe; slow subscribers keep the newest 256.
public final class EventHub<Event: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var subscribers: [UUID: AsyncStream<Event>.Continuation] = [:]

    public init() {}

    public func subscribe() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        lock.withLock { subscribers[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.lock.withLock { self?.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    public func publish(_ event: Event) {
        let targets = lock.withLock { Array(subscribers.values) }
        for c in targets { c.yield(event) }
    }

    public func finish() {
        let targets = lock.withLock { () -> [AsyncStream<Event>.Continuation] in
            let t = Array(subscribers.values)
            subscribers = [:]
            return t
        }
        for c in targets { c.finish() }
    }
}
