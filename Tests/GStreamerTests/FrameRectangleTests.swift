import Testing
@testable import GStreamer

/// Another channel's picture drawn as an opaque I420 rectangle in a border.
@Suite struct FrameRectangleTests {
    init() throws { try GStreamer.initialize() }

    static func picture(width: Int, height: Int) -> PlanarFrame {
        PlanarFrame(.i420, width: width, height: height, luma: { x, y in UInt8((x * 7 + y * 13) % 256) },
                    chroma: { cx, cy in (UInt8((cx * 9 + cy) % 256), UInt8((cx + cy * 17) % 256)) })
    }

    @Test(arguments: [(x: 10, y: 6), (x: 11, y: 7), (x: -6, y: -4), (x: 44, y: 30)])
    func copiesThePictureAndDrawsTheBorder(_ at: (x: Int, y: Int)) throws {
        let inner = Self.picture(width: 24, height: 16)
        let frame = OverlayPlanesTests.background(.i420)
        let format = try frame.format
        let overlay = Overlay(picture: inner.buffer, format: try inner.format, x: at.x, y: at.y, border: 2, borderColour: (230, 230, 230))
        let (x, y) = (at.x & ~1, at.y & ~1)
        #expect(overlay.rect == (x, y, 28, 20))
        let drawn = PlanarFrame(.i420, width: 64, height: 48, buffer: format.blend([overlay], into: frame.buffer))
        // The border as GStreamer's blend draws an opaque rectangle of its colour.
        let solid = BGRAImage(width: 28, height: 20, pixels: [UInt8]((0..<(28 * 20)).flatMap { _ in [230, 230, 230, 255] }))
        let border = PlanarFrame(.i420, width: 64, height: 48, buffer: format.referenceBlend(solid, x: x, y: y, into: frame.buffer))
        for py in 0..<48 {
            for px in 0..<64 {
                let (ix, iy) = (px - x - 2, py - y - 2)
                let insidePicture = ix >= 0 && iy >= 0 && ix < 24 && iy < 16
                let expected = insidePicture ? inner.luma(ix, iy) : border.luma(px, py)
                #expect(drawn.luma(px, py) == expected, "luma at (\(px), \(py))")
                if px % 2 == 0 && py % 2 == 0 {
                    let c = insidePicture ? inner.chroma(ix / 2, iy / 2) : border.chroma(px / 2, py / 2)
                    #expect(drawn.chroma(px / 2, py / 2) == c, "chroma at (\(px), \(py))")
                }
            }
        }
    }
}
