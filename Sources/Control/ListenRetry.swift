import Foundation
import Lineup
import Logging
import ServiceLifecycle

/// Runs a server the picture does not need (the control API) so that an address it cannot listen
/// on never stops the box: the port taken by another program, or a LAN address that is not up yet
/// at boot. Until it listens, the log says why (``problem`` names the cause and the fix) and it
/// tries again by ``ListenRetrySchedule``; when it listens at last, the log says so.
///
/// Each try first asks ``problem`` whether the address can be listened on now; only when it can
/// is a server made (``makeServer``, given a closure the server calls once it listens) and run.
/// A server that fails to start anyway, or stops with an error after it listened, is tried again
/// the same way. Returns when the server returns (graceful shutdown) or when a graceful shutdown
/// comes between tries. An error from ``makeServer`` itself (a configuration the server refuses)
/// is thrown: trying again would not change it.
public struct ListenRetry: Service {
    /// What the log calls the server: `control API`.
    let name: String
    /// Where it listens, as the log says it: `127.0.0.1:8642`.
    let address: String
    let schedule: ListenRetrySchedule
    let logger: Logger
    let problem: @Sendable () async -> String?
    let makeServer: @Sendable (_ listening: @escaping @Sendable () -> Void) throws -> any Service

    /// `problem`: why nothing can listen at the address now, with the fix (nil when it can); it may
    /// block for a moment, so it should not hold a thread of the cooperative pool.
    public init(
        name: String, address: String, schedule: ListenRetrySchedule = ListenRetrySchedule(), logger: Logger,
        problem: @escaping @Sendable () async -> String?,
        server makeServer: @escaping @Sendable (_ listening: @escaping @Sendable () -> Void) throws -> any Service
    ) {
        self.name = name
        self.address = address
        self.schedule = schedule
        self.logger = logger
        self.problem = problem
        self.makeServer = makeServer
    }

    public func run() async throws {
        let clock = ContinuousClock()
        var schedule = self.schedule
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            var reason = await problem()
            if reason == nil {
                guard !Task.isShuttingDownGracefully else { return }
                let listened = ListeningMark()
                let failingSince = schedule.failingSince
                let server = try makeServer { [name, address, logger] in
                    listened.set()
                    if let failingSince {
                        let down = failingSince.duration(to: .now).spoken
                        logger.notice("\(name): listening on \(address) at last, \(down) after it first could not")
                    }
                }
                do {
                    try await server.run()
                    return
                } catch {
                    if Task.isCancelled || Task.isShuttingDownGracefully { throw error }
                    reason = listened.isSet ? "stopped listening on \(address): \(error)" : "could not listen on \(address): \(error)"
                }
                if listened.isSet { _ = schedule.listening(at: clock.now) }
            }
            guard let reason else { continue }
            let first = schedule.failingSince == nil
            let decision = schedule.failed(reason, at: clock.now)
            if first {
                logger.warning("\(name): \(reason); the box plays on without it and tries again \(schedule.summary)")
            } else if decision.say, let since = schedule.failingSince {
                let down = since.duration(to: clock.now).spoken
                logger.warning("\(name): still not listening after \(down): \(reason); trying again every \(decision.wait.spoken)")
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: decision.wait) }
        }
    }

    /// Set once the server listens; read after it stopped.
    private final class ListeningMark: @unchecked Sendable {
        /// Guards `value`.
        private let lock = NSLock()
        private var value = false
        func set() { lock.withLock { value = true } }
        var isSet: Bool { lock.withLock { value } }
    }
}
