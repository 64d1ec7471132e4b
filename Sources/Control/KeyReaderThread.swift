import Foundation

/// What a key reader's thread shares with its owner: the stop flag the thread polls, under a
/// lock that subclasses use for their own fields too. Thread-safe.
class KeyReaderState: @unchecked Sendable {
    let lock = NSLock()
    private var stopped = false

    var isStopped: Bool { lock.withLock { stopped } }
    func stop() { lock.withLock { stopped = true } }
}

/// Key presses read by a blocking loop on a thread of its own, never on the cooperative pool
/// (terminal, evdev devices, lircd's socket).
enum KeyReaderThread {
    /// Makes the key stream and runs `read` once, on a new thread named `name`, with the stream's
    /// continuation. When the consumer stops iterating, `state` is stopped, so the loop ends at
    /// its next check of `state.isStopped`; the loop finishes the stream when it ends.
    static func start(name: String, state: KeyReaderState,
                      _ read: @escaping @Sendable (AsyncStream<Key>.Continuation) -> Void) -> AsyncStream<Key> {
        let (keys, sink) = AsyncStream.makeStream(of: Key.self)
        sink.onTermination = { _ in state.stop() }
        let thread = Thread { read(sink) }
        thread.name = name
        thread.start()
        return keys
    }
}
