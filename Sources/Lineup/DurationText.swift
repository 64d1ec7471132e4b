import Foundation

extension Duration {
    /// The duration for people: `2 s`, `1.5 s`, `250 ms`, `95 s`, `5 min`, `2 min 30 s`. The
    /// one formatter every message uses.
    public var spoken: String {
        let ms = milliseconds
        if ms < 1000 && ms != 0 { return "\(Int(ms.rounded())) ms" }
        let s = ms / 1000
        if s >= 120 {
            let whole = Int(s)
            return whole % 60 == 0 ? "\(whole / 60) min" : "\(whole / 60) min \(whole % 60) s"
        }
        return s == s.rounded() ? "\(Int(s)) s" : "\((s * 10).rounded() / 10) s"
    }

    /// Whole seconds, rounded up, for people: `Try again in 30 s` (a wait that is not over
    /// after the time said).
    public var spokenWholeSecondsUp: String { Duration.seconds(Int64(seconds.rounded(.up))).spoken }

    /// The duration in seconds, fractions kept.
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in milliseconds, fractions kept.
    public var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}

extension Duration {
    /// Parses `90s`, `2m`, `1h30m`, `500ms`, `6.25s` (units h, m, s, ms; seconds may have up to
    /// three decimals; at most a day); nil otherwise.
    public init?(compact text: some StringProtocol) {
        var rest = Substring(text)
        var total: Int64 = 0
        guard !rest.isEmpty else { return nil }
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 6, let value = Int64(digits) else { return nil }
            rest = rest.dropFirst(digits.count)
            let millis = Self.fractionMilliseconds(&rest)
            if millis == -1 { return nil }
            let unit = rest.prefix { $0.isLetter }
            rest = rest.dropFirst(unit.count)
            switch unit {
            case "h" where millis == 0: total += value * 3_600_000
            case "m" where millis == 0: total += value * 60_000
            case "s": total += value * 1000 + millis
            case "ms" where millis == 0: total += value
            default: return nil
            }
        }
        guard total <= 86_400_000 else { return nil }
        self = .milliseconds(total)
    }
}

extension Duration {
    /// Reads `.25` (a decimal point and one to three digits) off the front of `rest` as
    /// milliseconds (250); 0 when `rest` does not start with a point; -1 when the fraction is
    /// malformed.
    fileprivate static func fractionMilliseconds(_ rest: inout Substring) -> Int64 {
        guard rest.first == "." else { return 0 }
        let digits = rest.dropFirst().prefix { $0.isASCII && $0.isNumber }
        guard (1...3).contains(digits.count), let value = Int64(digits) else { return -1 }
        rest = rest.dropFirst(1 + digits.count)
        return value * [100, 10, 1][digits.count - 1]
    }

    /// Parses a signed amount of time: `-30s`, `+10s`, `-1m30s`, `-1h`, `-90` (bare seconds),
    /// `-500ms`, `-6.25s`, `45s` (no sign: forward); at most a day either way; nil otherwise.
    /// Seeks and clip ends use it.
    public init?(signed text: some StringProtocol) {
        var rest = Substring(text).drop { $0 == " " }
        while rest.last == " " { rest = rest.dropLast() }
        var sign: Int64 = 1
        if rest.first == "-" || rest.first == "+" {
            sign = rest.first == "-" ? -1 : 1
            rest = rest.dropFirst()
        }
        guard !rest.isEmpty else { return nil }
        if rest.allSatisfy({ ($0.isASCII && $0.isNumber) || $0 == "." }) {
            // Bare seconds: `90`, `6.5`.
            let whole = rest.prefix { $0 != "." }
            var fraction = rest.dropFirst(whole.count)
            let millis = Self.fractionMilliseconds(&fraction)
            guard !whole.isEmpty, whole.count <= 6, millis >= 0, fraction.isEmpty, let seconds = Int64(whole),
                  seconds * 1000 + millis <= 86_400_000 else { return nil }
            self = .milliseconds(sign * (seconds * 1000 + millis))
            return
        }
        guard let amount = Duration(compact: rest) else { return nil }
        self = amount * Int(sign)
    }
}


extension Duration {
    /// Parses a setting's or option's duration: `80ms`, `0.4s`, `8s`, `30m`, `2h`, or a plain
    /// number of milliseconds (fractions rounded to the millisecond); nil otherwise.
    public init?(setting text: some StringProtocol) {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        let value: Double? =
            if t.hasSuffix("ms") { Double(t.dropLast(2)) }
            else if t.hasSuffix("s") { Double(t.dropLast()).map { $0 * 1000 } }
            else if t.hasSuffix("m") { Double(t.dropLast()).map { $0 * 60_000 } }
            else if t.hasSuffix("h") { Double(t.dropLast()).map { $0 * 3_600_000 } }
            else { Double(t) }
        guard let ms = value, ms.isFinite, abs(ms) < 1e15 else { return nil }
        self = .milliseconds(Int64(ms.rounded()))
    }
}
