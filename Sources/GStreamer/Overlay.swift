import CGStreamer

/// A picture placed on video frames (a channel logo, later cards and banners): a
/// `GstVideoOverlayComposition` built once and blended into frames in place.
public final class Overlay: @unchecked Sendable {
    let composition: OpaquePointer

    /// Places `image` with its top-left corner at (x, y) on the frame, with `opacity` 0...1.
    public init(image: BGRAImage, x: Int, y: Int, opacity: Double = 1.0) {
        let pixels = Buffer(bytes: image.pixels)
        // GST_VIDEO_OVERLAY_COMPOSITION_FORMAT_RGB is BGRA on little-endian machines.
        gst_buffer_add_video_meta(pixels.pointer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_BGRA,
                                  guint(image.width), guint(image.height))
        let rect = gst_video_overlay_rectangle_new_raw(pixels.pointer, gint(x), gint(y),
                                                       guint(image.width), guint(image.height),
                                                       GST_VIDEO_OVERLAY_FORMAT_FLAG_NONE)!
        if opacity < 1 { gst_video_overlay_rectangle_set_global_alpha(rect, gfloat(max(0, opacity))) }
        composition = gst_video_overlay_composition_new(rect)
        gst_video_overlay_rectangle_unref(rect)
    }

    deinit { gst_video_overlay_composition_unref(composition) }
}

/// The layout of raw video frames of one format, for blending into them.
public final class VideoFormat: @unchecked Sendable {
    private var info = GstVideoInfo()
    public let caps: Caps

    public init(caps: Caps) throws(GStreamerError) {
        self.caps = caps
        guard gst_video_info_from_caps(&info, caps.pointer) != 0 else {
            throw GStreamerError(code: .pipelineDescription, message: "not raw video caps: \(caps)")
        }
    }

    public var width: Int { Int(info.width) }
    public var height: Int { Int(info.height) }

    /// Returns a frame with `overlays` blended in, in order. The input buffer is not modified
    /// (the result is a private copy when anyone else holds it). Safe on any thread.
    public func blend(_ overlays: [Overlay], into frame: Buffer) -> Buffer {
        guard !overlays.isEmpty else { return frame }
        let writable = fb_buffer_make_writable(gst_buffer_ref(frame.pointer))!
        var vframe = GstVideoFrame()
        var info = self.info
        let flags = GstMapFlags(rawValue: GST_MAP_READ.rawValue | GST_MAP_WRITE.rawValue)
        if gst_video_frame_map(&vframe, &info, writable, flags) != 0 {
            for o in overlays { _ = gst_video_overlay_composition_blend(o.composition, &vframe) }
            gst_video_frame_unmap(&vframe)
        }
        return Buffer(takingOwnership: writable)
    }

    /// A frame of one solid colour (for the output before any channel is shown).
    public func solidFrame(r: UInt8, g: UInt8, b: UInt8) throws(GStreamerError) -> Buffer {
        let image = BGRAImage(width: width, height: height,
                              pixels: [UInt8]((0..<(width * height)).flatMap { _ in [b, g, r, 255] }))
        return try frame(image: image)
    }

    /// A frame of this format showing `image`, scaled to fill it (a full-screen card).
    /// Transparent parts of the image come out black.
    public func frame(image: BGRAImage) throws(GStreamerError) -> Buffer {
        let src = Buffer(bytes: image.pixels)
        let srcCaps = try Caps("video/x-raw,format=BGRA,width=\(image.width),height=\(image.height),framerate=0/1,pixel-aspect-ratio=1/1")
        let out = try Sample(buffer: src, caps: srcCaps).converted(to: caps)
        guard let buffer = out.buffer else { throw GStreamerError(code: .encode, message: "cannot convert a picture to an output frame") }
        return buffer
    }
}
