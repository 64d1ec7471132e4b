import CGStreamer

/// A buffer with its caps and segment, as an appsink hands it over; owns one reference.
public final class Sample: @unchecked Sendable {
    let pointer: OpaquePointer

    init(takingOwnership pointer: OpaquePointer) { self.pointer = pointer }
    deinit { gst_sample_unref(pointer) }

    /// Makes a sample from a buffer and its caps (e.g. to encode a frame as PNG).
    public convenience init(buffer: Buffer, caps: Caps) {
        self.init(takingOwnership: gst_sample_new(buffer.pointer, caps.pointer, nil, nil))
    }

    public var buffer: Buffer? { gst_sample_get_buffer(pointer).map { Buffer(retaining: $0) } }
    public var caps: Caps? { gst_sample_get_caps(pointer).map { Caps(retaining: $0) } }

    /// Converts a buffer timestamp to running time using the sample's segment (continuous
    /// across segment seeks and loops); `.none` when the time is invalid or outside the segment.
    public func runningTime(_ time: ClockTime) -> ClockTime {
        guard time.isValid, let segment = gst_sample_get_segment(pointer) else { return .none }
        return gst_segment_to_running_time(segment, GST_FORMAT_TIME, time)
    }

    /// Converts a video sample to another format, e.g. `image/png,width=320,height=180`.
    public func converted(to caps: Caps, timeout: ClockTime = 5 * .second) throws(GStreamerError) -> Sample {
        var error: UnsafeMutablePointer<GError>?
        guard let s = gst_video_convert_sample(pointer, caps.pointer, timeout, &error) else {
            throw GStreamerError(.encode, "cannot convert frame to \(caps): \(GStreamer.takeMessage(error) ?? "unknown error")")
        }
        _ = GStreamer.takeMessage(error)
        return Sample(takingOwnership: s)
    }
}
