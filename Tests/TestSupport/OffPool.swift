import Foundation

/// Runs `work` on a thread of its own and waits for it without holding a thread of Swift's
/// concurrency pool.
///
/// The pool has as many threads as cores, two on the CI machine, and every test in the parallel
/// phase shares them: an ffmpeg run or a probe waited for synchronously on one of them holds up
/// every actor and await in the process for as long (docs/architecture.md, "How the tests run").
public func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let thread = Thread {
            do { continuation.resume(returning: try work()) } catch { continuation.resume(throwing: error) }
        }
        thread.name = "test-blocking"
        thread.start()
    }
}
