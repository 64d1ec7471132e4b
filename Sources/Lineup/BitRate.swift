import Foundation

/// A rate of data as people write it for a network link: `40Mbps`, `40Mb/s`, `40M`, `1.5Gbps`,
/// `800kbps`, `64000` (bits a second; units are powers of 1000, as links are sold).
public struct BitRate: Sendable, Hashable, CustomStringConvertible {
    public var bitsPerSecond: Int

    public init(bitsPerSecond: Int) { self.bitsPerSecond = bitsPerSecond }

    /// The most a setting may say (a 100 Gb/s link); more is a typo.
    public static let max = 100_000_000_000
    /// What a rate must be at least: less is no link to keep a channel warm on.
    public static let min = 1_000

    /// nil when `text` is no rate, or outside `min...max`.
    public init?(_ text: String) {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        let digits = t.prefix { $0.isNumber || $0 == "." }
        guard !digits.isEmpty, digits.count <= 20, let value = Double(digits), value.isFinite, value > 0 else { return nil }
        let unit = t.dropFirst(digits.count).trimmingCharacters(in: .whitespaces)
        let scale: Double
        switch unit {
        case "", "bps", "b/s": scale = 1
        case "k", "kbps", "kb/s", "kbit/s": scale = 1e3
        case "m", "mbps", "mb/s", "mbit/s": scale = 1e6
        case "g", "gbps", "gb/s", "gbit/s": scale = 1e9
        default: return nil
        }
        let bits = value * scale
        guard bits >= Double(Self.min), bits <= Double(Self.max) else { return nil }
        bitsPerSecond = Int(bits.rounded())
    }

    /// `40 Mb/s`, `800 kb/s`, for messages.
    public var description: String { Self.format(bitsPerSecond: bitsPerSecond) }

    public static func format(bitsPerSecond bits: Int) -> String {
        let mbps = Double(bits) / 1e6
        if mbps >= 10 { return "\(Int(mbps.rounded())) Mb/s" }
        if mbps >= 1 { return "\((mbps * 10).rounded() / 10) Mb/s" }
        return "\(Int((Double(bits) / 1e3).rounded())) kb/s"
    }
}
