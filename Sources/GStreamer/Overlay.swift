import CGStreamer

/// A picture placed on video frames, made once and drawn into many by `VideoFormat.blend`:
/// a BGRA image with straight alpha (a logo, the banner, on-screen text), or an opaque I420
/// frame in a border (another channel's picture, for picture-in-picture).
///
/// An image is prepared for the output's format (I420) when it is made (`OverlayPlanes`), so
/// drawing it touches only the rows and pixels it covers; into frames of other formats it is
/// drawn by GStreamer's blend (`gst_video_overlay_composition_blend`). A frame picture holds the
/// decoded buffer (no copy) and is drawn into I420 frames only.
public final class Overlay: @unchecked Sendable {
    enum Content {
        case image(OverlayPlanes, composition: OpaquePointer)
        case frame(FrameRectangle)
    }

    let content: Content

    /// Places `image` with its top-left corner at (x, y) on the frame, with `opacity` 0...1.
    /// Blocking for a large image (a few milliseconds for the banner): make it off the media thread.
    public init(image: BGRAImage, x: Int, y: Int, opacity: Double = 1.0) {
        // GStreamer's blend takes `255 × opacity`, truncated, as the global alpha.
        let alpha = opacity < 1 ? Int(255.0 * max(0, opacity)) : 255
        content = .image(OverlayPlanes(image: image, x: x, y: y, alpha: alpha),
                         composition: Self.composition(image: image, x: x, y: y, opacity: opacity))
    }

    /// Places `picture`, a frame of `format` (I420), with its `border`-pixel frame of `borderColour`
    /// (r, g, b) starting at (x, y). Position and border are made even (the chroma grid). The
    /// buffer is held, not copied. Cheap: made for every picture of a picture-in-picture window.
    public init(picture: Buffer, format: VideoFormat, x: Int, y: Int, border: Int = 0,
                borderColour: (r: Int, g: Int, b: Int) = (230, 230, 230)) {
        content = .frame(FrameRectangle(picture: picture, format: format, x: x, y: y, border: border, colour: borderColour))
    }

    deinit {
        if case .image(_, let composition) = content { gst_video_overlay_composition_unref(composition) }
    }

    /// The rectangle the picture covers on the frame (before clipping), border included.
    public var rect: (x: Int, y: Int, width: Int, height: Int) {
        switch content {
        case .image(let planes, _): (planes.x, planes.y, planes.width, planes.height)
        case .frame(let frame): (frame.x, frame.y, frame.width, frame.height)
        }
    }

    /// Draws the picture into a mapped frame.
    func draw(into frame: inout GstVideoFrame) {
        switch content {
        case .image(let planes, let composition):
            if let i420 = I420Planes(frame) { planes.draw(into: i420) } else {
                _ = gst_video_overlay_composition_blend(composition, &frame)
            }
        case .frame(let rectangle):
            if let i420 = I420Planes(frame) { rectangle.draw(into: i420) }
        }
    }

    /// GStreamer's own form of an image overlay: one BGRA rectangle.
    static func composition(image: BGRAImage, x: Int, y: Int, opacity: Double) -> OpaquePointer {
        let pixels = Buffer(bytes: image.pixels)
        // GST_VIDEO_OVERLAY_COMPOSITION_FORMAT_RGB is BGRA on little-endian machines.
        gst_buffer_add_video_meta(pixels.pointer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_BGRA,
                                  guint(image.width), guint(image.height))
        let rect = gst_video_overlay_rectangle_new_raw(pixels.pointer, gint(x), gint(y),
                                                       guint(image.width), guint(image.height),
                                                       GST_VIDEO_OVERLAY_FORMAT_FLAG_NONE)!
        if opacity < 1 { gst_video_overlay_rectangle_set_global_alpha(rect, gfloat(max(0, opacity))) }
        let composition = gst_video_overlay_composition_new(rect)!
        gst_video_overlay_rectangle_unref(rect)
        return composition
    }
}

/// The layout of raw video frames of one format, for blending into them.
public final class VideoFormat: @unchecked Sendable {
    private(set) var info = GstVideoInfo()
    public let caps: Caps

