import Foundation
import Logging

/// Button presses from lircd (LIRC's daemon), read from its Unix socket on a thread of its own,
/// never on the cooperative pool.
///
/// Each button line (``LircProtocol``) is looked up by name in the key map (``EvdevKeyMap/key(button:)``:
/// lircd's standard namespace uses the Linux names, `KEY_CHANNELUP`), and the key goes to ``keys``,
/// into the same key path as every remote. A press and each repeat of a held button give a key, as
/// a press and an auto-repeat do from evdev, so a held button keeps retargeting the flip. Lines
/// that are not the protocol are logged and skipped.
///
/// The socket may be missing at start or go away (lircd stopped or restarted): that is said once,
/// and the reader keeps trying, ``firstRetry`` doubling up to ``longestRetry``, and reads again as
/// soon as it connects. ``keys`` has a single consumer and ends on ``stop()`` or when its consumer
/// stops iterating.
public final class LircKeys: Sendable {
    /// Debian's lircd socket.
    public static let defaultSocket = "/var/run/lirc/lircd"
    public static let firstRetry: Duration = .milliseconds(250)
    public static let longestRetry: Duration = .seconds(5)

    public let keys: AsyncStream<Key>
    public let socket: String
    private let state: SharedState

    public init(socket: String = LircKeys.defaultSocket, map: EvdevKeyMap = .standard, logger: Logger) {
        self.socket = socket
        let state = SharedState()
        self.state = state
        keys = KeyReaderThread.start(name: "flipbox-lirc", state: state) { sink in
            var reader = Reader(socket: socket, map: map, logger: logger, state: state, sink: sink)
            reader.run()
        }
    }

    deinit { stop() }

    /// Stops reading; the thread closes the socket within ``EvdevKeys/stopCheck`` milliseconds.
    public func stop() { state.stop() }

    /// Whether the socket is connected now.
    public var isConnected: Bool { state.connected }

    /// How many times a connection was made (a reconnect after lircd restarted counts again).
    public var connections: Int { state.connectionCount }

    /// Whether `socket` exists and is a socket: the doctor's check (lircd may still refuse).
    public static func socketPresent(_ socket: String = LircKeys.defaultSocket) -> Bool {
        (try? FileManager.default.attributesOfItem(atPath: socket)[.type] as? FileAttributeType) == .typeSocket
    }

    /// Why a connection to `socket` is not accepted now (lircd not listening, not allowed); nil when it is.
    public static func connectionProblem(_ socket: String = LircKeys.defaultSocket) -> String? {
        switch LircSyscalls.connect(socket) {
        case .success(let fd):
            EvdevSyscalls.close(fd)
            return nil
        case .failure(let error):
            return "\(error)"
        }
    }

    /// The reading thread's state; only that thread touches it.
    private struct Reader {
        let socket: String
        let map: EvdevKeyMap
        let logger: Logger
        let state: SharedState
        let sink: AsyncStream<Key>.Continuation
        var fd: Int32?
        var parser = LircProtocol()
        var retry = LircKeys.firstRetry
        var nextAttempt = ContinuousClock.now
        /// Whether the missing socket was said since the last connection.
        var absenceReported = false
        var unmapped = Set<String>()

        mutating func run() {
            while !state.isStopped {
                guard let fd else {
                    if ContinuousClock.now >= nextAttempt { connect() }
                    if self.fd == nil { Thread.sleep(forTimeInterval: Double(EvdevKeys.stopCheck) / 1000 / 4) }
                    continue
                }
                if EvdevSyscalls.poll([fd], timeoutMilliseconds: EvdevKeys.stopCheck).first == true { read(fd) }
            }
            if let fd { EvdevSyscalls.close(fd) }
            state.setConnected(false)
            sink.finish()
        }

        mutating func connect() {
            switch LircSyscalls.connect(socket) {
            case .success(let connected):
                fd = connected
                parser.reset()
                retry = LircKeys.firstRetry
                absenceReported = false
                state.setConnected(true)
                logger.notice("lirc: reading buttons from lircd at \(socket)")
            case .failure(let error):
                if !absenceReported {
                    absenceReported = true
                    logger.warning("lirc: cannot connect to lircd at \(socket): \(error); keys from other inputs still work, and lircd is picked up when it starts (install it with sudo apt-get install lirc, or give its socket with --input lirc:SOCKET)")
                }
                nextAttempt = ContinuousClock.now + retry
                retry = min(retry * 2, LircKeys.longestRetry)
            }
        }

        mutating func read(_ descriptor: Int32) {
            while true {
                switch EvdevSyscalls.read(descriptor, capacity: 4096) {
                case .bytes(let bytes):
                    for event in parser.feed(bytes) { handle(event) }
                case .nothing:
                    return
                case .endOfFile:
                    lost(descriptor, reason: "closed the connection")
                    return
                case .failed(let code):
                    lost(descriptor, reason: "\(Errno(code))")
                    return
                }
            }
        }

        mutating func handle(_ event: LircProtocol.Event) {
            switch event {
            case .button(let name, _, let remote):
                guard let key = map.key(button: name) else {
                    if unmapped.insert(name).inserted {
                        logger.info("lirc: button \(name) of remote \(remote) has no key (map it in the key map: lirc.\(name): KEY, see docs/box.md)")
                    }
                    return
                }
                sink.yield(key)
            case .garbage(let line):
                logger.warning("lirc: ignored a line from \(socket) that is not lircd's protocol: '\(line.prefix(120))'")
            }
        }

        mutating func lost(_ descriptor: Int32, reason: String) {
            EvdevSyscalls.close(descriptor)
            fd = nil
            state.setConnected(false)
            absenceReported = true
            logger.warning("lirc: lircd at \(socket) went away (\(reason)); reconnecting when it is back, keys from other inputs still work")
            nextAttempt = ContinuousClock.now + retry
        }
    }

    /// The flags shared by the reading thread and its owner.
    private final class SharedState: KeyReaderState, @unchecked Sendable {
        private var isConnected = false
        private var count = 0

        var connected: Bool { lock.withLock { isConnected } }
        var connectionCount: Int { lock.withLock { count } }
        func setConnected(_ value: Bool) {
            lock.withLock {
                if value && !isConnected { count += 1 }
                isConnected = value
            }
        }
    }
}
