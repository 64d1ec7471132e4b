import Foundation

/// An amount of memory as people write it in settings and options: `256MB`, `256M`, `256MiB`,
/// `1.5G`, `2T`, `512k`, `4096` (units are powers of 1024).
public struct ByteSize: Sendable, Hashable {
    public var bytes: Int

    public init(bytes: Int) { self.bytes = bytes }

    /// nil when `text` is no size.
    public init?(_ text: String) {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        let digits = t.prefix { $0.isNumber || $0 == "." }
        guard !digits.isEmpty, let value = Double(digits), value.isFinite, value >= 0 else { return nil }
        let unit = t.dropFirst(digits.count).trimmingCharacters(in: .whitespaces)
        let scale: Double
        switch unit {
        case "", "b": scale = 1
        case "k", "kb", "kib": scale = 1024
        case "m", "mb", "mib": scale = 1024 * 1024
        case "g", "gb", "gib": scale = 1024 * 1024 * 1024
        case "t", "tb", "tib": scale = 1024 * 1024 * 1024 * 1024
        default: return nil
        }
        let bytes = value * scale
        guard bytes < Double(Int.max / 2) else { return nil }
        self.bytes = Int(bytes.rounded())
    }
}
