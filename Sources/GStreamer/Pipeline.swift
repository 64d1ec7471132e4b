import CGStreamer
import Foundation

/// A pipeline with its bus turned into an `AsyncStream` of `BusMessage`s.
///
/// Ownership and threading: state changes are meant to happen on the media thread (the owner
/// is an actor on `MediaExecutor`). `shutdown()` must run before the last reference goes away;
/// `deinit` only checks that it did.
public final class Pipeline: Bin, @unchecked Sendable {
    /// Every bus message, in order, from a sync handler. Finishes at `shutdown()`.
    public let messages: AsyncStream<BusMessage>
    private let continuation: AsyncStream<BusMessage>.Continuation
    private let lock = NSLock()
    private var isShutDown = false
    private var firstErrorText: String?
    /// Set by `observe`: takes every message from then on, instead of `messages`.
    private var observer: (@Sendable (BusMessage) -> Void)?
    /// Errors posted before there was an observer (the newest few), given to it when it comes.
    private var earlyErrors: [BusMessage] = []

    /// The first error message the pipeline posted, if any (thread-safe).
    public var firstError: String? {
        lock.lock(); defer { lock.unlock() }
        return firstErrorText
    }

    /// Builds a pipeline from a `gst-launch` style description.
    ///
    /// Never interpolate user input into `description`; set it as properties afterwards.
    public convenience init(description: String) throws(GStreamerError) {
        var error: UnsafeMutablePointer<GError>?
        let element = gst_parse_launch(description, &error)
        if let message = GStreamer.takeMessage(error) {
            if let element { gst_object_unref(UnsafeMutableRawPointer(element)) }
            throw GStreamerError(.pipelineDescription, "cannot build the pipeline: \(message)")
        }
        guard let element else {
            throw GStreamerError(.pipelineDescription, "cannot build the pipeline '\(description)'")
        }
        // gst_parse_launch returns a bare element when the description has one; wrap it then.
        if g_type_check_instance_is_a(UnsafeMutableRawPointer(element).assumingMemoryBound(to: GTypeInstance.self), gst_pipeline_get_type()) == 0 {
            let p = gst_pipeline_new(nil)!
            gst_bin_add(fb_bin(UnsafeMutableRawPointer(p)), element)
            self.init(pipeline: p)
        } else {
            self.init(pipeline: element)
        }
    }

    /// An empty pipeline to add elements to.
    public convenience init(name: String? = nil) {
        self.init(pipeline: gst_pipeline_new(name)!)
    }

    private init(pipeline: UnsafeMutablePointer<GstElement>) {
        let (stream, continuation) = AsyncStream<BusMessage>.makeStream(bufferingPolicy: .unbounded)
        self.messages = stream
        self.continuation = continuation
        super.init(takingOwnership: pipeline)
        PipelineCensus.track(object)
        installBusHandler()
    }

    deinit {
        if !isShutDown {
            // Contract violation; stop the pipeline anyway so no thread keeps running into freed state.
            gst_element_set_state(pointer, GST_STATE_NULL)
            continuation.finish()
        }
    }

    private func installBusHandler() {
        typealias Handler = @Sendable (UnsafeMutablePointer<GstMessage>) -> Void
        let bus = gst_element_get_bus(pointer)!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        let continuation = self.continuation
        let me = UInt(bitPattern: object)
        let handler: Handler = { [weak self] m in
            if let message = BusMessage(m, pipeline: UnsafeMutableRawPointer(bitPattern: me)!) {
                var observer: (@Sendable (BusMessage) -> Void)?
                if let self {
                    self.lock.lock()
                    if case .error(_, let text, _) = message {
                        if self.firstErrorText == nil { self.firstErrorText = text }
                        if self.observer == nil {
                            self.earlyErrors.append(message)
                            if self.earlyErrors.count > 8 { self.earlyErrors.removeFirst() }
                        }
                    }
                    observer = self.observer
                    self.lock.unlock()
                }
                if let observer { observer(message) } else { continuation.yield(message) }
            }
        }
        // A sync handler that answers GST_BUS_DROP owns the message and must unref it; a message
        // left alive keeps its source element, and so its whole pipeline, alive for good.
        gst_bus_set_sync_handler(bus, { _, message, data in
            guard let message else { return GST_BUS_DROP }
            SharedContexts.handle(message)
            CallbackBox<Handler>.from(data).value(message)
            gst_message_unref(message)
            return GST_BUS_DROP
        }, CallbackBox<Handler>(handler).retainedPointer(), { data in CallbackBox<Handler>.release(data) })
    }

    /// Changes state. Throws with the pipeline's own error message when it fails.
    @discardableResult
    public func setState(_ state: State) throws(GStreamerError) -> StateChange {
        switch gst_element_set_state(pointer, state.gst) {
        case GST_STATE_CHANGE_FAILURE:
            throw GStreamerError(.stateChange, "cannot go to \(state)")
        case GST_STATE_CHANGE_ASYNC: return .async
        case GST_STATE_CHANGE_NO_PREROLL: return .noPreroll
        default: return .success
        }
    }

    /// Waits (blocking, up to `timeout`) for an async state change to finish. Use only for
    /// short-lived helper pipelines, never on the media thread for a live one.
    public func waitForState(timeout: ClockTime) throws(GStreamerError) -> State {
        var current = GST_STATE_NULL, pending = GST_STATE_NULL
        switch gst_element_get_state(pointer, &current, &pending, timeout) {
        case GST_STATE_CHANGE_FAILURE:
            throw GStreamerError(.stateChange, "the pipeline failed to start")
        case GST_STATE_CHANGE_ASYNC:
            throw GStreamerError(.timeout, "the pipeline did not start within \(timeout / .millisecond) ms")
        default:
            return State(current)
        }
    }

