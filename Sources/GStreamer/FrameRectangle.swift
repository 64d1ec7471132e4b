import CGStreamer

/// An opaque I420 picture (a decoded frame of another channel, at its window's size) drawn into
/// I420 frames at (x, y) inside a solid border: rows copied, no conversion, no blending.
///
/// Positions and the border are even, so the picture's chroma lands on the frame's chroma grid.
struct FrameRectangle: @unchecked Sendable {
    /// The outer rectangle, border included.
    let x: Int
    let y: Int
    let width: Int
    let height: Int
    let border: Int
    private let picture: Buffer
    private let info: GstVideoInfo
    private let borderColour: (y: UInt8, u: UInt8, v: UInt8)

    /// `picture` is a frame of `format` (I420); (x, y) and `border` are rounded down and up to even.
    init(picture: Buffer, format: VideoFormat, x: Int, y: Int, border: Int, colour: (r: Int, g: Int, b: Int)) {
        self.picture = picture
        info = format.info
        self.border = (max(0, border) + 1) & ~1
        self.x = x & ~1
        self.y = y & ~1
        width = format.width + 2 * self.border
        height = format.height + 2 * self.border
        let c = OverlayColour.yuv(r: colour.r, g: colour.g, b: colour.b)
        borderColour = (UInt8(c.y), UInt8(c.u), UInt8(c.v))
    }

    /// Draws the border and copies the picture's rows into `frame`, clipped to it.
    func draw(into frame: I420Planes) {
        fill(frame, x: x, y: y, width: width, height: height)
        var info = self.info
        var source = GstVideoFrame()
        guard gst_video_frame_map(&source, &info, picture.pointer, GST_MAP_READ) != 0 else { return }
        defer { gst_video_frame_unmap(&source) }
        guard let pixels = I420Planes(source) else { return }
        let px = x + border, py = y + border
        copy(pixels.y, stride: pixels.yStride, width: pixels.width, height: pixels.height,
             to: frame.y, stride: frame.yStride, frameWidth: frame.width, frameHeight: frame.height, x: px, y: py)
        let (cw, ch) = (pixels.chromaWidth, pixels.chromaHeight)
        copy(pixels.u, stride: pixels.uStride, width: cw, height: ch,
             to: frame.u, stride: frame.uStride, frameWidth: frame.chromaWidth, frameHeight: frame.chromaHeight, x: px >> 1, y: py >> 1)
        copy(pixels.v, stride: pixels.vStride, width: cw, height: ch,
             to: frame.v, stride: frame.vStride, frameWidth: frame.chromaWidth, frameHeight: frame.chromaHeight, x: px >> 1, y: py >> 1)
    }

    /// Fills the border's rectangle with its colour (the picture covers the inside afterwards).
    private func fill(_ frame: I420Planes, x: Int, y: Int, width: Int, height: Int) {
        guard border > 0 else { return }
        func plane(_ base: UnsafeMutablePointer<UInt8>, stride: Int, fw: Int, fh: Int, x: Int, y: Int, w: Int, h: Int, value: UInt8) {
            let x0 = max(0, x), x1 = min(fw, x + w)
            guard x0 < x1 else { return }
            for row in max(0, y)..<max(max(0, y), min(fh, y + h)) {
                (base + row * stride + x0).update(repeating: value, count: x1 - x0)
            }
        }
        plane(frame.y, stride: frame.yStride, fw: frame.width, fh: frame.height, x: x, y: y, w: width, h: height, value: borderColour.y)
        plane(frame.u, stride: frame.uStride, fw: frame.chromaWidth, fh: frame.chromaHeight,
              x: x >> 1, y: y >> 1, w: width >> 1, h: height >> 1, value: borderColour.u)
        plane(frame.v, stride: frame.vStride, fw: frame.chromaWidth, fh: frame.chromaHeight,
              x: x >> 1, y: y >> 1, w: width >> 1, h: height >> 1, value: borderColour.v)
    }

    /// Copies a `width` x `height` plane to (x, y) of a plane `frameWidth` x `frameHeight`, clipped.
    private func copy(_ source: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int,
                      to dest: UnsafeMutablePointer<UInt8>, stride destStride: Int, frameWidth: Int, frameHeight: Int, x: Int, y: Int) {
        let c0 = max(0, -x), c1 = min(width, frameWidth - x)
        guard c0 < c1 else { return }
        for row in max(0, -y)..<max(max(0, -y), min(height, frameHeight - y)) {
            (dest + (y + row) * destStride + x + c0).update(from: source + row * stride + c0, count: c1 - c0)
        }
    }
}