    public init(caps: Caps) throws(GStreamerError) {
        self.caps = caps
        guard gst_video_info_from_caps(&info, caps.pointer) != 0 else {
            throw GStreamerError(.pipelineDescription, "not raw video caps: \(caps)")
        }
    }

    public var width: Int { Int(info.width) }
    public var height: Int { Int(info.height) }
    /// Whether `frame` is a frame of this size: its video meta says so, or (without one) it has
    /// the bytes of GStreamer's default layout.
    public func fits(_ frame: Buffer) -> Bool {
        if let meta = gst_buffer_get_video_meta(frame.pointer) {
            return Int(meta.pointee.width) == width && Int(meta.pointee.height) == height
        }
        return frame.size == Int(info.size)
    }

    /// Returns a frame with `overlays` drawn in, in order. The input buffer is not modified
    /// (the result is a private copy when anyone else holds it); only the rows and pixels the
    /// overlays cover are touched. Safe on any thread.
    public func blend(_ overlays: [Overlay], into frame: Buffer) -> Buffer {
        guard !overlays.isEmpty else { return frame }
        return drawing(into: frame) { vframe in
            for o in overlays { o.draw(into: &vframe) }
        }
    }

    /// GStreamer's blend of `image` at (x, y): the reference the prepared drawing is held to.
    func referenceBlend(_ image: BGRAImage, x: Int, y: Int, opacity: Double = 1, into frame: Buffer) -> Buffer {
        let composition = Overlay.composition(image: image, x: x, y: y, opacity: opacity)
        defer { gst_video_overlay_composition_unref(composition) }
        return drawing(into: frame) { vframe in _ = gst_video_overlay_composition_blend(composition, &vframe) }
    }

    /// A writable copy of `frame` (unless nobody else holds it), mapped for `body`.
    private func drawing(into frame: Buffer, _ body: (inout GstVideoFrame) -> Void) -> Buffer {
        let writable = fb_buffer_make_writable(gst_buffer_ref(frame.pointer))!
        var vframe = GstVideoFrame()
        var info = self.info
        let flags = GstMapFlags(rawValue: GST_MAP_READ.rawValue | GST_MAP_WRITE.rawValue)
        if gst_video_frame_map(&vframe, &info, writable, flags) != 0 {
            body(&vframe)
            gst_video_frame_unmap(&vframe)
        }
        return Buffer(takingOwnership: writable)
    }

    /// A frame of one solid colour (for the output before any channel is shown).
    public func solidFrame(r: UInt8, g: UInt8, b: UInt8) throws(GStreamerError) -> Buffer {
        // Filled in place: an array per pixel (`flatMap`) took a debug build most of a second
        // for a 1080p frame, on a thread of the concurrency pool.
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for i in stride(from: 0, to: pixels.count, by: 4) {
            pixels[i] = b
            pixels[i + 1] = g
            pixels[i + 2] = r
        }
        let image = BGRAImage(width: width, height: height, pixels: pixels)
        return try frame(image: image)
    }

    /// A frame of this format showing `image`, scaled to fill it (a full-screen card).
    /// Transparent parts of the image come out black.
    public func frame(image: BGRAImage) throws(GStreamerError) -> Buffer {
        let src = Buffer(bytes: image.pixels)
        let srcCaps = try Caps("video/x-raw,format=BGRA,width=\(image.width),height=\(image.height),framerate=0/1,pixel-aspect-ratio=1/1")
        return try converted(src, caps: srcCaps)
    }

    /// `frame` (of `caps`) converted and scaled to this format; a buffer of its own (the
    /// conversion's pool is not kept alive by it: callers keep these frames, as cards and stills).
    public func converted(_ frame: Buffer, caps: Caps) throws(GStreamerError) -> Buffer {
        let out = try Sample(buffer: frame, caps: caps).converted(to: self.caps)
        guard let buffer = out.buffer else { throw GStreamerError(.encode, "cannot convert a picture to an output frame") }
        return buffer.detached()
    }
}
