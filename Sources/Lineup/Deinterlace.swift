import Foundation

/// How interlaced video is made progressive (the `deinterlace` setting).
public enum Deinterlace: Sendable, Hashable, CustomStringConvertible {
    /// Never (for a display that deinterlaces itself).
    case off
    /// With GStreamer's `deinterlace` method of this name (`linear`, `yadif`, `greedyh`, ...).
    case method(String)

    /// Linear interpolation: cheap on a small box, no combing.
    public static let `default` = Deinterlace.method("linear")

    public static let methods = ["linear", "yadif", "greedyh", "greedyl", "vfir", "tomsmocomp", "scalerbob"]

    /// `off` or a method name; nil for anything else.
    public init?(_ text: String) {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        if t == "off" || t == "none" { self = .off; return }
        if t == "on" || t == "auto" { self = .default; return }
        guard Self.methods.contains(t) else { return nil }
        self = .method(t)
    }

    public var description: String {
        switch self {
        case .off: "off"
        case .method(let m): m
        }
    }

    /// Every value the setting takes, for messages.
    public static var names: String { (["off"] + methods).joined(separator: ", ") }
}
