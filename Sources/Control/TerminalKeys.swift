import Foundation

/// Key presses from a terminal: puts it in key-by-key mode (no line buffering, no echo; Ctrl-C still
/// raises SIGINT) and reads it on a dedicated thread, never on the cooperative pool.
///
/// Create it only for a terminal: ``init(fileDescriptor:)`` returns nil otherwise. Call ``restore()``
/// before the process exits (it is idempotent and safe from any thread, also from a shutdown path);
/// deinit restores too. ``keys`` has a single consumer and ends on end of input, on ``restore()``, or
/// when its consumer stops iterating.
public final class TerminalKeys: Sendable {
    /// The keys in the order they were typed.
    public let keys: AsyncStream<Key>

    private let fileDescriptor: Int32
    private let original: Syscalls.TerminalMode
    private let state: LockedState

    /// How long a lone Escape waits for the rest of a sequence.
    static let escapeWait: Int32 = 40
    /// How often the reading thread checks whether it should stop.
    static let stopCheck: Int32 = 200

    /// Nil when `fileDescriptor` is not a terminal or its mode cannot be changed.
    public init?(fileDescriptor: Int32 = 0) {
        guard Syscalls.isTerminal(fileDescriptor), let original = Syscalls.terminalMode(fileDescriptor),
              Syscalls.setTerminalMode(fileDescriptor, Syscalls.keyByKey(original)) else { return nil }
        self.fileDescriptor = fileDescriptor
        self.original = original
        let state = LockedState()
        self.state = state
        keys = KeyReaderThread.start(name: "flipbox-terminal-keys", state: state) { sink in
            Self.readLoop(fileDescriptor: fileDescriptor, state: state, sink: sink)
        }
    }

    deinit { restore() }

    /// Stops reading and puts the terminal back as it was. Only the first call does anything.
    public func restore() {
        guard state.markRestored() else { return }
        state.stop()
        Syscalls.setTerminalMode(fileDescriptor, original)
    }

    private static func readLoop(fileDescriptor: Int32, state: LockedState, sink: AsyncStream<Key>.Continuation) {
        var decoder = KeyDecoder()
        while !state.isStopped {
            let wait = decoder.hasPending ? escapeWait : stopCheck
            switch Syscalls.readInput(fileDescriptor, capacity: 64, timeoutMilliseconds: wait) {
            case .bytes(let bytes):
                for key in decoder.decode(bytes) { sink.yield(key) }
            case .timeout:
                for key in decoder.flush() { sink.yield(key) }
            case .endOfFile, .failed:
                sink.finish()
                return
            }
        }
        sink.finish()
    }

    /// The flags shared by the reading thread and its owner.
    private final class LockedState: KeyReaderState, @unchecked Sendable {
        private var restored = false

        /// True for the first caller only.
        func markRestored() -> Bool {
            lock.withLock {
                defer { restored = true }
                return !restored
            }
        }
    }
}
