import CGStreamer

/// A GStreamer element; owns one reference.
///
/// Property writes are thread-safe in GStreamer; Flipbox still makes them on the media thread
/// once a pipeline runs, except where a doc comment says otherwise.
public class Element: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<GstElement>

    /// Adopts a reference the caller owns (a floating reference is sunk first).
    init(takingOwnership pointer: UnsafeMutablePointer<GstElement>) {
        // A floating reference becomes the one we own (sinking it keeps the count).
        if g_object_is_floating(UnsafeMutableRawPointer(pointer)) != 0 {
            gst_object_ref_sink(UnsafeMutableRawPointer(pointer))
        }
        self.pointer = pointer
    }

    /// Takes a new reference of its own.
    init(retaining pointer: UnsafeMutablePointer<GstElement>) {
        gst_object_ref(UnsafeMutableRawPointer(pointer))
        self.pointer = pointer
    }

    deinit {
        gst_object_unref(UnsafeMutableRawPointer(pointer))
    }

    /// Creates an element from its factory, e.g. `Element.make("x264enc")`.
    public static func make(_ factory: String, name: String? = nil) throws(GStreamerError) -> Element {
        guard let e = gst_element_factory_make(factory, name) else {
            throw GStreamerError(.missingElement, "the GStreamer element '\(factory)' is not installed (run deploy/install-deps.sh)")
        }
        return Element(takingOwnership: e)
    }

    public var name: String {
        guard let n = gst_object_get_name(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstObject.self)) else { return "" }
        defer { g_free(n) }
        return String(cString: n)
    }

    var object: UnsafeMutableRawPointer { UnsafeMutableRawPointer(pointer) }

    public func hasProperty(_ name: String) -> Bool { fb_has_property(object, name) != 0 }

    /// Sets any property from its string form (enums by nick, flags, numbers, caps).
    public func set(_ property: String, _ value: String) {
        gst_util_set_object_arg(fb_object(object), property, value)
    }
    public func set(_ property: String, _ value: Bool) { fb_set_bool(object, property, value ? 1 : 0) }
    public func set(_ property: String, int value: Int32) { fb_set_int(object, property, value) }
    public func set(_ property: String, uint value: UInt32) { fb_set_uint(object, property, value) }
    public func set(_ property: String, int64 value: Int) { fb_set_int64(object, property, value) }
    public func set(_ property: String, uint64 value: UInt) { fb_set_uint64(object, property, value) }
    public func set(_ property: String, double value: Double) { fb_set_double(object, property, value) }
    public func set(_ property: String, string value: String) { fb_set_string(object, property, value) }
    public func set(_ property: String, caps: Caps) { fb_set_caps(object, property, caps.pointer) }

    /// Makes a video sink that implements `GstVideoOverlay` (ximagesink, xvimagesink, glimagesink)
    /// draw into the native window `handle` (an X11 window id) instead of opening its own. Call it
    /// before the sink opens its window, i.e. before the pipeline starts; a no-op for other elements.
    public func setWindowHandle(_ handle: UInt) {
        guard fb_is_video_overlay(object) != 0 else { return }
        gst_video_overlay_set_window_handle(OpaquePointer(object), guintptr(handle))
    }

    /// A static pad by name (`sink`, `src`).
    public func staticPad(_ name: String) -> Pad? {
        gst_element_get_static_pad(pointer, name).map { Pad(takingOwnership: $0) }
    }

    /// Brings the element to its parent's state (for elements added to a running pipeline).
    @discardableResult
    public func syncStateWithParent() -> Bool { gst_element_sync_state_with_parent(pointer) != 0 }

    /// Calls `handler` for every pad the element adds (demuxers, parsebin, urisourcebin).
    ///
    /// Called on a streaming thread: link pads and add elements there, never change state.
    /// The handler must not capture the element's pipeline strongly.
    public func onPadAdded(_ handler: @escaping @Sendable (Pad) -> Void) {
        connectPadSignal("pad-added", handler)
    }

    /// Calls `handler` for every pad the element removes (an adaptive demuxer's old stream after
    /// it switched variants). Called on the element's thread: never change state there.
    public func onPadRemoved(_ handler: @escaping @Sendable (Pad) -> Void) {
        connectPadSignal("pad-removed", handler)
    }

    private func connectPadSignal(_ signal: String, _ handler: @escaping @Sendable (Pad) -> Void) {
        typealias Handler = @Sendable (Pad) -> Void
        let cb: @convention(c) (UnsafeMutablePointer<GstElement>?, UnsafeMutablePointer<GstPad>?, gpointer?) -> Void = { _, pad, data in
            guard let pad else { return }
            CallbackBox<Handler>.from(data).value(Pad(retaining: pad))
        }
        _ = fb_signal_connect(object, signal, unsafeBitCast(cb, to: GCallback.self),
                              CallbackBox<Handler>(handler).retainedPointer(),
                              { data, _ in CallbackBox<Handler>.release(data) })
    }
}

/// A bin: an element containing elements.
public class Bin: Element, @unchecked Sendable {
    /// A child found by name anywhere inside the bin.
    public func child(named name: String) -> Element? {
        guard let e = gst_bin_get_by_name(fb_bin(object), name) else { return nil }
        return Element(takingOwnership: e)
    }

    public func appSink(named name: String) -> AppSink? {
        guard let e = gst_bin_get_by_name(fb_bin(object), name) else { return nil }
        return AppSink(takingOwnership: e)
    }

    public func appSource(named name: String) -> AppSource? {
        guard let e = gst_bin_get_by_name(fb_bin(object), name) else { return nil }
        return AppSource(takingOwnership: e)
    }

