import Foundation

/// How a channel's logo is shown, as a lineup writes it: each field that is set overrides the
/// default below it (a channel's own options over the lineup's `settings`, those over the
/// player's command-line defaults); a nil field keeps the default. Pure data.
public struct LogoStyle: Hashable, Sendable {
    public enum Corner: String, Sendable, CaseIterable {
        case topLeft = "top-left", topRight = "top-right", bottomLeft = "bottom-left", bottomRight = "bottom-right"
    }

    /// False turns the logo off (`logo: off`), true turns it back on over a lineup-wide `off`.
    public var isShown: Bool?
    public var corner: Corner?
    /// Logo height as a fraction of the output height.
    public var size: Double?
    /// Distance from the title-safe area's edge, as a fraction of the output height.
    public var margin: Double?
    /// 0 (invisible) to 1 (opaque).
    public var opacity: Double?

    public init(isShown: Bool? = nil, corner: Corner? = nil, size: Double? = nil, margin: Double? = nil, opacity: Double? = nil) {
        self.isShown = isShown
        self.corner = corner
        self.size = size
        self.margin = margin
        self.opacity = opacity
    }

    public static let sizeRange: ClosedRange<Double> = 0.02...0.5
    public static let marginRange: ClosedRange<Double> = 0...0.25
    public static let opacityRange: ClosedRange<Double> = 0...1

    /// This style with every field that `overrides` sets taken from it.
    public func overridden(by overrides: LogoStyle) -> LogoStyle {
        LogoStyle(isShown: overrides.isShown ?? isShown, corner: overrides.corner ?? corner,
                  size: overrides.size ?? size, margin: overrides.margin ?? margin,
                  opacity: overrides.opacity ?? opacity)
    }

    /// One logo option as lineups name it.
    enum Option: String, CaseIterable {
        case show, corner, size, margin, opacity

        /// The name in M3U attributes and lineup settings: `logo`, `logo-corner`, ...
        var attribute: String { self == .show ? "logo" : "logo-\(rawValue)" }

        /// The option an M3U attribute or a setting names (`logo-size`), nil for other keys.
        init?(attribute: String) {
            guard let option = Option.allCases.first(where: { $0.attribute == attribute }) else { return nil }
            self = option
        }
    }

    /// Sets `option` from its text (`bottom-left`, `0.1`, `10%`, `off`). Returns what is wrong
    /// with the text, for people, or nil when it was set. `name` is how the file wrote the key.
    mutating func set(_ option: Option, text raw: String, name: String) -> String? {
        let text = raw.trimmingCharacters(in: .whitespaces)
        switch option {
        case .show:
            guard let shown = Self.onOff(text) else { return "\(name) \"\(text)\" must be on or off" }
            isShown = shown
        case .corner:
            guard let corner = Corner(rawValue: text.lowercased()) else {
                let known = Corner.allCases.map(\.rawValue)
                return "\(name) \"\(text)\" is not a corner; use \(known.dropLast().joined(separator: ", ")) or \(known.last!)"
            }
            self.corner = corner
        case .size:
            guard let value = Self.fraction(text), Self.sizeRange.contains(value) else {
                return "\(name) \"\(text)\" is not a logo height; use a fraction of the output height from \(Self.sizeRange.lowerBound) to \(Self.sizeRange.upperBound), e.g. 0.1 or 10%"
            }
            size = value
        case .margin:
            guard let value = Self.fraction(text), Self.marginRange.contains(value) else {
                return "\(name) \"\(text)\" is not a margin; use a fraction of the output height from 0 to \(Self.marginRange.upperBound), e.g. 0.02 or 2%"
            }
            margin = value
        case .opacity:
            guard let value = Self.fraction(text), Self.opacityRange.contains(value) else {
                return "\(name) \"\(text)\" is not an opacity; use 0 (invisible) to 1 (opaque), e.g. 0.8 or 80%"
            }
            opacity = value
        }
        return nil
    }

    /// `on`/`true`/`yes` -> true, `off`/`false`/`no` -> false, anything else nil.
    static func onOff(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "on", "true", "yes": true
        case "off", "false", "no": false
        default: nil
        }
    }

    /// `0.1` or `10%` -> 0.1; nil for anything else (also for infinities and NaN).
    static func fraction(_ text: String) -> Double? {
        if text.hasSuffix("%") {
            return Double(text.dropLast().trimmingCharacters(in: .whitespaces)).flatMap { $0.isFinite ? $0 / 100 : nil }
        }
        return Double(text).flatMap { $0.isFinite ? $0 : nil }
    }
}
