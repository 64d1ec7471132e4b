extension ImageCodec {
    /// Encodes a raw video frame as JPEG (GStreamer's `jpegenc`), optionally scaled to `width`
    /// (height follows the aspect). Blocking for a few milliseconds; call off the media thread.
    public static func jpeg(frame: Buffer, caps: Caps, width: Int? = nil) throws(GStreamerError) -> [UInt8] {
        try encode(frame: frame, caps: caps, as: "image/jpeg", width: width)
    }

    /// Encodes a picture in memory as JPEG (the alpha channel is dropped).
    public static func jpeg(image: BGRAImage) throws(GStreamerError) -> [UInt8] {
        let caps = try Caps("video/x-raw,format=BGRA,width=\(image.width),height=\(image.height),framerate=0/1,pixel-aspect-ratio=1/1")
        return try jpeg(frame: Buffer(bytes: image.pixels), caps: caps)
    }

    /// Encodes a picture in memory as PNG (alpha kept).
    public static func png(image: BGRAImage) throws(GStreamerError) -> [UInt8] {
        let caps = try Caps("video/x-raw,format=BGRA,width=\(image.width),height=\(image.height),framerate=0/1,pixel-aspect-ratio=1/1")
        return try png(frame: Buffer(bytes: image.pixels), caps: caps)
    }

    /// True when `bytes` start like a JPEG file (the SOI marker `FF D8 FF`).
    public static func isJPEG(_ bytes: [UInt8]) -> Bool {
        bytes.count > 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF
    }
}
