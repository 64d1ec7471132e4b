import Foundation
import Lineup
import Logging

/// A TV remote over HDMI-CEC (libcec): its keys, and the TV's power.
///
/// A thread of its own starts libcec, finds the first adapter and opens it as a recording device
/// that becomes the active source (one-touch play: the TV switches to the box and turns on). With
/// no adapter it says so once and ends its streams; other inputs go on. Keys (presses only, mapped
/// by ``CECKeyMap``) go to ``keys``, into the same key path as every remote; ``power`` says when the
/// TV went to standby and when it is back (``CECPower``). libcec's callbacks run on its threads
/// and only yield to the streams.
///
/// Each stream has a single consumer; both end on ``stop()``.
public final class CECRemote: Sendable {
    public enum Outcome: Sendable, Equatable {
        /// The adapter on this port is open.
        case opened(port: String)
        /// libcec found no adapter.
        case noAdapter
        /// libcec did not start, or the adapter did not open.
        case failed(String)
    }

    public let keys: AsyncStream<Key>
    public let power: AsyncStream<CECPowerEvent>
    private let state: State

    /// `name`: what the TV shows for the box (at most 12 characters).
    public init(name: String = "Flipbox", logger: Logger) {
        let (keys, keySink) = AsyncStream.makeStream(of: Key.self)
        let (power, powerSink) = AsyncStream.makeStream(of: CECPowerEvent.self)
        self.keys = keys
        self.power = power
        let state = State(keys: keySink, power: powerSink)
        self.state = state
        let thread = Thread { state.connect(name: String(name.prefix(12)), logger: logger) }
        thread.name = "flipbox-cec"
        thread.start()
    }

    deinit { stop() }

    /// Closes the adapter (if open) and ends both streams.
    public func stop() { state.stop() }

    /// What became of the adapter, once known.
    public func outcome() async -> Outcome { await state.outcome() }

    /// Whether libcec finds an adapter, without opening it (for `flipbox doctor`): its port, nil
    /// when there is none; a message when libcec cannot start.
    public static func findAdapter() -> Result<String?, CECError> {
        guard let session = CECSyscalls.start(name: "Flipbox", handlers: .init(key: { _, _ in }, command: { _, _, _ in }, activation: { _ in }, log: { _, _ in })) else {
            return .failure(CECError(.notStarted, "libcec did not start"))
        }
        defer { session.end() }
        let found = CECSyscalls.detect(session)
        if found.count < 0 { return .failure(CECError(.searchFailed, "libcec could not look for adapters")) }
        return .success(found.port)
    }

    private final class State: @unchecked Sendable {
        private let lock = NSLock()
        private let keySink: AsyncStream<Key>.Continuation
        private let powerSink: AsyncStream<CECPowerEvent>.Continuation
        private var session: CECSyscalls.Session?
        private var stopped = false
        private var machine = CECPower()
        private var result: Outcome?
        private var waiters: [CheckedContinuation<Outcome, Never>] = []
        private var loggedErrors = Set<String>()

        init(keys: AsyncStream<Key>.Continuation, power: AsyncStream<CECPowerEvent>.Continuation) {
            keySink = keys
            powerSink = power
        }

        /// On the CEC thread: start, find, open, become the active source. Blocking (libcec waits
        /// for the adapter up to 10 s).
        func connect(name: String, logger: Logger) {
            let handlers = CECSyscalls.Handlers(
                key: { [weak self] code, duration in self?.key(code: code, duration: duration) },
                command: { [weak self] initiator, destination, opcode in self?.command(initiator, destination, opcode) },
                activation: { [weak self] active in self?.activation(active) },
                log: { [weak self] level, text in self?.log(level: level, text, logger: logger) })
            guard let session = CECSyscalls.start(name: name, handlers: handlers) else {
                logger.error("HDMI-CEC: libcec did not start; keys from the other remotes still work")
                return finish(.failed("libcec did not start"))
            }
            let found = CECSyscalls.detect(session)
            guard let port = found.port, found.count > 0 else {
                session.end()
                logger.notice("HDMI-CEC: no adapter found; keys from the other remotes still work")
                return finish(found.count < 0 ? .failed("libcec could not look for adapters") : .noAdapter)
            }
            guard CECSyscalls.open(session, port: port, timeoutMilliseconds: 10_000) else {
                session.end()
                logger.error("HDMI-CEC: the adapter on \(port) did not open (is another program using it?); keys from the other remotes still work")
                return finish(.failed("the adapter on \(port) did not open"))
            }
            // Before the session is published: once it is, `stop()` may end it on another thread.
            let active = CECSyscalls.becomeActiveSource(session)
            let keep = lock.withLock { () -> Bool in
                guard !stopped else { return false }
                self.session = session
                return true
            }
            guard keep else { session.end(); return finish(.failed("stopped")) }
            if !active {
                logger.warning("HDMI-CEC: could not make the box the active source (the TV stays on its input)")
            }
            logger.notice("HDMI-CEC: adapter on \(port) open; the TV's remote drives the box")
            settle(.opened(port: port))
        }

        private func key(code: Int, duration: UInt32) {
            guard duration == 0, let key = CECKeyMap.key(forUserControlCode: code) else { return }
            if let event = lock.withLock({ machine.key() }) { powerSink.yield(event) }
            keySink.yield(key)
        }

        private func command(_ initiator: Int, _ destination: Int, _ opcode: Int) {
            if let event = lock.withLock({ machine.command(initiator: initiator, destination: destination, opcode: opcode) }) {
                powerSink.yield(event)
            }
        }

        private func activation(_ active: Bool) {
            if let event = lock.withLock({ machine.activated(active) }) { powerSink.yield(event) }
        }

        /// libcec's errors, each distinct one once, spoken as the box's.
        private func log(level: Int, _ text: String, logger: Logger) {
            guard level == 1 else { return }
            guard lock.withLock({ loggedErrors.insert(text).inserted }) else { return }
            logger.warning("HDMI-CEC: \(text)")
        }

        private func finish(_ outcome: Outcome) {
            keySink.finish()
            powerSink.finish()
            settle(outcome)
        }

        private func settle(_ outcome: Outcome) {
            let waiting = lock.withLock { () -> [CheckedContinuation<Outcome, Never>] in
                result = outcome
                defer { waiters = [] }
                return waiters
            }
            for waiter in waiting { waiter.resume(returning: outcome) }
        }

        func outcome() async -> Outcome {
            await withCheckedContinuation { continuation in
                let known = lock.withLock { () -> Outcome? in
                    if let result { return result }
                    waiters.append(continuation)
                    return nil
                }
                if let known { continuation.resume(returning: known) }
            }
        }

        func stop() {
            let session = lock.withLock { () -> CECSyscalls.Session? in
                stopped = true
                defer { self.session = nil }
                return self.session
            }
            session?.end()
            keySink.finish()
            powerSink.finish()
        }
    }
}

/// libcec could not do what was asked; the message says what.
public typealias CECError = Failure<CECCode>

public enum CECCode: String, FailureCode {
    /// libcec did not start (it is not installed, or it failed on its own).
    case notStarted
    /// libcec started but could not look for adapters.
    case searchFailed

    public var kind: FailureKind { .unavailable }
}
