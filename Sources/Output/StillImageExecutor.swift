import Foundation

/// The one thread for blocking still-image work: interstitial cards and overlays rendered from
/// SVG and text, logos decoded and scaled, PNG snapshots, JPEG thumbnails. None of it occupies
/// Swift's cooperative pool (as many threads as cores: two on the box, carrying every HTTP
/// request and the player) or the media thread.
///
/// A `SerialExecutor` and a `TaskExecutor`: ``run(_:)`` runs its body with this executor as the
/// task's preference, so nonisolated async code the body calls (`Player.snapshotPNG`, which
/// encodes synchronously) runs here; ``perform(urgent:_:)`` runs a blocking closure here. Jobs
/// run one at a time in the order they came, except that urgent work (a flip's card) goes
/// before everything else waiting, so at most the one picture being made stands between a flip
/// and its card. (Task priorities cannot order them: a task awaiting a lower-priority child
/// raises the child to its own.) Callers wait without holding a pool thread. The
/// thread lives as long as the process.
public final class StillImageExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
    // Sendable: `jobs` and `threadID` are only touched under `condition`'s lock.

    /// The one executor for the process.
    public static let shared = StillImageExecutor(name: "flipbox-still-images")

    /// What waits its turn: a task's job (``run(_:)``) or a closure (``perform(urgent:_:)``).
    private enum Item {
        case job(UnownedJob)
        case work(@Sendable () -> Void, urgent: Bool)
        var isUrgent: Bool { if case .work(_, true) = self { true } else { false } }
    }

    private let condition = NSCondition()
    private var jobs: [Item] = []
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

    /// Runs the blocking `work` on the still-image thread and returns its result; the caller
    /// suspends meanwhile. `urgent` work (a flip's card) goes before everything waiting that is
    /// not; otherwise first come, first served.
    public func perform<T: Sendable>(urgent: Bool = false, _ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            add(.work({ continuation.resume(returning: work()) }, urgent: urgent))
        }
    }

    /// Jobs waiting their turn (for tests).
    var waiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count
    }

    public func enqueue(_ job: UnownedJob) {
        add(.job(job))
    }

    private func add(_ item: Item) {
        condition.lock()
        // Urgent work after the urgent work already waiting, before everything else.
        let index = item.isUrgent ? (jobs.firstIndex { !$0.isUrgent } ?? jobs.endIndex) : jobs.endIndex
        jobs.insert(item, at: index)
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
            let item = jobs.removeFirst()
            condition.unlock()
            switch item {
            case .job(let job): job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
            case .work(let work, _): work()
            }
        }
    }
}
