import Foundation
import LoopbackStreams

/// Runs `work` on a thread of its own and waits for it without holding a thread of Swift's
/// concurrency pool.
///
/// The pool has as many threads as cores, two on the CI machine, and every test in the parallel
/// phase shares them: an ffmpeg run, a probe or a child process waited for synchronously on one
/// of them holds up every actor and await in the process for as long (docs/architecture.md, "How
/// the tests run"). The thread has 4 MB of stack, as much as a pool thread's default.
public func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let thread = Thread { continuation.resume(with: Result { try work() }) }
        thread.name = "test-blocking"
        thread.stackSize = 4 << 20
        thread.start()
    }
}

extension ClipFormat {
    /// `file(in:)` off the concurrency pool: a clip not made yet takes ffmpeg seconds.
    public func made(in directory: String) async throws -> String {
        let format = self
        return try await offPool { try format.file(in: directory) }
    }
}

extension SubtitleClip {
    /// `file(in:)` off the concurrency pool: a clip not made yet takes gst-launch seconds.
    public func made(in directory: String) async throws -> String {
        let clip = self
        return try await offPool { try clip.file(in: directory) }
    }
}
