/// What `--mode` asks for: the display's preferred mode, or a size with an optional refresh.
public enum ModeRequest: Sendable, Hashable, CustomStringConvertible {
    /// The display's preferred (native) mode.
    case automatic
    /// `WIDTHxHEIGHT[@HZ]`; without a refresh, the fastest progressive mode of that size.
    case size(width: Int, height: Int, refreshMillihertz: Int?)

    /// Parses `auto`, `1920x1080`, `1920x1080@60` or `1920x1080@59.94`; nil otherwise.
    public init?(_ text: String) {
        let text = text.lowercased()
        if text == "auto" { self = .automatic; return }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { return nil }
        let size = parts[0].split(separator: "x", omittingEmptySubsequences: false)
        guard size.count == 2, let w = Int(size[0]), let h = Int(size[1]), (64...16384).contains(w), (64...16384).contains(h) else {
            return nil
        }
        var refresh: Int?
        if parts.count == 2 {
            guard let hz = Double(parts[1]), hz.isFinite, (1...1000).contains(hz) else { return nil }
            refresh = Int((hz * 1000).rounded())
        }
        self = .size(width: w, height: h, refreshMillihertz: refresh)
    }

    public var description: String {
        switch self {
        case .automatic: "auto"
        case .size(let w, let h, nil): "\(w)x\(h)"
        case .size(let w, let h, let mhz?): DisplayMode(width: w, height: h, refreshMillihertz: mhz).description
        }
    }
}
