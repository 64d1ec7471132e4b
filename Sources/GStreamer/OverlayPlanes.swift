/// A straight-alpha BGRA picture prepared once for drawing into I420 frames at (x, y).
///
/// Luma per pixel: `Y·a` and `255 − a`. Chroma per 2x2 block of the frame's chroma grid (so the
/// position's parity is baked in): `Σ U·a`, `Σ V·a` and `1020 − Σ a` over the block's four
/// pixels, those outside the picture counting as transparent; the block's colour is the mean of
/// its four pixels blended one by one. Each row keeps the span of its non-transparent pixels, so
/// drawing touches only those. Colours as GStreamer's blend converts them (BT.709, limited
/// range); luma comes out exactly as `gst_video_blend` makes it.
struct OverlayPlanes: Sendable {
    let x: Int
    let y: Int
    let width: Int
    let height: Int
    private let lumaPremultiplied: [UInt16]
    private let lumaInverseAlpha: [UInt8]
    /// Per luma row: the first and past-the-last column with alpha > 0 (equal: none).
    private let lumaSpans: [Int32]
    /// The chroma grid's first block and size.
    private let chromaX: Int
    private let chromaY: Int
    private let chromaWidth: Int
    private let chromaHeight: Int
    private let chromaU: [UInt32]
    private let chromaV: [UInt32]
    private let chromaInverseAlpha: [UInt16]
    private let chromaSpans: [Int32]

    /// `alpha` 0...255 multiplies every pixel's alpha (a picture's opacity).
    init(image: BGRAImage, x: Int, y: Int, alpha: Int = 255) {
        self.x = x
        self.y = y
        width = image.width
        height = image.height
        let w = image.width, h = image.height
        let cx0 = x >> 1, cy0 = y >> 1
        let cw = w == 0 ? 0 : ((x + w - 1) >> 1) - cx0 + 1
        let ch = h == 0 ? 0 : ((y + h - 1) >> 1) - cy0 + 1
        var ya = [UInt16](repeating: 0, count: w * h)
        var ia = [UInt8](repeating: 255, count: w * h)
        var spans = [Int32](repeating: 0, count: 2 * h)
        var su = [UInt32](repeating: 0, count: cw * ch)
        var sv = [UInt32](repeating: 0, count: cw * ch)
        var sa = [UInt32](repeating: 0, count: cw * ch)
        image.pixels.withUnsafeBufferPointer { px in
            for row in 0..<h {
                var first = w, last = -1
                let cy = ((y + row) >> 1) - cy0
                for col in 0..<w {
                    let p = (row * w + col) * 4
                    var a = Int(px[p + 3])
                    if alpha < 255 { a = a * alpha / 255 }
                    guard a > 0 else { continue }
                    if col < first { first = col }
                    last = col
                    let c = OverlayColour.yuv(r: Int(px[p + 2]), g: Int(px[p + 1]), b: Int(px[p]))
                    ya[row * w + col] = UInt16(c.y * a)
                    ia[row * w + col] = UInt8(255 - a)
                    let ci = cy * cw + ((x + col) >> 1) - cx0
                    su[ci] += UInt32(c.u * a)
                    sv[ci] += UInt32(c.v * a)
                    sa[ci] += UInt32(a)
                }
                if last >= 0 {
                    spans[2 * row] = Int32(first)
                    spans[2 * row + 1] = Int32(last + 1)
                }
            }
        }
        var cspans = [Int32](repeating: 0, count: 2 * ch)
        for row in 0..<ch {
            let base = row * cw
            guard let first = (0..<cw).first(where: { sa[base + $0] > 0 }),
                  let last = (0..<cw).last(where: { sa[base + $0] > 0 }) else { continue }
            cspans[2 * row] = Int32(first)
            cspans[2 * row + 1] = Int32(last + 1)
        }
        chromaX = cx0
        chromaY = cy0
        chromaWidth = cw
        chromaHeight = ch
        lumaPremultiplied = ya
        lumaInverseAlpha = ia
        lumaSpans = spans
        chromaU = su
        chromaV = sv
        chromaInverseAlpha = sa.map { UInt16(1020 - $0) }
        chromaSpans = cspans
    }