    /// The pipeline's running time now (clock time minus base time); `.none` before PLAYING.
    public var runningTimeNow: ClockTime {
        guard let clock = gst_element_get_clock(pointer) else { return .none }
        defer { gst_object_unref(UnsafeMutableRawPointer(clock)) }
        let now = gst_clock_get_time(clock)
        let base = gst_element_get_base_time(pointer)
        return now >= base ? now - base : 0
    }

    /// Seeks to the start as a segment seek, so that `segmentDone` arrives at the end instead of
    /// EOS and playback can loop without a gap. `flush` for the first seek only.
    @discardableResult
    /// A flushing seek to the start, to its first keyframe (a file that loops without segments).
    public func seekToStart() -> Bool {
        gst_element_seek(pointer, 1.0, GST_FORMAT_TIME, GstSeekFlags(rawValue: GST_SEEK_FLAG_FLUSH.rawValue | GST_SEEK_FLAG_KEY_UNIT.rawValue),
                         GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_NONE, -1) != 0
    }

    public func seekToStartLooping(flush: Bool) -> Bool {
        var flags = GST_SEEK_FLAG_SEGMENT.rawValue
        if flush { flags |= GST_SEEK_FLAG_FLUSH.rawValue | GST_SEEK_FLAG_KEY_UNIT.rawValue }
        return gst_element_seek(pointer, 1.0, GST_FORMAT_TIME, GstSeekFlags(rawValue: flags),
                                GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_NONE, -1) != 0
    }

    /// Fixes the pipeline latency instead of the one its elements report (sinks then render
    /// buffers at their running time plus this).
    public func setLatency(_ latency: ClockTime) {
        gst_pipeline_set_latency(fb_pipeline(object), latency)
    }

    public func recalculateLatency() {
        _ = gst_bin_recalculate_latency(fb_bin(object))
    }

    /// Stops the pipeline (state NULL) and ends `messages`. Idempotent.
    /// Hands every message from now on to `handler`, on the thread that posts it (a streaming
    /// thread: never block), instead of `messages`, which ends. Errors posted before, which
    /// `messages` holds unread, are handed to it first (the newest 8). Once; `shutdown()` lets
    /// the handler go.
    public func observe(_ handler: @escaping @Sendable (BusMessage) -> Void) {
        lock.lock()
        let early = isShutDown ? [] : earlyErrors
        earlyErrors = []
        if !isShutDown { observer = handler }
        lock.unlock()
        continuation.finish()
        for message in early { handler(message) }
    }

    public func shutdown() {
        lock.lock()
        let already = isShutDown
        isShutDown = true
        observer = nil
        earlyErrors = []
        lock.unlock()
        guard !already else { return }
        gst_element_set_state(pointer, GST_STATE_NULL)
        continuation.finish()
    }
}

/// Counts the GStreamer pipelines that exist, and the elements inside them, whoever holds
/// them: each counts from its creation (or from joining a pipeline) until GStreamer frees it,
/// not until a Swift object goes, so a reference left behind anywhere shows up here.
/// Thread-safe.
public enum PipelineCensus {
    private static let pipelines = Registry()
    private static let elements = Registry()

    /// Pipelines created and not yet freed.
    public static var alive: Int { pipelines.count }

    /// Elements that were ever inside a pipeline and are not yet freed.
    public static var elementsAlive: Int { elements.count }

    /// Whether the pipeline behind `pipeline` still exists (for tests: hold only its `identity`).
    public static func isAlive(_ identity: Pipeline.Identity) -> Bool { pipelines.contains(identity.address) }

    static func track(_ object: UnsafeMutableRawPointer) {
        pipelines.watch(object)
        // The elements there now (a described pipeline comes built), and every one added later.
        fb_bin_foreach_recurse(fb_bin(object), { element, _ in
            if let element { PipelineCensus.elements.watch(UnsafeMutableRawPointer(element)) }
        }, nil)
        let added: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, gpointer?) -> Void = { _, _, element, _ in
            if let element { PipelineCensus.elements.watch(element) }
        }
        _ = fb_signal_connect(object, "deep-element-added", unsafeBitCast(added, to: GCallback.self), nil, nil)
    }

    private final class Registry: @unchecked Sendable {
        private let lock = NSLock()
        private var addresses: Set<UInt> = []
        var count: Int { lock.withLock { addresses.count } }
        func contains(_ a: UInt) -> Bool { lock.withLock { addresses.contains(a) } }

        /// Counts `object` until GStreamer frees it (once, however often it is watched).
        func watch(_ object: UnsafeMutableRawPointer) {
            let address = UInt(bitPattern: object)
            guard lock.withLock({ addresses.insert(address).inserted }) else { return }
            let box = Unmanaged.passRetained(self).toOpaque()
            g_object_weak_ref(fb_object(object), { data, freed in
                let registry = Unmanaged<Registry>.fromOpaque(data!).takeRetainedValue()
                _ = registry.lock.withLock { registry.addresses.remove(UInt(bitPattern: freed)) }
            }, box)
        }
    }
}

extension Pipeline {
    /// Names a pipeline without keeping it alive.
    public struct Identity: Sendable, Hashable { let address: UInt }
    public var identity: Identity { Identity(address: UInt(bitPattern: object)) }
}
