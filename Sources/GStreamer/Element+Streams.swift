import CGStreamer

extension Element {
    /// Stops the element (state NULL). For a branch about to be removed from a running pipeline.
    public func stop() {
        gst_element_set_state(pointer, GST_STATE_NULL)
    }
}

extension Bin {
    /// Stops `element` and takes it out of this bin (a branch no longer needed while the
    /// pipeline plays). Media thread; never from a streaming thread of that branch.
    public func removeStopped(_ element: Element) {
        element.stop()
        gst_bin_remove(fb_bin(object), element.pointer)
    }
}

extension Pad {
    /// Whether what flows out of this pad has a known length: its source answers a duration in
    /// bytes (a file, an HTTP answer with a Content-Length) or in time (a VOD list). False for
    /// a live stream, which has no end to measure.
    public var hasKnownLength: Bool {
        var bytes: gint64 = -1
        if gst_pad_query_duration(pointer, GST_FORMAT_BYTES, &bytes) != 0, bytes > 0 { return true }
        var time: gint64 = -1
        if gst_pad_query_duration(pointer, GST_FORMAT_TIME, &time) != 0, time > 0 { return true }
        return false
    }

    /// The id of the stream flowing through this pad (from its sticky stream-start event), e.g.
    /// `…:1/00000100` for PID 0x100 of program 1 of an MPEG-TS; nil before the stream starts.
    public var streamID: String? {
        guard let id = gst_pad_get_stream_id(pointer) else { return nil }
        defer { g_free(id) }
        return String(cString: id)
    }

    /// Calls `handler` with the string tags of every tag event passing this pad (`language-code`,
    /// `title`, ...), on the streaming thread. The handler must be quick and must not block.
    public func onTags(_ handler: @escaping @Sendable ([String: String]) -> Void) {
        typealias Handler = @Sendable ([String: String]) -> Void
        let cb: GstPadProbeCallback = { _, info, data in
            if let info, let tags = fb_probe_info_tags(info) {
                CallbackBox<Handler>.from(data).value(Pad.strings(of: tags))
            }
            return GST_PAD_PROBE_OK
        }
        _ = fb_pad_add_event_probe(pointer, cb, CallbackBox<Handler>(handler).retainedPointer(),
                                   { data in CallbackBox<Handler>.release(data) })
    }

    /// The tags of `list` that hold a string.
    static func strings(of list: UnsafePointer<GstTagList>) -> [String: String] {
        var result: [String: String] = [:]
        let count = gst_tag_list_n_tags(list)
        guard count > 0 else { return result }
        for i in 0..<count {
            guard let name = gst_tag_list_nth_tag_name(list, UInt32(i)), fb_tag_is_string(name) != 0 else { continue }
            var value: UnsafeMutablePointer<gchar>?
            if gst_tag_list_get_string(list, name, &value) != 0, let value {
                result[String(cString: name)] = String(cString: value)
                g_free(value)
            }
        }
        return result
    }
}
