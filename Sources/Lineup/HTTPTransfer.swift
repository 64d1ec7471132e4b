import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request with a hard deadline, safe to cancel from Swift concurrency.
///
/// swift-corelibs-foundation's `URLSession.data(for:)` cancels its transfer from inside the
/// task's cancellation handler, synchronously on the session's queue, while the Swift runtime
/// holds the task's status lock; if the session fails the transfer at that moment its queue
/// waits for the same lock to resume the caller, and both threads (and `invalidateAndCancel`)
/// hang for good. A logo download that timed out on a silent server did exactly that.
///
/// Here the transfer is a completion-handler task, and every cancel (the deadline, the
/// caller's task cancelled) is sent to it from a separate dispatch, never while a runtime lock
/// is held. The caller is answered exactly once: the response, the transfer's error,
/// `URLError(.timedOut)` at the deadline, or `CancellationError` when its task is cancelled.
///
/// Every transfer goes through ``shared``, the process's one session, which is never torn down.
/// Two families of FoundationNetworking faults shaped it:
/// - Tearing a session down is a known crash family on Linux (swift-corelibs-foundation#4791 and
///   the fixes after it): its libcurl handles and their dispatch sources are released on the
///   session's queues while a socket event for them may be on its way, and a dispatch worker
///   thread then reads freed memory. The box made and invalidated one session per logo cache,
///   so one per player, and a test process hundreds. The crash that ended a CI run fits it (a
///   "Bad pointer dereference" on a `com.apple.root.default-qos` thread), though it left no
///   frames to prove it.
/// - FoundationNetworking traps ("Trying to access a behaviour for a task that in not in the
///   registry") when a cancel lands while a transfer's failure is already on its way: a session
///   with a `URLCache` (`.ephemeral` has one) reads the cache on a queue of its own before the
///   transfer starts, and a session or request timing out at the very moment of the deadline
///   fails it. So the shared session has no cache, its own timeouts are a day (past any
///   deadline), and every request's timeout is set (it is the idle limit that applies), moved to
///   `sessionGrace` after the deadline when it would fall near it.
public enum HTTPTransfer {
    /// How much later than a deadline the request's own timeout comes, when it would come near it.
    public static let sessionGrace: TimeInterval = 5

    /// The session's own timeouts: past every deadline a transfer here is given.
    static let sessionTimeout: TimeInterval = 24 * 3600

    /// The process's one session for transfers made here: no cache, up to 16 connections to a
    /// host (a lineup's logos and subtitle renditions often come from one server), never
    /// invalidated. Made at the first use.
    public static let shared = URLSession(configuration: sessionConfiguration())

    /// The configuration of the sessions made here: no cache, the session's timeouts past every
    /// deadline, 16 connections to a host.
    static func sessionConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = sessionTimeout
        configuration.timeoutIntervalForResource = sessionTimeout
        configuration.httpMaximumConnectionsPerHost = 16
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return configuration
    }

    /// `request` with its own timeout (the longest silence allowed) set, so the session's does not
    /// apply, and kept clear of `deadline`: one that would end the transfer within `sessionGrace`
    /// before the deadline or later is moved past it (a shorter one, an idle limit well before the
    /// deadline, is kept).
    static func clearOfDeadline(_ request: URLRequest, _ deadline: TimeInterval) -> URLRequest {
        var kept = request
        kept.timeoutInterval = request.timeoutInterval > deadline - sessionGrace ? deadline + sessionGrace : request.timeoutInterval
        return kept
    }

    /// The body and response of `request`, the whole transfer within `deadline` seconds however
    /// slowly the server sends (the session's own limits are per read).
    public static func data(
        for request: URLRequest, deadline: TimeInterval
    ) async throws -> (Data, URLResponse) {
        let request = clearOfDeadline(request, deadline)
        return try await transfer(deadline: deadline) { reply in
            shared.dataTask(with: request) { data, response, error in
                if let error {
                    reply.finish(.failure(error), transferEnded: true)
                } else if let response {
                    reply.finish(.success((data ?? Data(), response)), transferEnded: true)
                } else {
                    reply.finish(.failure(URLError(.badServerResponse)), transferEnded: true)
                }
            }
        }
    }

    /// Runs the transfer `make` builds (its completion handler answers through the reply), with
    /// the deadline and the caller's cancellation sent to it from dispatches of their own.
    static func transfer<Value: Sendable>(
        deadline: TimeInterval, _ make: @escaping (Reply<Value>) -> URLSessionTask
    ) async throws -> Value {
        let reply = Reply<Value>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                guard reply.wait(continuation) else { return }
                let transfer = make(reply)
                // Cancelled while the transfer was being made: it is never started.
                guard reply.attach(transfer) else { return }
                transfer.resume()
                DispatchQueue.global().asyncAfter(deadline: .now() + max(0, deadline)) {
                    reply.finish(.failure(URLError(.timedOut)))
                }
            }
        } onCancel: {
            // Runs under the task's status lock: only hand the work on.
            DispatchQueue.global().async { reply.finish(.failure(CancellationError())) }
        }
    }

    /// The one answer to the caller, and the transfer to stop once it is given.
    final class Reply<Value: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: CheckedContinuation<Value, any Error>?
        private var transfer: URLSessionTask?
        private var outcome: Result<Value, any Error>?

        /// Keeps the caller's continuation; false (and the continuation answered) when the
        /// outcome is already known, i.e. the task was cancelled before it began.
        func wait(_ continuation: CheckedContinuation<Value, any Error>) -> Bool {
            let known: Result<Value, any Error>? = lock.withLock {
                if let outcome { return outcome }
                self.continuation = continuation
                return nil
            }
            guard let known else { return true }
            continuation.resume(with: known)
            return false
        }

        /// Keeps the transfer to stop; false when the caller already has its answer.
        func attach(_ transfer: URLSessionTask) -> Bool {
            lock.withLock {
                guard outcome == nil else { return false }
                self.transfer = transfer
                return true
            }
        }

        /// The first outcome wins (true); a later one (the transfer's own "cancelled") is dropped (false).
        @discardableResult
        func finish(_ result: Result<Value, any Error>, transferEnded: Bool = false) -> Bool {
            let (won, waiter, transfer): (Bool, CheckedContinuation<Value, any Error>?, URLSessionTask?) = lock.withLock {
                guard outcome == nil else { return (false, nil, nil) }
                outcome = result
                defer { continuation = nil; self.transfer = nil }
                return (true, continuation, self.transfer)
            }
            waiter?.resume(with: result)
            // A transfer still running when the caller has its answer is stopped, from a
            // dispatch of its own: `cancel()` waits for the session's queue.
            if !transferEnded, let transfer { DispatchQueue.global().async { transfer.cancel() } }
            return won
        }
    }
}
