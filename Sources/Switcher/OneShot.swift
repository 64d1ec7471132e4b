import Foundation

/// A value set exactly once, from any thread, and awaited by any number of tasks.
/// The first `resolve` wins; later ones return false and change nothing.
public final class OneShot<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value?
    private var waiters: [CheckedContinuation<Value, Never>] = []

    public init() {}

    @discardableResult
    public func resolve(_ v: Value) -> Bool {
        lock.lock()
        guard value == nil else { lock.unlock(); return false }
        value = v
        let w = waiters
        waiters = []
        lock.unlock()
        for c in w { c.resume(returning: v) }
        return true
    }

    public var resolved: Value? { lock.withLock { value } }

    public func wait() async -> Value {
        await withCheckedContinuation { c in
            lock.lock()
            if let value {
                lock.unlock()
                c.resume(returning: value)
            } else {
                waiters.append(c)
                lock.unlock()
            }
        }
    }
}
