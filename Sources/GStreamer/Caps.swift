import CGStreamer

/// Media capabilities (`video/x-h264, stream-format=byte-stream`); owns one reference. Immutable.
public final class Caps: @unchecked Sendable, CustomStringConvertible, Equatable {
    let pointer: UnsafeMutablePointer<GstCaps>

    init(takingOwnership pointer: UnsafeMutablePointer<GstCaps>) { self.pointer = pointer }
    init(retaining pointer: UnsafeMutablePointer<GstCaps>) {
        self.pointer = gst_caps_ref(pointer)
    }
    deinit { gst_caps_unref(pointer) }

    /// Parses caps from their string form.
    public convenience init(_ description: String) throws(GStreamerError) {
        guard let c = gst_caps_from_string(description) else {
            throw GStreamerError(.pipelineDescription, "malformed caps: \(description)")
        }
        self.init(takingOwnership: c)
    }

    public var description: String {
        guard let s = gst_caps_to_string(pointer) else { return "" }
        defer { g_free(s) }
        return String(cString: s)
    }

    /// The media type of the first structure, e.g. `video/x-h264`.
    public var mediaType: String {
        guard gst_caps_get_size(pointer) > 0, let s = gst_caps_get_structure(pointer, 0) else { return "" }
        return String(cString: gst_structure_get_name(s))
    }

    public func int(_ field: String) -> Int? {
        guard gst_caps_get_size(pointer) > 0, let s = gst_caps_get_structure(pointer, 0) else { return nil }
        var v: gint = 0
        return gst_structure_get_int(s, field, &v) != 0 ? Int(v) : nil
    }

    public func string(_ field: String) -> String? {
        guard gst_caps_get_size(pointer) > 0, let s = gst_caps_get_structure(pointer, 0),
              let v = gst_structure_get_string(s, field) else { return nil }
        return String(cString: v)
    }

    public func fraction(_ field: String) -> (Int, Int)? {
        guard gst_caps_get_size(pointer) > 0, let s = gst_caps_get_structure(pointer, 0) else { return nil }
        var n: gint = 0, d: gint = 0
        return gst_structure_get_fraction(s, field, &n, &d) != 0 ? (Int(n), Int(d)) : nil
    }

    /// These caps with `fields` of `other`'s first structure added where these have none.
    public func adding(_ fields: [String], from other: Caps) -> Caps {
        let copy = gst_caps_copy(pointer)!
        if gst_caps_get_size(copy) > 0, gst_caps_get_size(other.pointer) > 0,
           let mine = gst_caps_get_structure(copy, 0), let theirs = gst_caps_get_structure(other.pointer, 0) {
            for field in fields where gst_structure_has_field(mine, field) == 0 {
                if let value = gst_structure_get_value(theirs, field) { gst_structure_set_value(mine, field, value) }
            }
        }
        return Caps(takingOwnership: copy)
    }

    public static func == (a: Caps, b: Caps) -> Bool { gst_caps_is_equal(a.pointer, b.pointer) != 0 }
}
