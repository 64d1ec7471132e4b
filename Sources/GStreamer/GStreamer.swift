import CGStreamer
import Failures
import Foundation

/// Process-wide GStreamer set-up. Call `GStreamer.initialize()` once before any other API.
public enum GStreamer {
    private static let once: Result<Void, GStreamerError> = {
        var error: UnsafeMutablePointer<GError>?
        if gst_init_check(nil, nil, &error) == 0 {
            return .failure(GStreamerError(.initialization, takeMessage(error) ?? "gst_init failed"))
        }
        // The MPEG-TS section types (SCTE-35 splice cues) must be registered before use.
        gst_mpegts_initialize()
        settleTextRenderingTypes()
        return .success(())
    }()

    /// Sets up, here and on one thread, the element classes that draw text and pango's font-map
    /// types they make. `cc708overlay`'s and `textoverlay`'s class initialisers (first run when
    /// a decoder pipeline is parsed) make a pango font map while they hold GLib's type lock;
    /// librsvg (`rsvgdec`: an SVG card or logo, on a streaming thread) registers the same pango
    /// types inside pango's own once-guard, then wants the type lock. The first of each at the
    /// same moment deadlocked a box for good: its decoders never started, it did not stop.
    private static func settleTextRenderingTypes() {
        for factory in ["cc708overlay", "textoverlay", "rsvgdec"] {
            guard let element = gst_element_factory_make(factory, nil) else { continue }
            gst_object_unref(UnsafeMutableRawPointer(element))
        }
    }

    /// Initializes GStreamer (idempotent, thread-safe).
    public static func initialize() throws(GStreamerError) {
        try once.get()
    }

    /// Caps the C allocator's arenas at `count` (glibc's `M_ARENA_MAX`): call before the
    /// streaming threads start. Returns whether the allocator took it.
    @discardableResult
    public static func limitAllocatorArenas(to count: Int) -> Bool {
        fb_malloc_arena_max(Int32(count)) != 0
    }

    /// The C allocator's heap now (glibc's `mallinfo2`): bytes handed out to the program (every
    /// Swift, GLib and GStreamer allocation), and bytes freed but kept by the allocator's arenas.
    /// Resident memory that grows while `inUse` stays flat is the allocator's, not a leak. Walks
    /// every arena under its lock: for a status request, not a streaming thread.
    public static func allocatorHeap() -> (inUse: Int, keptFree: Int) {
        var inUse = 0, kept = 0
        fb_malloc_heap(&inUse, &kept)
        return (inUse, kept)
    }

    /// The GStreamer library version, e.g. `1.22.0`.
    public static var version: String {
        var major: guint = 0, minor: guint = 0, micro: guint = 0, nano: guint = 0
        gst_version(&major, &minor, &micro, &nano)
        return "\(major).\(minor).\(micro)"
    }

    /// True when GLib's type system knows a type of that name (`PangoCairoFcFontMap`).
    public static func isTypeRegistered(_ name: String) -> Bool {
        g_type_from_name(name) != 0
    }

    /// True when an element factory of that name is installed (e.g. `x264enc`).
    public static func hasElement(_ factory: String) -> Bool {
        guard let f = gst_element_factory_find(factory) else { return false }
        gst_object_unref(UnsafeMutableRawPointer(f))
        return true
    }

    static func takeMessage(_ error: UnsafeMutablePointer<GError>?) -> String? {
        guard let error else { return nil }
        defer { g_error_free(error) }
        return error.pointee.message.map { String(cString: $0) }
    }
}

/// An error from the media layer, with a code and a message meant for the person running the box.
public typealias GStreamerError = Failure<GStreamerCode>

public enum GStreamerCode: String, FailureCode {
    /// GStreamer itself did not start (`gst_init`).
    case initialization
    /// A pipeline, branch, caps or link that cannot be built as described.
    case pipelineDescription
    /// A pipeline that does not go to the state asked for (a source or sink fails on the way).
    case stateChange
    /// An element that is not installed.
    case missingElement
    /// A pipeline that did not get there in time.
    case timeout
    /// A picture that cannot be decoded (or rendered, for SVG).
    case decode
    /// A frame that cannot be converted or encoded.
    case encode

    public var kind: FailureKind {
        switch self {
        case .initialization, .pipelineDescription, .encode: .internalFailure
        case .stateChange, .decode: .upstream
        case .missingElement: .unsupported
        case .timeout: .timedOut
        }
    }
}

/// Nanosecond times as GStreamer uses them.
public typealias ClockTime = UInt

extension ClockTime {
    /// `GST_CLOCK_TIME_NONE`.
    public static let none: ClockTime = fb_clock_time_none
    public static let second: ClockTime = 1_000_000_000
    public static let millisecond: ClockTime = 1_000_000
    public var isValid: Bool { self != .none }
}

/// Boxes a Swift value for a C `user_data` pointer; released by the destroy-notify.
final class CallbackBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
    func retainedPointer() -> gpointer { Unmanaged.passRetained(self).toOpaque() }
    static func from(_ p: gpointer?) -> CallbackBox<T> { Unmanaged<CallbackBox<T>>.fromOpaque(p!).takeUnretainedValue() }
    static func release(_ p: gpointer?) {
        guard let p else { return }
        Unmanaged<CallbackBox<T>>.fromOpaque(p).release()
    }
}
