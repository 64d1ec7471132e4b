import Foundation
import Testing
@testable import GStreamer

/// HDR and wide-gamut colours on the output's SDR picture: the colour science at points whose
/// answer is known (BT.2408: PQ and HLG reference white near SDR white, the peak at white, black
/// at black), and the tables that apply it to frames held to that science pixel by pixel.
@Suite struct ColourRemapTests {
    init() throws { try GStreamer.initialize() }

    static let pq = Colorimetry("bt2100-pq", height: 720)
    static let hlg = Colorimetry("bt2100-hlg", height: 720)
    static let bt709 = Colorimetry("bt709", height: 720)

    /// 10-bit limited-range luma of a signal level 0...1.
    static func code(_ signal: Double) -> Int { Int((64 + 876 * signal).rounded()) }

    @Test func pqAndHLGReferenceWhiteComeOutNearSDRWhite() {
        let pq = ColourTransform(source: Self.pq, target: Self.bt709)
        // 203 cd/m², BT.2408's HDR reference white (GStreamer's own remap makes it luma 36).
        let white = pq.convert(y: Self.code(ColourTransform.pqEncode(203)), u: 512, v: 512)
        #expect((205...235).contains(white.y), "PQ reference white: luma \(white.y)")
        #expect(abs(white.u - 128) < 1 && abs(white.v - 128) < 1, "grey stays grey: \(white)")
        // Black stays black; the source's peak (1000 cd/m²) and anything above is white.
        #expect(abs(pq.convert(y: 64, u: 512, v: 512).y - 16) < 0.5)
        for nits in [1000.0, 4000, 10000] {
            let y = pq.convert(y: Self.code(ColourTransform.pqEncode(nits)), u: 512, v: 512).y
            #expect(abs(y - 235) < 1, "\(nits) cd/m²: luma \(y)")
        }
        // Darker than the knee is not compressed: 50 cd/m² is a quarter of white, in light.
        let dim = pq.convert(y: Self.code(ColourTransform.pqEncode(50)), u: 512, v: 512).y
        let expected = 16 + 219 * pow(50 / 203.0, 1 / 2.4)
        #expect(abs(dim - expected) < 1, "50 cd/m²: luma \(dim), expected \(expected)")
        // Brighter in, brighter (or as bright) out, all the way up.
        let ramp = (64...940).map { pq.convert(y: $0, u: 512, v: 512).y }
        #expect(zip(ramp, ramp.dropFirst()).allSatisfy { $0 <= $1 + 1e-9 })

        // HLG: 75 % signal is reference white.
        let hlg = ColourTransform(source: Self.hlg, target: Self.bt709).convert(y: Self.code(0.75), u: 512, v: 512)
        #expect((205...235).contains(hlg.y), "HLG reference white: luma \(hlg.y)")
    }

    /// A master brighter than the 1000 cd/m² assumed keeps more of its highlights: its own peak
    /// goes to white, 1000 cd/m² stays below it, and reference white stays near white.
    @Test func theStreamsOwnPeakGoesToWhite() {
        var bright = Self.pq
        bright.peakLuminance = 4000
        let t = ColourTransform(source: bright, target: Self.bt709)
        func luma(_ nits: Double) -> Double { t.convert(y: Self.code(ColourTransform.pqEncode(nits)), u: 512, v: 512).y }
        #expect(abs(luma(4000) - 235) < 1, "4000 cd/m²: \(luma(4000))")
        #expect((200..<232).contains(luma(1000)), "1000 cd/m² under a 4000 cd/m² peak: \(luma(1000))")
        #expect((195...235).contains(luma(203)), "reference white: \(luma(203))")
        // A peak at or under SDR white needs no roll-off; one over 10000 cd/m² is taken as 10000.
        var dim = Self.pq
        dim.peakLuminance = 150
        #expect(abs(ColourTransform(source: dim, target: Self.bt709).convert(y: Self.code(ColourTransform.pqEncode(203)), u: 512, v: 512).y - 235) < 1)
        var absurd = Self.pq
        absurd.peakLuminance = 50000
        #expect(ColourTransform(source: absurd, target: Self.bt709).peak == 10000)
    }

