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
/// Give the session (and the request) timeouts at least `sessionGrace` longer than the deadline:
/// FoundationNetworking crashes ("a behaviour for a task that is not in the registry") when a
/// cancel meets a failure already in flight, and a session timing out at the very moment of the
/// deadline is such a failure.
public enum HTTPTransfer {
    /// How much longer than a deadline the session's own timeouts should be.
    public static let sessionGrace: TimeInterval = 5

    /// The body and response of `request`, the whole transfer within `deadline` seconds however
    /// slowly the server sends (the session's own limits are per read).
    public static func data(
        for request: URLRequest, session: URLSession, deadline: TimeInterval
    ) async throws -> (Data, URLResponse) {
        let reply = Reply()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, URLResponse), any Error>) in
                guard reply.wait(continuation) else { return }
                let transfer = session.dataTask(with: request) { data, response, error in
                    if let error {
                        reply.finish(.failure(error), transferEnded: true)
                    } else if let response {
                        reply.finish(.success((data ?? Data(), response)), transferEnded: true)
                    } else {
                        reply.finish(.failure(URLError(.badServerResponse)), transferEnded: true)
                    }
                }
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
    private final class Reply: @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: CheckedContinuation<(Data, URLResponse), any Error>?
        private var transfer: URLSessionDataTask?
        private var outcome: Result<(Data, URLResponse), any Error>?

        /// Keeps the caller's continuation; false (and the continuation answered) when the
        /// outcome is already known, i.e. the task was cancelled before it began.
        func wait(_ continuation: CheckedContinuation<(Data, URLResponse), any Error>) -> Bool {
            let known: Result<(Data, URLResponse), any Error>? = lock.withLock {
                if let outcome { return outcome }
                self.continuation = continuation
                return nil
            }
            guard let known else { return true }
            continuation.resume(with: known)
            return false
        }

        /// Keeps the transfer to stop; false when the caller already has its answer.
        func attach(_ transfer: URLSessionDataTask) -> Bool {
            lock.withLock {
                guard outcome == nil else { return false }
                self.transfer = transfer
                return true
            }
        }

        /// The first outcome wins; a later one (the transfer's own "cancelled") is dropped.
        func finish(_ result: Result<(Data, URLResponse), any Error>, transferEnded: Bool = false) {
            let (waiter, transfer): (CheckedContinuation<(Data, URLResponse), any Error>?, URLSessionDataTask?) = lock.withLock {
                guard outcome == nil else { return (nil, nil) }
                outcome = result
                defer { continuation = nil; self.transfer = nil }
                return (continuation, self.transfer)
            }
            waiter?.resume(with: result)
            // A transfer still running when the caller has its answer is stopped, from a
            // dispatch of its own: `cancel()` waits for the session's queue.
            if !transferEnded, let transfer { DispatchQueue.global().async { transfer.cancel() } }
        }
    }
}