    /// Draws the picture into `frame`: only the rows it covers, in each only its span of
    /// non-transparent pixels, clipped to the frame.
    func draw(into frame: I420Planes) {
        lumaPremultiplied.withUnsafeBufferPointer { ya in
            lumaInverseAlpha.withUnsafeBufferPointer { ia in
                Self.forEachSpan(x: x, y: y, width: width, height: height, spans: lumaSpans,
                                 clippedTo: (frame.width, frame.height)) { fy, at, fx, count in
                    Self.blendLuma(frame.y + fy * frame.yStride + fx, premultiplied: ya.baseAddress! + at,
                                   inverseAlpha: ia.baseAddress! + at, count: count)
                }
            }
        }
        chromaU.withUnsafeBufferPointer { su in
            chromaV.withUnsafeBufferPointer { sv in
                chromaInverseAlpha.withUnsafeBufferPointer { ia in
                    Self.forEachSpan(x: chromaX, y: chromaY, width: chromaWidth, height: chromaHeight, spans: chromaSpans,
                                     clippedTo: (frame.chromaWidth, frame.chromaHeight)) { cy, at, cx, count in
                        Self.blendChroma(frame.u + cy * frame.uStride + cx, premultiplied: su.baseAddress! + at,
                                         inverseAlpha: ia.baseAddress! + at, count: count)
                        Self.blendChroma(frame.v + cy * frame.vStride + cx, premultiplied: sv.baseAddress! + at,
                                         inverseAlpha: ia.baseAddress! + at, count: count)
                    }
                }
            }
        }
    }

    /// For each row of a `width` x `height` plane placed at (x, y), its span of pixels to draw
    /// clipped to a plane of `size`: `body(frame row, index in the picture, frame column, count)`.
    @inline(__always)
    private static func forEachSpan(x: Int, y: Int, width: Int, height: Int, spans: [Int32], clippedTo size: (width: Int, height: Int),
                                    _ body: (Int, Int, Int, Int) -> Void) {
        let left = max(0, -x), right = min(width, size.width - x)
        guard left < right else { return }
        for row in max(0, -y)..<max(max(0, -y), min(height, size.height - y)) {
            let c0 = max(Int(spans[2 * row]), left), c1 = min(Int(spans[2 * row + 1]), right)
            if c0 < c1 { body(y + row, row * width + c0, x + c0, c1 - c0) }
        }
    }

    /// `d = (Y·a + d·(255 − a)) / 255`, truncated like GStreamer's blend (`(t + 1 + t >> 8) >> 8`
    /// is `t / 255` for every t up to 255²).
    @inline(__always)
    private static func blendLuma(_ d: UnsafeMutablePointer<UInt8>, premultiplied: UnsafePointer<UInt16>,
                                  inverseAlpha: UnsafePointer<UInt8>, count: Int) {
        for i in 0..<count {
            let t = UInt32(premultiplied[i]) &+ UInt32(d[i]) &* UInt32(inverseAlpha[i])
            d[i] = UInt8(truncatingIfNeeded: (t &+ 1 &+ (t &>> 8)) &>> 8)
        }
    }

    /// `d = (Σ C·a + d·(1020 − Σ a)) / 1020`: the mean of the block's four pixels blended.
    @inline(__always)
    private static func blendChroma(_ d: UnsafeMutablePointer<UInt8>, premultiplied: UnsafePointer<UInt32>,
                                    inverseAlpha: UnsafePointer<UInt16>, count: Int) {
        for i in 0..<count {
            let t = premultiplied[i] &+ UInt32(d[i]) &* UInt32(inverseAlpha[i])
            d[i] = UInt8(truncatingIfNeeded: t / 1020)
        }
    }
}