    /// The peak as a parser puts it in the caps from the stream's SEI: MaxCLL first, else the
    /// mastering display's peak (in 0.0001 cd/m²).
    @Test func thePeakIsReadFromTheCaps() throws {
        let cll = Colorimetry(caps: try Caps("video/x-h265,width=1280,height=720,colorimetry=bt2100-pq,content-light-level=(string)4000:400"))
        #expect(cll.isHDR && cll.peakLuminance == 4000, "\(cll), peak \(String(describing: cll.peakLuminance))")
        let mastering = Colorimetry(caps: try Caps("""
            video/x-h265,width=1280,height=720,colorimetry=bt2100-pq,\
            mastering-display-info=(string)35400:14600:8500:39850:6550:2300:15635:16450:20000000:50
            """))
        #expect(mastering.peakLuminance == 2000, "peak \(String(describing: mastering.peakLuminance))")
        #expect(Colorimetry(caps: try Caps("video/x-h265,width=1280,height=720,colorimetry=bt2100-pq")).peakLuminance == nil)
    }

    /// BT.2020 red is outside BT.709: it comes out as BT.709's most saturated red, not pink or
    /// orange; an SDR BT.2020 grey keeps its level.
    @Test func wideGamutColoursMapIntoTheOutputsGamut() {
        // Pure BT.2020 red at reference white, as R'G'B' (0.58, 0, 0) in the BT.2020 matrix.
        let r = ColourTransform.pqEncode(203)
        let (kr, kb) = (0.2627, 0.0593)
        let y = kr * r, cb = -y / (2 * (1 - kb)), cr = (r - y) / (2 * (1 - kr))
        let red = ColourTransform(source: Self.pq, target: Self.bt709)
            .convert(y: Self.code(y), u: Int((512 + 896 * cb).rounded()), v: Int((512 + 896 * cr).rounded()))
        let back = ColourTransform.rgb(y: (red.y - 16) / 219, cb: (red.u - 128) / 224, cr: (red.v - 128) / 224, matrix: (0.2126, 0.0722))
        #expect(back.x > 0.8 && back.y < 0.05 && back.z < 0.05, "BT.2020 red shows as red: R'G'B' \(back)")

        let sdr2020 = Colorimetry("bt2020", height: 2160)
        let grey = ColourTransform(source: sdr2020, target: Self.bt709).convert(y: 502, u: 512, v: 512)
        #expect(abs(grey.y - (16 + 219 * 0.5)) < 0.6 && abs(grey.u - 128) < 0.6, "SDR BT.2020 grey: \(grey)")
    }

