import Testing
@testable import GStreamer

/// The prepared I420 drawing against GStreamer's own blend (`gst_video_overlay_composition_blend`),
/// pixel by pixel: luma exactly; chroma as the mean of each 2x2 block of GStreamer's blend into a
/// 4:4:4 frame (GStreamer's I420 blend samples one pixel per block instead), and exactly where
/// the block's four pixels are alike.
@Suite struct OverlayPlanesTests {
    init() throws { try GStreamer.initialize() }

    static let frameWidth = 64, frameHeight = 48

    /// A background with different luma everywhere and chroma changing from block to block.
    static func background(_ layout: PlanarFrame.Layout) -> PlanarFrame {
        // Chroma is given per chroma sample; in 4:4:4 the same value fills each 2x2 block.
        let shift = layout == .i420 ? 0 : 1
        func u(_ bx: Int, _ by: Int) -> UInt8 { UInt8(40 + (bx * 7 + by * 3) % 170) }
        func v(_ bx: Int, _ by: Int) -> UInt8 { UInt8(200 - (bx * 5 + by * 11) % 160) }
        return PlanarFrame(layout, width: frameWidth, height: frameHeight,
                           luma: { x, y in UInt8(16 + (x * 3 + y * 5) % 220) },
                           chroma: { cx, cy in (u(cx >> shift, cy >> shift), v(cx >> shift, cy >> shift)) })
    }

    /// Pixels of every kind: transparent, opaque, partial; saturated and grey colours.
    static func picture(width: Int, height: Int, seed: UInt64) -> BGRAImage {
        var random = TestRandom(seed: seed)
        var pixels: [UInt8] = []
        for _ in 0..<(width * height) {
            let alpha: UInt8 = switch random.next(4) {
            case 0: 0
            case 1: 255
            default: UInt8(random.next(256))
            }
            pixels += [UInt8(random.next(256)), UInt8(random.next(256)), UInt8(random.next(256)), alpha]
        }
        return BGRAImage(width: width, height: height, pixels: pixels)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var x: Int, y: Int, width: Int, height: Int, opacity: Double = 1
        var testDescription: String { "\(width)x\(height) at (\(x), \(y)), opacity \(opacity)" }
    }

    static let cases: [Case] = [
        Case(x: 10, y: 6, width: 16, height: 12),           // even position and size
        Case(x: 7, y: 5, width: 13, height: 9),             // odd position and size: half-covered blocks on every side
        Case(x: 8, y: 3, width: 11, height: 14),            // mixed parity
        Case(x: -3, y: -5, width: 20, height: 15),          // clipped at the top left
        Case(x: 51, y: 37, width: 20, height: 15),          // clipped at the bottom right
        Case(x: 0, y: 0, width: 64, height: 48),            // the whole frame
        Case(x: 21, y: 9, width: 17, height: 10, opacity: 0.6),
        Case(x: 70, y: 10, width: 8, height: 8),            // outside: nothing drawn
    ]

