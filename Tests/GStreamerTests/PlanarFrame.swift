@testable import GStreamer

/// A planar YUV frame in test memory (I420 or Y444, widths a multiple of 8 so GStreamer's
/// default strides are the widths), made into and read back from buffers.
struct PlanarFrame: Equatable {
    enum Layout: String { case i420 = "I420", y444 = "Y444" }
    let layout: Layout
    let width: Int
    let height: Int
    var y: [UInt8]
    var u: [UInt8]
    var v: [UInt8]

    var chromaWidth: Int { layout == .i420 ? width / 2 : width }
    var chromaHeight: Int { layout == .i420 ? height / 2 : height }

    /// Luma from `luma(x, y)`, chroma from `chroma(cx, cy)` on the layout's chroma grid.
    init(_ layout: Layout, width: Int, height: Int, luma: (Int, Int) -> UInt8, chroma: (Int, Int) -> (UInt8, UInt8)) {
        precondition(width % 8 == 0 && height % 2 == 0)
        self.layout = layout
        self.width = width
        self.height = height
        let cw = layout == .i420 ? width / 2 : width, ch = layout == .i420 ? height / 2 : height
        y = (0..<(width * height)).map { luma($0 % width, $0 / width) }
        let c = (0..<(cw * ch)).map { chroma($0 % cw, $0 / cw) }
        u = c.map(\.0)
        v = c.map(\.1)
    }

    init(_ layout: Layout, width: Int, height: Int, buffer: Buffer) {
        self.layout = layout
        self.width = width
        self.height = height
        let bytes = buffer.bytes()
        let luma = width * height, chroma = layout == .i420 ? luma / 4 : luma
        y = Array(bytes[0..<luma])
        u = Array(bytes[luma..<(luma + chroma)])
        v = Array(bytes[(luma + chroma)..<(luma + 2 * chroma)])
    }

    var buffer: Buffer { Buffer(bytes: y + u + v) }

    var format: VideoFormat {
        get throws { try VideoFormat(caps: try Caps("video/x-raw,format=\(layout.rawValue),width=\(width),height=\(height),framerate=30/1,pixel-aspect-ratio=1/1")) }
    }

    func luma(_ x: Int, _ y: Int) -> UInt8 { self.y[y * width + x] }
    func chroma(_ cx: Int, _ cy: Int) -> (u: UInt8, v: UInt8) { (u[cy * chromaWidth + cx], v[cy * chromaWidth + cx]) }
}

/// A deterministic pseudo-random sequence for test pictures.
struct TestRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(_ bound: Int) -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int((state >> 33) % UInt64(bound))
    }
}
