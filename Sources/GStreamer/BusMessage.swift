import CGStreamer

/// A bus message, as Swift sees it. Errors and end-of-stream are never dropped.
public enum BusMessage: Sendable, CustomStringConvertible {
    /// An element failed. `message` is GStreamer's human text, `debug` its internals (for logs only).
    case error(source: String, message: String, debug: String?)
    case warning(source: String, message: String, debug: String?)
    case endOfStream
    /// A segment seek finished (used to loop files seamlessly).
    case segmentDone
    /// The pipeline itself changed state.
    case stateChanged(old: State, new: State)
    case asyncDone
    /// Buffering percentage (network sources).
    case buffering(percent: Int)
    /// An element message, e.g. `GstUDPSrcTimeout`.
    case element(source: String, name: String)
    /// An HTTP source's response (`souphttpsrc` posts it before any error for the status):
    /// the status and the response's headers, names in lower case (at most
    /// `HTTPResponseHeaders.maxFields`, values cut to `maxValueBytes`).
    case httpHeaders(source: String, status: Int, headers: [String: String])
    /// The pipeline's latency changed; call `recalculateLatency()`.
    case latency
    /// A demuxer says which streams its input holds (`GstStreamCollection`): how many of each kind.
    case streamCollection(video: Int, audio: Int, other: Int)

    public var description: String {
        switch self {
        case .error(let s, let m, _): "error from \(s): \(m)"
        case .warning(let s, let m, _): "warning from \(s): \(m)"
        case .endOfStream: "end of stream"
        case .segmentDone: "segment done"
        case .stateChanged(let o, let n): "state \(o) -> \(n)"
        case .asyncDone: "async done"
        case .buffering(let p): "buffering \(p)%"
        case .element(let s, let n): "\(n) from \(s)"
        case .httpHeaders(let s, let status, _): "HTTP \(status) from \(s)"
        case .latency: "latency"
        case .streamCollection(let v, let a, let o): "streams: \(v) video, \(a) audio, \(o) other"
        }
    }

    /// Converts a message; nil for the kinds Flipbox does not use.
    init?(_ m: UnsafeMutablePointer<GstMessage>, pipeline: UnsafeMutableRawPointer) {
        let src = fb_message_src(m)
        let sourceName = fb_object_name(src).map { String(cString: $0) } ?? "?"
        switch fb_message_type(m) {
        case GST_MESSAGE_ERROR, GST_MESSAGE_WARNING:
            var err: UnsafeMutablePointer<GError>?
            var debug: UnsafeMutablePointer<gchar>?
            let isError = fb_message_type(m) == GST_MESSAGE_ERROR
            if isError { gst_message_parse_error(m, &err, &debug) } else { gst_message_parse_warning(m, &err, &debug) }
            let text = GStreamer.takeMessage(err) ?? "unknown error"
            let dbg = debug.map { String(cString: $0) }
            g_free(debug)
            self = isError ? .error(source: sourceName, message: text, debug: dbg) : .warning(source: sourceName, message: text, debug: dbg)
        case GST_MESSAGE_EOS:
            self = .endOfStream
        case GST_MESSAGE_SEGMENT_DONE:
            self = .segmentDone
        case GST_MESSAGE_ASYNC_DONE:
            self = .asyncDone
        case GST_MESSAGE_LATENCY:
            self = .latency
        case GST_MESSAGE_BUFFERING:
            var p: gint = 0
            gst_message_parse_buffering(m, &p)
            self = .buffering(percent: Int(p))
        case GST_MESSAGE_STATE_CHANGED:
            guard UnsafeMutableRawPointer(src) == pipeline else { return nil }
            var old = GST_STATE_NULL, new = GST_STATE_NULL, pending = GST_STATE_NULL
            gst_message_parse_state_changed(m, &old, &new, &pending)
            self = .stateChanged(old: State(old), new: State(new))
        case GST_MESSAGE_STREAM_COLLECTION:
            var collection: UnsafeMutablePointer<GstStreamCollection>?
            gst_message_parse_stream_collection(m, &collection)
            guard let collection else { return nil }
            defer { gst_object_unref(UnsafeMutableRawPointer(collection)) }
            var video = 0, audio = 0, other = 0
            for i in 0..<gst_stream_collection_get_size(collection) {
                guard let stream = gst_stream_collection_get_stream(collection, i) else { continue }
                let type = gst_stream_get_stream_type(stream).rawValue
                if type & GST_STREAM_TYPE_VIDEO.rawValue != 0 { video += 1 } else if type & GST_STREAM_TYPE_AUDIO.rawValue != 0 { audio += 1 } else { other += 1 }
            }
            self = .streamCollection(video: video, audio: audio, other: other)
        case GST_MESSAGE_ELEMENT:
            guard let s = gst_message_get_structure(m) else { return nil }
            let name = String(cString: gst_structure_get_name(s))
            if name == "http-headers" {
                var status: guint = 0
                _ = gst_structure_get_uint(s, "http-status-code", &status)
                self = .httpHeaders(source: sourceName, status: Int(clamping: status), headers: HTTPResponseHeaders.read(s))
            } else {
                self = .element(source: sourceName, name: name)
            }
        default:
            return nil
        }
    }
}

/// Element states.
public enum State: Sendable, CustomStringConvertible {
    case null, ready, paused, playing

    init(_ s: GstState) {
        switch s {
        case GST_STATE_READY: self = .ready
        case GST_STATE_PAUSED: self = .paused
        case GST_STATE_PLAYING: self = .playing
        default: self = .null
        }
    }

    var gst: GstState {
        switch self {
        case .null: GST_STATE_NULL
        case .ready: GST_STATE_READY
        case .paused: GST_STATE_PAUSED
        case .playing: GST_STATE_PLAYING
        }
    }

    public var description: String {
        switch self {
        case .null: "NULL"
        case .ready: "READY"
        case .paused: "PAUSED"
        case .playing: "PLAYING"
        }
    }
}

/// The outcome of `setState`: `async` and `noPreroll` are successes with a meaning.
public enum StateChange: Sendable {
    case success, async, noPreroll
}

/// The response headers of an `http-headers` element message, bounded: a server chooses them.
enum HTTPResponseHeaders {
    static let maxFields = 64
    static let maxValueBytes = 512

    static func read(_ message: UnsafePointer<GstStructure>) -> [String: String] {
        var nested: UnsafeMutablePointer<GstStructure>?
        guard fb_structure_get_structure(message, "response-headers", &nested) != 0, let nested else { return [:] }
        defer { gst_structure_free(nested) }
        var headers: [String: String] = [:]
        let count = min(Int(gst_structure_n_fields(nested)), maxFields)
        for i in 0..<count {
            guard let field = gst_structure_nth_field_name(nested, guint(i)),
                  let value = gst_structure_get_string(nested, field) else { continue }
            headers[String(cString: field).lowercased()] = String(String(cString: value).utf8.prefix(maxValueBytes)) ?? ""
        }
        return headers
    }
}