    @Test(arguments: cases)
    func drawsLikeGStreamersBlend(_ c: Case) throws {
        let image = Self.picture(width: c.width, height: c.height, seed: UInt64(bitPattern: Int64(c.x * 1000 + c.y + 77)))
        let i420 = Self.background(.i420), y444 = Self.background(.y444)
        let format = try i420.format, format444 = try y444.format

        let original = i420.buffer
        let drawn = PlanarFrame(.i420, width: i420.width, height: i420.height,
                                buffer: format.blend([Overlay(image: image, x: c.x, y: c.y, opacity: c.opacity)], into: original))
        let reference = PlanarFrame(.i420, width: i420.width, height: i420.height,
                                    buffer: format.referenceBlend(image, x: c.x, y: c.y, opacity: c.opacity, into: i420.buffer))
        let reference444 = PlanarFrame(.y444, width: y444.width, height: y444.height,
                                       buffer: format444.referenceBlend(image, x: c.x, y: c.y, opacity: c.opacity, into: y444.buffer))
        #expect(PlanarFrame(.i420, width: i420.width, height: i420.height, buffer: original) == i420, "the input frame is not modified")

        // Luma: exactly GStreamer's (also untouched outside the picture).
        #expect(drawn.y == reference.y)
        #expect(reference444.y == reference.y)

        func alpha(_ px: Int, _ py: Int) -> Int? {
            let (ix, iy) = (px - c.x, py - c.y)
            guard ix >= 0, iy >= 0, ix < c.width, iy < c.height else { return nil }
            return Int(image.pixels[(iy * c.width + ix) * 4 + 3])
        }
        for cy in 0..<i420.chromaHeight {
            for cx in 0..<i420.chromaWidth {
                let block = [(2 * cx, 2 * cy), (2 * cx + 1, 2 * cy), (2 * cx, 2 * cy + 1), (2 * cx + 1, 2 * cy + 1)]
                let got = drawn.chroma(cx, cy)
                // The mean of the four pixels blended at full chroma resolution.
                let mean = block.reduce((0.0, 0.0)) { sum, p in
                    let q = reference444.chroma(p.0, p.1)
                    return (sum.0 + Double(q.u) / 4, sum.1 + Double(q.v) / 4)
                }
                #expect(abs(Double(got.u) - mean.0) <= 1.5 && abs(Double(got.v) - mean.1) <= 1.5,
                        "chroma block (\(cx), \(cy)): \(got) against the 4:4:4 mean \(mean)")
                let alphas = block.map { alpha($0.0, $0.1) }
                if alphas.allSatisfy({ $0 == nil || $0 == 0 }) {
                    #expect(got == i420.chroma(cx, cy), "block (\(cx), \(cy)) outside the picture or transparent is untouched")
                }
                if alphas.allSatisfy({ $0 == 255 }) {
                    // Fully opaque: GStreamer's I420 blend (one sample per block) is within the block's spread.
                    let colours = block.map { reference444.chroma($0.0, $0.1) }
                    let spread = colours.map { Int($0.u) }.max()! - colours.map { Int($0.u) }.min()!
                    #expect(abs(Int(got.u) - Int(reference.chroma(cx, cy).u)) <= spread + 1)
                }
            }
        }
    }

    /// Alike pixels: a solid colour at several alphas comes out as GStreamer's I420 blend, chroma included.
    @Test(arguments: [0, 1, 128, 209, 254, 255])
    func aSolidColourMatchesGStreamersI420BlendEverywhere(_ alpha: Int) throws {
        let image = BGRAImage(width: 20, height: 14, pixels: [UInt8]((0..<(20 * 14)).flatMap { _ in [0x4a, 0xd5, 0xff, UInt8(alpha)] }))
        let i420 = Self.background(.i420)
        let format = try i420.format
        let drawn = PlanarFrame(.i420, width: 64, height: 48, buffer: format.blend([Overlay(image: image, x: 12, y: 8)], into: i420.buffer))
        let reference = PlanarFrame(.i420, width: 64, height: 48, buffer: format.referenceBlend(image, x: 12, y: 8, into: i420.buffer))
        #expect(drawn.y == reference.y)
        for (a, b) in zip(drawn.u + drawn.v, reference.u + reference.v) { #expect(abs(Int(a) - Int(b)) <= 1) }
        if alpha == 0 { #expect(drawn == i420) }
    }

    /// Frames of another format are drawn by GStreamer's blend.
    @Test func otherFormatsUseGStreamersBlend() throws {
        let image = Self.picture(width: 9, height: 7, seed: 5)
        let y444 = Self.background(.y444)
        let format = try y444.format
        let drawn = format.blend([Overlay(image: image, x: 3, y: 5)], into: y444.buffer)
        let reference = format.referenceBlend(image, x: 3, y: 5, into: y444.buffer)
        #expect(drawn.bytes() == reference.bytes())
    }
}
