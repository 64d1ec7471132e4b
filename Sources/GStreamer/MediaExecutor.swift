import CGStreamer
import Foundation

/// The media thread: one thread running a private `GMainContext`.
///
/// Every pipeline state change, property write on a running pipeline and pad link made by
/// Flipbox happens here. Actors that own pipelines use it as their executor:
///
///     nonisolated var unownedExecutor: UnownedSerialExecutor { MediaExecutor.shared.asUnownedSerialExecutor() }
///
/// Jobs run in FIFO order, one at a time, never re-entrantly.
public final class MediaExecutor: SerialExecutor, @unchecked Sendable {
    public static let shared = MediaExecutor()

    private let context: OpaquePointer
    private let loop: OpaquePointer
    private let threadKey = "flipbox.media-thread"

    private init() {
        let context = g_main_context_new()!
        self.context = context
        self.loop = g_main_loop_new(context, 0)
        nonisolated(unsafe) let loop = self.loop
        nonisolated(unsafe) let ctx = context
        let key = threadKey
        let thread = Thread {
            Thread.current.threadDictionary[key] = true
            g_main_context_push_thread_default(ctx)
            g_main_loop_run(loop)
        }
        thread.name = "flipbox-media"
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// True when called on the media thread.
    public var isCurrent: Bool { Thread.current.threadDictionary[threadKey] != nil }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        schedule { job.runSynchronously(on: executor) }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    public func checkIsolated() {
        precondition(isCurrent, "not on the flipbox media thread")
    }

    /// Runs `body` on the media thread later (never synchronously, even from the media thread).
    public func schedule(_ body: @escaping @Sendable () -> Void) {
        attach(g_idle_source_new()!, body)
    }

    /// Runs `body` on the media thread `delay` from now (a GLib timeout on the media thread's
    /// context: no task, no thread of its own). Timeouts due together run in the order scheduled.
    /// The timeout returned calls it off (`MediaTimeout.cancel`).
    @discardableResult
    public func schedule(after delay: Duration, _ body: @escaping @Sendable () -> Void) -> MediaTimeout {
        let (seconds, attoseconds) = delay.components
        let milliseconds = max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        let source = g_timeout_source_new(guint(clamping: milliseconds))!
        let timeout = MediaTimeout(source)
        attach(source) { if timeout.claim() { body() } }
        return timeout
    }

    /// Attaches `source` to the media thread's context, calling `body` once when it fires.
    private func attach(_ source: UnsafeMutablePointer<GSource>, _ body: @escaping @Sendable () -> Void) {
        g_source_set_priority(source, G_PRIORITY_DEFAULT)
        let box = CallbackBox(body)
        g_source_set_callback(source, { data in
            CallbackBox<@Sendable () -> Void>.from(data).value()
            return 0 // G_SOURCE_REMOVE
        }, box.retainedPointer(), { data in CallbackBox<@Sendable () -> Void>.release(data) })
        g_source_attach(source, context)
        g_source_unref(source)
    }

    /// Runs `body` on the media thread and returns its result.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            schedule { continuation.resume(with: Result { try body() }) }
        }
    }
}

/// A timeout scheduled on the media thread (`MediaExecutor.schedule(after:)`). Cancelled before
/// it fires, its body never runs: whichever of `cancel` and the firing comes first wins, on any
/// thread, so an owner replacing its timer needs no count of which one is current.
public final class MediaTimeout: @unchecked Sendable {
    private let lock = NSLock()
    /// The GLib source while it may still fire (a reference of ours); nil once fired or cancelled.
    private var source: UnsafeMutablePointer<GSource>?

    init(_ source: UnsafeMutablePointer<GSource>) {
        g_source_ref(source)
        self.source = source
    }

    /// Calls the timeout off (any thread): its body does not run unless it already started.
    public func cancel() {
        let held: UnsafeMutablePointer<GSource>? = lock.withLock {
            defer { source = nil }
            return source
        }
        guard let held else { return }
        g_source_destroy(held)
        g_source_unref(held)
    }

    /// The timeout fired: true when its body is to run (it was not cancelled first).
    fileprivate func claim() -> Bool {
        let held: UnsafeMutablePointer<GSource>? = lock.withLock {
            defer { source = nil }
            return source
        }
        guard let held else { return false }
        g_source_unref(held)
        return true
    }

    deinit {
        if let source { g_source_unref(source) }
    }
}
