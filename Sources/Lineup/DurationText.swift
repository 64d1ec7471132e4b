extension Duration {
    /// The duration for people: `2 s`, `1.5 s`, `250 ms`. The one formatter every message uses.
    public var spoken: String {
        let ms = milliseconds
        if ms < 1000 && ms != 0 { return "\(Int(ms.rounded())) ms" }
        let s = ms / 1000
        return s == s.rounded() ? "\(Int(s)) s" : "\((s * 10).rounded() / 10) s"
    }

    /// The duration in seconds, fractions kept.
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in milliseconds, fractions kept.
    public var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
