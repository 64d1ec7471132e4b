import Foundation

/// How a colour of a wide-gamut or HDR stream looks on the output's SDR picture: 10-bit Y'CbCr
/// of the source in, 8-bit Y'CbCr of the output out (unrounded code values).
///
/// The steps, in the order of ITU-R BT.2390 and BT.2408 (and of what mpv and Kodi do):
/// 1. Y'CbCr to R'G'B' with the source's matrix and range.
/// 2. R'G'B' to display light in cd/m²: PQ (SMPTE ST 2084) as it is; HLG through its inverse
///    OETF and the OOTF of a 1000 cd/m² display (system gamma 1.2); an SDR source through
///    BT.1886 (gamma 2.4), relative to its white.
/// 3. HDR only: the BT.2390 EETF (a roll-off in the PQ domain) brings the source's peak (its
///    `peakLuminance`, else 1000 cd/m²) down to the SDR white of 203 cd/m² (BT.2408's reference
///    white), applied to the largest of the three components so hues stay; light below the knee
///    (about 90 cd/m² for a 1000 cd/m² source) is left as it is.
/// 4. The source's primaries to the output's, in linear light (BT.2020 to BT.709), clipped.
/// 5. Encoded for a BT.1886 display (gamma 1/2.4), to the output's matrix, limited range.
///
/// GStreamer 1.22's `videoconvert` has no tone mapping: it treats 10000 cd/m² as white, so a
/// PQ picture's reference white comes out at luma 36 of 255, nearly black.
struct ColourTransform: Sendable {
    /// SDR white in cd/m² (BT.2408).
    static let sdrWhite = 203.0

    enum Transfer: Sendable { case pq, hlg, sdr }