    /// One `videotestsrc` picture as 10-bit 4:2:0 in `colorimetry`.
    static func picture(_ pattern: String, colorimetry: String, width: Int, height: Int) throws -> (Buffer, Caps) {
        let p = try Pipeline(description: """
            videotestsrc num-buffers=1 pattern=\(pattern) ! \
            video/x-raw,format=I420_10LE,width=\(width),height=\(height),colorimetry=\(colorimetry) ! appsink name=raw sync=false
            """)
        defer { p.shutdown() }
        try p.setState(.playing)
        let sample = try #require(p.appSink(named: "raw")?.pullSample(timeout: 10 * .second))
        return (try #require(sample.buffer), try #require(sample.caps))
    }

    /// The tables against the transform computed for every pixel (luma at the block's chroma;
    /// chroma at the block's mean luma), on pictures with every hue, sharp edges and fine detail.
    /// Rounding twice (the table, then its interpolation) puts many pixels one code off. The
    /// `colors` pattern also holds colours no camera makes (luma 0 under saturated chroma), where
    /// clipping bends the transform between the table's points: a few codes in its tail.
    @Test(arguments: [("smpte", "bt2100-pq", 2, 4), ("pinwheel", "bt2100-pq", 2, 4), ("gamut", "bt2020", 2, 4),
                      ("colors", "bt2100-pq", 6, 32), ("colors", "bt2100-hlg", 6, 32)])
    func framesFollowTheTransformPixelByPixel(pattern: String, colorimetry: String, tail: Int, most: Int) throws {
        let (width, height) = (320, 184)
        let (frame, caps) = try Self.picture(pattern, colorimetry: colorimetry, width: width, height: height)
        let source = Colorimetry(colorimetry, height: height)
        let remap = ColourRemap.shared(from: source, to: Self.bt709)
        let out = try #require(remap.remapped(frame, caps: caps)).bytes()
        let transform = ColourTransform(source: source, target: Self.bt709)
        let raw = frame.bytes()
        func sample(_ i: Int) -> Int { Int(raw[2 * i]) | Int(raw[2 * i + 1]) << 8 }
        let (cw, ch) = (width / 2, height / 2)
        var lumaErrors: [Double] = [], chromaErrors: [Double] = []
        for by in 0..<ch {
            for bx in 0..<cw {
                let u = sample(width * height + by * cw + bx), v = sample(width * height + cw * ch + by * cw + bx)
                let pixels = [(0, 0), (1, 0), (0, 1), (1, 1)].map { (2 * bx + $0.0) + (2 * by + $0.1) * width }
                let ys = pixels.map { sample($0) }
                for (p, y) in zip(pixels, ys) {
                    lumaErrors.append(abs(Double(out[p]) - transform.convert(y: y, u: u, v: v).y.rounded()))
                }
                let mean = transform.convert(y: ys.reduce(0, +) / 4, u: u, v: v)
                let i = by * cw + bx
                chromaErrors.append(abs(Double(out[width * height + i]) - mean.u.rounded()))
                chromaErrors.append(abs(Double(out[width * height + cw * ch + i]) - mean.v.rounded()))
            }
        }
        for (plane, errors) in [("luma", lumaErrors), ("chroma", chromaErrors)] {
            let sorted = errors.sorted(), average = errors.reduce(0, +) / Double(errors.count)
            let p99 = sorted[sorted.count * 99 / 100], worst = sorted.last ?? 0
            #expect(average < 0.7 && p99 <= Double(tail) && worst <= Double(most),
                    "\(pattern) in \(colorimetry): \(plane) differs from the transform by \(average) on average, \(p99) at the 99th percentile, \(worst) at most")
        }
    }

    /// Odd sizes: the last column and row share their block with no neighbour.
    @Test func remapsAFrameOfOddSize() throws {
        let remap = ColourRemap.shared(from: Self.pq, to: Self.bt709)
        let caps = try Caps("video/x-raw,format=I420_10LE,width=7,height=5,colorimetry=bt2100-pq")
        let size = Int(try VideoFormat(caps: caps).info.size)
        // Every sample (padding too) code 512: a mid-grey luma, neutral chroma.
        let bytes = (0..<(size / 2)).flatMap { _ in [UInt8(0), UInt8(2)] }
        let out = try #require(remap.remapped(Buffer(bytes: bytes), caps: caps)).bytes()
        // I420 7x5 in GStreamer's default layout: rows of 8 luma bytes (6 rows' room), then 3
        // chroma rows of 4 per plane.
        #expect(out.count == 8 * 6 + 2 * 4 * 3)
        let luma = Set((0..<5).flatMap { row in out[(row * 8)..<(row * 8 + 7)] }), chroma = out[48...]
        let expected = ColourTransform(source: Self.pq, target: Self.bt709).convert(y: 512, u: 512, v: 512)
        #expect(luma == [UInt8(expected.y.rounded())] && chroma.allSatisfy { abs(Int($0) - 128) <= 1 },
                "grey stays one grey: \(luma), \(Array(chroma)); expected luma \(expected.y)")
    }

    @Test func refusesOtherFormats() throws {
        let remap = ColourRemap.shared(from: Self.pq, to: Self.bt709)
        let caps = try Caps("video/x-raw,format=I420,width=8,height=8")
        #expect(remap.remapped(Buffer(bytes: [UInt8](repeating: 0, count: 96)), caps: caps) == nil)
    }
}
