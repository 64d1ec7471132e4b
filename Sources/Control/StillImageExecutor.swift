import Foundation

/// One thread of its own for still-image work (PNG snapshots, JPEG thumbnails), so that encoding a
/// large picture never occupies Swift's cooperative pool, which has as many threads as cores (two
/// on the box) and carries every HTTP request and the player.
///
/// A `SerialExecutor` and a `TaskExecutor`: ``run(_:)`` runs its body with this executor as the
/// task's preference, so nonisolated async code the body calls (`Player.snapshotPNG`, which
/// encodes synchronously) runs here; jobs run one at a time, in the order they were enqueued, and
/// callers wait their turn without holding a pool thread. The thread lives as long as the process.
public final class StillImageExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
    // Sendable: `jobs` and `threadID` are only touched under `condition`'s lock.

    /// The one executor for the process.
    public static let shared = StillImageExecutor(name: "flipbox-still-images")

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var threadID: pthread_t?

    init(name: String) {
        let thread = Thread { [unowned self] in self.loop() }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Runs `body` on the still-image thread (with its nonisolated async callees) and returns its
    /// result; the caller suspends meanwhile.
    public func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await withTaskExecutorPreference(self) { try await body() }
    }

    /// True on the still-image thread. Tests use it to see where work ran.
    public var isCurrentThread: Bool {
        condition.lock()
        defer { condition.unlock() }
        guard let threadID else { return false }
        return pthread_equal(threadID, pthread_self()) != 0
    }

    public func enqueue(_ job: UnownedJob) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    public func asUnownedTaskExecutor() -> UnownedTaskExecutor { UnownedTaskExecutor(ordinary: self) }

    private func loop() {
        condition.lock()
        threadID = pthread_self()
        condition.unlock()
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
        }
    }
}
