import CGStreamer

extension Bin {
    /// Every element made by `factory` (e.g. `hlsdemux`) anywhere inside the bin, including
    /// those a `urisourcebin` or `decodebin` plugged by itself.
    public func descendants(factory: String) -> [Element] {
        guard let iterator = gst_bin_iterate_recurse(fb_bin(object)) else { return [] }
        defer { gst_iterator_free(iterator) }
        var found: [Element] = []
        var value = GValue()
        loop: while true {
            switch gst_iterator_next(iterator, &value) {
            case GST_ITERATOR_OK:
                if let raw = g_value_get_object(&value) {
                    let element = raw.assumingMemoryBound(to: GstElement.self)
                    if let made = gst_element_get_factory(element), let name = gst_object_get_name(UnsafeMutableRawPointer(made).assumingMemoryBound(to: GstObject.self)) {
                        if String(cString: name) == factory { found.append(Element(retaining: element)) }
                        g_free(name)
                    }
                }
                g_value_reset(&value)
            case GST_ITERATOR_RESYNC:
                // The bin changed while we looked: start over.
                gst_iterator_resync(iterator)
                found.removeAll()
            default:
                break loop
            }
        }
        g_value_unset(&value)
        return found
    }
}