    let transfer: Transfer
    let sourceMatrix: (kr: Double, kb: Double)
    let targetMatrix: (kr: Double, kb: Double)
    let sourceFullRange: Bool
    let targetFullRange: Bool
    /// Linear source RGB to linear target RGB: the columns of the matrix.
    let primaries: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)
    /// The source's peak in cd/m² (HDR).
    let peak: Double
    /// The EETF's constants, in the PQ domain normalised to the source's peak.
    private let peakPQ: Double
    private let maxLum: Double
    private let knee: Double

    /// The peak taken when the stream does not say: what most HDR10 programmes are mastered to.
    static let assumedPeak = 1000.0

    init(source: Colorimetry, target: Colorimetry) {
        transfer = source.transfer == 16 ? .pq : source.transfer == 18 ? .hlg : .sdr
        sourceMatrix = Self.matrix(source.matrix)
        targetMatrix = Self.matrix(target.matrix)
        sourceFullRange = source.fullRange
        targetFullRange = target.fullRange
        let p = Self.conversion(from: source.primaries, to: target.primaries)
        primaries = (SIMD3(p[0], p[3], p[6]), SIMD3(p[1], p[4], p[7]), SIMD3(p[2], p[5], p[8]))
        // HLG is shown as on a 1000 cd/m² display, whatever it was mastered on.
        peak = transfer == .hlg ? 1000 : min(10000, max(source.peakLuminance ?? Self.assumedPeak, Self.sdrWhite))
        peakPQ = Self.pqEncode(self.peak)
        maxLum = Self.pqEncode(Self.sdrWhite) / peakPQ
        knee = 1.5 * maxLum - 0.5
    }

    /// The output colour of a source colour given as 10-bit code values.
    func convert(y: Int, u: Int, v: Int) -> (y: Double, u: Double, v: Double) {
        // 1. Y'CbCr to R'G'B' (0...1).
        let (yn, cb, cr) = sourceFullRange
            ? (Double(y) / 1023, (Double(u) - 512) / 1023, (Double(v) - 512) / 1023)
            : ((Double(y) - 64) / 876, (Double(u) - 512) / 896, (Double(v) - 512) / 896)
        let signal = Self.rgb(y: yn, cb: cb, cr: cr, matrix: sourceMatrix).clamped(lowerBound: .zero, upperBound: .one)
        // 2-3. Display light relative to SDR white.
        var rgb: SIMD3<Double>
        switch transfer {
        case .sdr:
            rgb = SIMD3(pow(signal.x, 2.4), pow(signal.y, 2.4), pow(signal.z, 2.4))
        case .pq:
            rgb = toneMapped(SIMD3(Self.pqDecode(signal.x), Self.pqDecode(signal.y), Self.pqDecode(signal.z)))
        case .hlg:
            let scene = SIMD3(Self.hlgDecode(signal.x), Self.hlgDecode(signal.y), Self.hlgDecode(signal.z))
            let ys = (scene * SIMD3(0.2627, 0.6780, 0.0593)).sum()
            rgb = toneMapped(scene * (1000 * pow(max(ys, 1e-9), 0.2)))
        }
        // 4. Primaries, clipped to the output's gamut.
        let linear = (primaries.0 * rgb.x + primaries.1 * rgb.y + primaries.2 * rgb.z)
            .clamped(lowerBound: .zero, upperBound: .one)
        // 5. Encoded and back to Y'CbCr.
        let e = SIMD3(pow(linear.x, 1 / 2.4), pow(linear.y, 1 / 2.4), pow(linear.z, 1 / 2.4))
        let (kr, kb) = targetMatrix
        let yo = kr * e.x + (1 - kr - kb) * e.y + kb * e.z
        let pb = (e.z - yo) / (2 * (1 - kb)), pr = (e.x - yo) / (2 * (1 - kr))
        return targetFullRange
            ? (yo * 255, 128 + pb * 255, 128 + pr * 255)
            : (16 + yo * 219, 128 + pb * 224, 128 + pr * 224)
    }

    /// Light in cd/m² to light relative to SDR white, the peak rolled off to it.
    private func toneMapped(_ nits: SIMD3<Double>) -> SIMD3<Double> {
        let m = nits.max()
        guard m > 0 else { return .zero }
        var mapped = m
        if peak > Self.sdrWhite {
            let e1 = min(1, Self.pqEncode(m) / peakPQ)
            if e1 > knee {
                let t = (e1 - knee) / (1 - knee), t2 = t * t, t3 = t2 * t
                let e2 = (2 * t3 - 3 * t2 + 1) * knee + (t3 - 2 * t2 + t) * (1 - knee) + (-2 * t3 + 3 * t2) * maxLum
                mapped = Self.pqDecode(e2 * peakPQ)
            }
        }
        return nits * (mapped / m / Self.sdrWhite)
    }

    // MARK: Transfer functions

    private static let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
    private static let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32

    /// PQ signal (0...1) to cd/m².
    static func pqDecode(_ e: Double) -> Double {
        let p = pow(max(e, 0), 1 / m2)
        return 10000 * pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
    }

    /// cd/m² to PQ signal.
    static func pqEncode(_ nits: Double) -> Double {
        let y = pow(max(nits, 0) / 10000, m1)
        return pow((c1 + c2 * y) / (1 + c3 * y), m2)
    }

    /// HLG signal (0...1) to scene light (0...1).
    static func hlgDecode(_ e: Double) -> Double {
        let a = 0.17883277, b = 0.28466892, c = 0.55991073
        return e <= 0.5 ? e * e / 3 : (exp((e - c) / a) + b) / 12
    }

    // MARK: Matrices and primaries

    /// Kr and Kb of an ISO/IEC 23001-8 matrix code (BT.709 for the unknown).
    static func matrix(_ code: Int) -> (kr: Double, kb: Double) {
        switch code {
        case 5, 6: (0.299, 0.114)
        case 9, 10: (0.2627, 0.0593)
        case 7: (0.212, 0.087)
        default: (0.2126, 0.0722)
        }
    }

    static func rgb(y: Double, cb: Double, cr: Double, matrix: (kr: Double, kb: Double)) -> SIMD3<Double> {
        let (kr, kb) = matrix, kg = 1 - kr - kb
        let r = y + 2 * (1 - kr) * cr, b = y + 2 * (1 - kb) * cb
        return SIMD3(r, (y - kr * r - kb * b) / kg, b)
    }

    /// The chromaticities (x, y) of red, green and blue of an ISO/IEC 23001-8 primaries code
    /// (BT.709 for the unknown).
    static func chromaticities(_ code: Int) -> [(Double, Double)] {
        switch code {
        case 5: [(0.64, 0.33), (0.29, 0.60), (0.15, 0.06)]
        case 6, 7: [(0.630, 0.340), (0.310, 0.595), (0.155, 0.070)]
        case 9: [(0.708, 0.292), (0.170, 0.797), (0.131, 0.046)]
        default: [(0.64, 0.33), (0.30, 0.60), (0.15, 0.06)]
        }
    }

    /// Linear RGB to XYZ for primaries `code`, white D65 (SMPTE RP 177).
    static func toXYZ(_ code: Int) -> [Double] {
        let xyz = chromaticities(code).map { x, y in [x / y, 1, (1 - x - y) / y] }
        let columns = [xyz[0][0], xyz[1][0], xyz[2][0], xyz[0][1], xyz[1][1], xyz[2][1], xyz[0][2], xyz[1][2], xyz[2][2]]
        let white = [0.3127 / 0.3290, 1, (1 - 0.3127 - 0.3290) / 0.3290]
        let s = multiply(inverse(columns), white)
        return (0..<9).map { columns[$0] * s[$0 % 3] }
    }

    /// Linear RGB in primaries `source` to linear RGB in `target`.
    static func conversion(from source: Int, to target: Int) -> [Double] {
        let canonical = { (code: Int) -> Int in code == 1 || code == 5 || code == 6 || code == 7 || code == 9 ? code : 1 }
        let (s, t) = (canonical(source), canonical(target))
        guard s != t else { return [1, 0, 0, 0, 1, 0, 0, 0, 1] }
        let a = inverse(toXYZ(t)), b = toXYZ(s)
        var product = [Double](repeating: 0, count: 9)
        for row in 0..<3 {
            for column in 0..<3 {
                for k in 0..<3 { product[row * 3 + column] += a[row * 3 + k] * b[k * 3 + column] }
            }
        }
        return product
    }

    static func multiply(_ m: [Double], _ v: [Double]) -> [Double] {
        (0..<3).map { r in m[r * 3] * v[0] + m[r * 3 + 1] * v[1] + m[r * 3 + 2] * v[2] }
    }

    static func inverse(_ m: [Double]) -> [Double] {
        let (a, b, c, d, e, f, g, h, i) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
        let det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
        return [e * i - f * h, c * h - b * i, b * f - c * e,
                f * g - d * i, a * i - c * g, c * d - a * f,
                d * h - e * g, b * g - a * h, a * e - b * d].map { $0 / det }
    }
}
