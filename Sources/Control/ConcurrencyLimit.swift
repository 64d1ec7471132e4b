import Foundation

/// Counts what is under way (open event streams, flips in flight) and refuses more than `limit`.
///
/// ``admit()`` hands out a ``Ticket`` or nil when full. A ticket gives its place back once: on
/// ``Ticket/release()`` or, if nobody called it, when the ticket is freed (a response body that was
/// never written still frees its place).
final class ConcurrencyLimit: @unchecked Sendable {
    // Sendable: `inUse` is only touched under `lock`.
    let limit: Int
    private let lock = NSLock()
    private var inUse = 0

    init(limit: Int) {
        self.limit = limit
    }

    /// How many places are taken now.
    var count: Int { lock.withLock { inUse } }

    /// A place, or nil when `limit` are taken.
    func admit() -> Ticket? {
        let admitted = lock.withLock {
            guard inUse < limit else { return false }
            inUse += 1
            return true
        }
        return admitted ? Ticket(limit: self) : nil
    }

    fileprivate func giveBack() {
        lock.withLock { inUse -= 1 }
    }

    /// One place; given back exactly once.
    final class Ticket: @unchecked Sendable {
        // Sendable: `released` is only touched under `lock`.
        private let limit: ConcurrencyLimit
        private let lock = NSLock()
        private var released = false

        fileprivate init(limit: ConcurrencyLimit) {
            self.limit = limit
        }

        func release() {
            let first = lock.withLock {
                defer { released = true }
                return !released
            }
            if first { limit.giveBack() }
        }

        deinit { release() }
    }
}
