import Foundation
import Logging
import ServiceLifecycle
import Switcher

/// Tells systemd how the box is doing, when it runs as a `Type=notify` service (`$NOTIFY_SOCKET`
/// set): `READY=1` once the first flip has its result (the first channel's picture is on screen,
/// or its "no signal" card), `STATUS=` with the channel after each flip, `WATCHDOG=1` at half of
/// `$WATCHDOG_USEC` from a task that pings only after the player has answered a status request,
/// `STOPPING=1` at graceful shutdown.
///
/// A `Service`; put it after the player in the group so it hears the shutdown first.
public struct SystemdNotifier<Player: FlipControl>: Service {
    let socketPath: String
    let watchdogInterval: Duration?
    let player: Player
    let events: AsyncStream<PlayerEvent>
    let logger: Logger

    /// Nil when `environment` has no `NOTIFY_SOCKET`. Subscribe `events` before the player starts,
    /// so the first flip's result is not missed.
    public init?(environment: [String: String], player: Player, events: AsyncStream<PlayerEvent>, logger: Logger) {
        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty else { return nil }
        socketPath = path
        self.watchdogInterval = Self.watchdogInterval(environment: environment, processID: NotifySyscalls.processID)
        self.player = player
        self.events = events
        self.logger = logger
    }

    /// Half of `WATCHDOG_USEC`, when it is set and `WATCHDOG_PID` (if any) is this process.
    static func watchdogInterval(environment: [String: String], processID: Int32) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let usec = UInt64(text), usec > 0 else { return nil }
        if let pid = environment["WATCHDOG_PID"], Int32(pid) != processID { return nil }
        return .microseconds(Int64(usec / 2))
    }

    public func run() async throws {
        guard let fd = NotifySyscalls.datagramSocket() else {
            logger.warning("systemd: cannot open a socket to tell systemd the box is ready; it may restart the service")
            try? await gracefulShutdown()
            return
        }
        defer { NotifySyscalls.close(fd) }
        let channel = NotifySocket(fd: fd, path: socketPath, logger: logger)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.reportFlips(channel) }
            if let interval = watchdogInterval {
                group.addTask { await self.pingWatchdog(channel, every: interval) }
            }
            try? await gracefulShutdown()
            channel.send("STOPPING=1\nSTATUS=stopping")
            group.cancelAll()
        }
    }

    private func reportFlips(_ channel: NotifySocket) async {
        var ready = false
        for await event in events.cancelOnGracefulShutdown() {
            guard case .flipCompleted(let result) = event, result.outcome != .superseded else { continue }
            let name = result.channel.map { "\($0.number) \($0.name)" } ?? "?"
            let status = result.ok ? "STATUS=playing \(name)" : "STATUS=\(name): \(result.error ?? "no signal")"
            channel.send(ready ? status : "READY=1\n\(status)")
            if !ready { logger.debug("systemd: ready") }
            ready = true
        }
    }

    private func pingWatchdog(_ channel: NotifySocket, every interval: Duration) async {
        let clock = ContinuousClock()
        var next = clock.now
        while !Task.isCancelled {
            // A player that no longer answers stops the pings, and systemd restarts the box.
            _ = await player.status()
            guard !Task.isCancelled else { return }
            channel.send("WATCHDOG=1")
            next = max(next + interval, clock.now)
            try? await Task.sleep(until: next, clock: clock)
        }
    }

    /// The socket and where it sends; a failure to send is logged once.
    private final class NotifySocket: @unchecked Sendable {
        let fd: Int32
        let path: String
        let logger: Logger
        /// Guards `failed`.
        private let lock = NSLock()
        private var failed = false

        init(fd: Int32, path: String, logger: Logger) {
            self.fd = fd
            self.path = path
            self.logger = logger
        }

        func send(_ message: String) {
            guard let error = NotifySyscalls.send(message, on: fd, to: path) else { return }
            let first = lock.withLock {
                defer { failed = true }
                return !failed
            }
            if first {
                logger.warning("systemd: cannot send to NOTIFY_SOCKET \(path): \(Errno(error)); systemd may think the box is not ready or hung")
            }
        }
    }
}
