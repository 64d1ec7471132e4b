import CGStreamer

/// A picture in memory, 8-bit BGRA (premultiplied: no), rows packed (`width * 4` bytes).
public struct BGRAImage: Sendable, Hashable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The colour at (x, y) as (r, g, b, a).
    public func rgba(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let i = (y * width + x) * 4
        return (pixels[i + 2], pixels[i + 1], pixels[i], pixels[i + 3])
    }

    /// Mean colour over a rectangle, as (r, g, b) in 0...255.
    public func meanRGB(x: Int, y: Int, width w: Int, height h: Int) -> (r: Double, g: Double, b: Double) {
        var r = 0.0, g = 0.0, b = 0.0
        let x0 = max(0, x), y0 = max(0, y), x1 = min(width, x + w), y1 = min(height, y + h)
        guard x1 > x0, y1 > y0 else { return (0, 0, 0) }
        for yy in y0..<y1 {
            for xx in x0..<x1 {
                let c = rgba(x: xx, y: yy)
                r += Double(c.r); g += Double(c.g); b += Double(c.b)
            }
        }
        let n = Double((x1 - x0) * (y1 - y0))
        return (r / n, g / n, b / n)
    }
}

/// Decodes and encodes still pictures with GStreamer (PNG, JPEG, SVG, GIF's first frame).
public enum ImageCodec {
    /// Decodes an image file to BGRA, scaled to fit inside `maxWidth` x `maxHeight` with its
    /// aspect kept (never upscaled beyond the fit box). Blocking; call off the media thread.
    public static func decode(file path: String, maxWidth: Int? = nil, maxHeight: Int? = nil) throws(GStreamerError) -> BGRAImage {
        let pipeline = try Pipeline(description: "filesrc name=src ! decodebin ! videoconvert ! video/x-raw,format=BGRA ! appsink name=sink sync=false max-buffers=1")
        defer { pipeline.shutdown() }
        pipeline.child(named: "src")?.set("location", string: path)
        guard let sink = pipeline.appSink(named: "sink") else { throw GStreamerError(.decode, "internal: no sink") }
        _ = try? pipeline.setState(.paused)
        // Returns as soon as the picture is decoded, or at once when the file cannot be read; the
        // limit only matters on a machine too busy to decode a logo in seconds.
        var timedOut = false
        do { _ = try pipeline.waitForState(timeout: 30 * .second) } catch { timedOut = error.code == .timeout }
        guard let sample = sink.pullPreroll(timeout: 0), let caps = sample.caps,
              let w = caps.int("width"), let h = caps.int("height") else {
            let reason = pipeline.firstError ?? (timedOut ? "not decoded within 30 s (is the machine overloaded?)" : "not a picture GStreamer can decode")
            throw GStreamerError(.decode, "cannot read the image \(path): \(reason)")
        }
        var tw = w, th = h
        if let maxWidth, let maxHeight {
            let scale = min(Double(maxWidth) / Double(w), Double(maxHeight) / Double(h))
            tw = max(1, Int((Double(w) * scale).rounded()))
            th = max(1, Int((Double(h) * scale).rounded()))
        }
        let out: Sample
        if tw == w && th == h {
            out = sample
        } else {
            out = try sample.converted(to: try Caps("video/x-raw,format=BGRA,width=\(tw),height=\(th),pixel-aspect-ratio=1/1"))
        }
        guard let buffer = out.buffer, let oc = out.caps, let ow = oc.int("width"), let oh = oc.int("height") else {
            throw GStreamerError(.decode, "cannot read the image \(path)")
        }
        return BGRAImage(width: ow, height: oh, pixels: packed(buffer: buffer, width: ow, height: oh, caps: oc))
    }

    /// Decodes an encoded picture held in memory (e.g. a PNG snapshot).
    public static func decode(bytes: [UInt8]) throws(GStreamerError) -> BGRAImage {
        let pipeline = try Pipeline(description: "appsrc name=src ! decodebin ! videoconvert ! video/x-raw,format=BGRA ! appsink name=sink sync=false max-buffers=1")
        defer { pipeline.shutdown() }
        guard let src = pipeline.appSource(named: "src"), let sink = pipeline.appSink(named: "sink") else {
            throw GStreamerError(.decode, "internal: no appsrc/appsink")
        }
        _ = try? pipeline.setState(.paused)
        src.push(Buffer(bytes: bytes))
        src.endOfStream()
        guard let sample = sink.pullPreroll(timeout: 5 * .second), let buffer = sample.buffer, let caps = sample.caps,
              let w = caps.int("width"), let h = caps.int("height") else {
            throw GStreamerError(.decode, "cannot decode the picture (\(bytes.count) bytes)")
        }
        return BGRAImage(width: w, height: h, pixels: packed(buffer: buffer, width: w, height: h, caps: caps))
    }

    /// Encodes a raw video frame as PNG, optionally scaled to `width` (height follows the aspect).
    public static func png(frame: Buffer, caps: Caps, width: Int? = nil) throws(GStreamerError) -> [UInt8] {
        try encode(frame: frame, caps: caps, as: "image/png", width: width)
    }

    /// Encodes a raw video frame as `mediaType` (`image/png`, `image/jpeg`), optionally scaled
    /// to `width` with the height following the aspect.
    static func encode(frame: Buffer, caps: Caps, as mediaType: String, width: Int?) throws(GStreamerError) -> [UInt8] {
        var target = mediaType
        if let width, let fw = caps.int("width"), let fh = caps.int("height"), fw > 0 {
            let h = max(2, Int((Double(width) * Double(fh) / Double(fw)).rounded()))
            target += ",width=\(width),height=\(h),pixel-aspect-ratio=1/1"
        }
        let out = try Sample(buffer: frame, caps: caps).converted(to: try Caps(target))
        guard let b = out.buffer else { throw GStreamerError(.encode, "encoding a frame as \(mediaType) produced nothing") }
        return b.bytes()
    }

    /// Copies a BGRA frame into tightly packed rows (GStreamer may pad rows).
    static func packed(buffer: Buffer, width: Int, height: Int, caps: Caps) -> [UInt8] {
        var info = GstVideoInfo()
        let stride = gst_video_info_from_caps(&info, caps.pointer) != 0 ? Int(info.stride.0) : width * 4
        return buffer.withBytes { raw -> [UInt8] in
            if stride == width * 4 { return Array(raw.prefix(width * height * 4)) }
            var out = [UInt8](repeating: 0, count: width * height * 4)
            for row in 0..<height {
                let src = raw[(row * stride)..<(row * stride + width * 4)]
                out.replaceSubrange((row * width * 4)..<((row + 1) * width * 4), with: src)
            }
            return out
        } ?? []
    }
}

