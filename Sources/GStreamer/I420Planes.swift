import CGStreamer

/// The three planes of a mapped I420 frame (valid while the frame stays mapped).
struct I420Planes {
    let y: UnsafeMutablePointer<UInt8>
    let u: UnsafeMutablePointer<UInt8>
    let v: UnsafeMutablePointer<UInt8>
    let yStride: Int
    let uStride: Int
    let vStride: Int
    let width: Int
    let height: Int

    /// Chroma size: one sample per 2x2 block, the last block of an odd size covering one pixel.
    var chromaWidth: Int { (width + 1) >> 1 }
    var chromaHeight: Int { (height + 1) >> 1 }

    /// The planes of `frame`; nil when it is not I420.
    init?(_ frame: GstVideoFrame) {
        guard frame.info.finfo.pointee.format == GST_VIDEO_FORMAT_I420,
              let y = frame.data.0, let u = frame.data.1, let v = frame.data.2 else { return nil }
        self.y = y.assumingMemoryBound(to: UInt8.self)
        self.u = u.assumingMemoryBound(to: UInt8.self)
        self.v = v.assumingMemoryBound(to: UInt8.self)
        yStride = Int(frame.info.stride.0)
        uStride = Int(frame.info.stride.1)
        vStride = Int(frame.info.stride.2)
        width = Int(frame.info.width)
        height = Int(frame.info.height)
    }
}

/// Limited-range BT.709 from RGB, as GStreamer's own blend converts overlay pictures
/// (`video-blend.c`), so a picture keeps its colours whichever way it is drawn.
enum OverlayColour {
    static func yuv(r: Int, g: Int, b: Int) -> (y: Int, u: Int, v: Int) {
        let y = (47 * r + 157 * g + 16 * b + 4096) >> 8
        let u = (-26 * r - 87 * g + 112 * b + 32768) >> 8
        let v = (112 * r - 102 * g - 10 * b + 32768) >> 8
        return (min(255, max(0, y)), min(255, max(0, u)), min(255, max(0, v)))
    }
}