    /// Parses `description` into a bin with ghost pads for its unlinked pads and adds it.
    public func addBranch(_ description: String) throws(GStreamerError) -> Bin {
        var error: UnsafeMutablePointer<GError>?
        guard let e = gst_parse_bin_from_description(description, 1, &error) else {
            throw GStreamerError(.pipelineDescription, "cannot build '\(description)': \(GStreamer.takeMessage(error) ?? "unknown error")")
        }
        if let msg = GStreamer.takeMessage(error) {
            throw GStreamerError(.pipelineDescription, "cannot build '\(description)': \(msg)")
        }
        let bin = Bin(takingOwnership: UnsafeMutableRawPointer(e).assumingMemoryBound(to: GstElement.self))
        gst_bin_add(fb_bin(object), bin.pointer)
        return bin
    }

    /// Adds an element created with `Element.make`.
    public func add(_ element: Element) {
        gst_bin_add(fb_bin(object), element.pointer)
    }
}

/// What a pad probe does with a buffer (`Pad.onBufferFiltering`).
public enum BufferVerdict: Sendable {
    case pass
    case drop
    /// Another buffer goes on in its place.
    case replace(Buffer)
}

/// A pad; owns one reference.
public final class Pad: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<GstPad>

    init(takingOwnership pointer: UnsafeMutablePointer<GstPad>) { self.pointer = pointer }
    init(retaining pointer: UnsafeMutablePointer<GstPad>) {
        gst_object_ref(UnsafeMutableRawPointer(pointer))
        self.pointer = pointer
    }
    deinit { gst_object_unref(UnsafeMutableRawPointer(pointer)) }

    public var name: String {
        guard let n = gst_object_get_name(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstObject.self)) else { return "" }
        defer { g_free(n) }
        return String(cString: n)
    }

    /// The negotiated caps, or what the pad can produce when not yet negotiated.
    public var caps: Caps? {
        if let c = gst_pad_get_current_caps(pointer) { return Caps(takingOwnership: c) }
        return gst_pad_query_caps(pointer, nil).map { Caps(takingOwnership: $0) }
    }

    public var isLinked: Bool { gst_pad_is_linked(pointer) != 0 }

    /// Links this (source) pad to `element`'s sink pad.
    public func link(to element: Element, pad: String = "sink") throws(GStreamerError) {
        guard let sink = element.staticPad(pad) else {
            throw GStreamerError(.pipelineDescription, "\(element.name) has no '\(pad)' pad")
        }
        let r = gst_pad_link(pointer, sink.pointer)
        guard r == GST_PAD_LINK_OK else {
            throw GStreamerError(.pipelineDescription, "cannot link \(name) to \(element.name): \(String(cString: gst_pad_link_get_name(r)))")
        }
    }

    /// Calls `edit` with the bytes of every buffer passing this pad, to change in place (same
    /// length; a shared buffer is copied first), on the streaming thread. Quick, never blocking.
    public func onBufferEditing(_ edit: @escaping @Sendable (UnsafeMutableRawBufferPointer) -> Void) {
        typealias Handler = @Sendable (UnsafeMutableRawBufferPointer) -> Void
        let cb: GstPadProbeCallback = { _, info, data in
            if let info, let buffer = fb_probe_info_writable_buffer(info) {
                var map = GstMapInfo()
                if gst_buffer_map(buffer, &map, GST_MAP_WRITE) != 0 {
                    CallbackBox<Handler>.from(data).value(UnsafeMutableRawBufferPointer(start: map.data, count: Int(map.size)))
                    gst_buffer_unmap(buffer, &map)
                }
            }
            return GST_PAD_PROBE_OK
        }
        _ = fb_pad_add_buffer_probe(pointer, cb, CallbackBox<Handler>(edit).retainedPointer(),
                                    { data in CallbackBox<Handler>.release(data) })
    }

    /// Calls `filter` with every buffer passing this pad (and the pad, for its caps), on the
    /// streaming thread: it lets the buffer pass, drops it, or puts another in its place. Quick,
    /// never blocking. `filter` must not keep the pad (the pad keeps `filter`).
    public func onBufferFiltering(_ filter: @escaping @Sendable (Buffer, Pad) -> BufferVerdict) {
        typealias Handler = @Sendable (Buffer, Pad) -> BufferVerdict
        let cb: GstPadProbeCallback = { pad, info, data in
            guard let pad, let info, let buffer = fb_probe_info_buffer(info) else { return GST_PAD_PROBE_OK }
            switch CallbackBox<Handler>.from(data).value(Buffer(retaining: buffer), Pad(retaining: pad)) {
            case .pass: return GST_PAD_PROBE_OK
            case .drop: return GST_PAD_PROBE_DROP
            case .replace(let other):
                fb_probe_info_replace_buffer(info, gst_buffer_ref(other.pointer))
                return GST_PAD_PROBE_OK
            }
        }
        _ = fb_pad_add_buffer_probe(pointer, cb, CallbackBox<Handler>(filter).retainedPointer(),
                                    { data in CallbackBox<Handler>.release(data) })
    }

    /// Calls `handler` with every buffer passing this pad, on the streaming thread.
    /// The handler must be quick and must not block.
    public func onBuffer(_ handler: @escaping @Sendable (Buffer) -> Void) {
        typealias Handler = @Sendable (Buffer) -> Void
        let cb: GstPadProbeCallback = { _, info, data in
            if let info, let buffer = fb_probe_info_buffer(info) {
                CallbackBox<Handler>.from(data).value(Buffer(retaining: buffer))
            }
            return GST_PAD_PROBE_OK
        }
        _ = fb_pad_add_buffer_probe(pointer, cb, CallbackBox<Handler>(handler).retainedPointer(),
                                    { data in CallbackBox<Handler>.release(data) })
    }
}
