/// A content rating as a guide or a lineup gives it: `<rating system="MPAA"><value>PG-13</value>`,
/// a channel's `rating: TV-PG`, `FSK 12`, a bare DVB age `16`.
///
/// `age` is the youngest viewer the rating admits, for the systems Flipbox knows (VCHIP,
/// MPAA, FSK, BBFC, PEGI and DVB ages); a rating of an unknown system, or a value its system
/// does not have, keeps its text and has no age: the `unrated` rule decides for it.
public struct ContentRating: Sendable, Hashable, CustomStringConvertible {
    /// The system as written (`VCHIP`, `mpaa`, `dvb:parental`), if any.
    public var system: String?
    public var value: String

    public init(system: String?, value: String) {
        self.system = system?.trimmingSpaces.nonEmpty
        self.value = value.trimmingSpaces
    }

    /// `FSK 12`, `TV-PG`, `MPAA PG-13`, `DVB 16`: the value, after its system unless the value
    /// names it already.
    public var description: String {
        let name = knownSystem?.rawValue ?? system
        guard let name else { return value }
        let upper = value.uppercased()
        if upper.hasPrefix(name.uppercased()) || (knownSystem == .vchip && upper.hasPrefix("TV")) { return value }
        return "\(name) \(value)"
    }

    /// The known system this rating belongs to: the one named, else the one its value implies.
    public var knownSystem: RatingSystem? {
        if let system { return RatingSystem(name: system) }
        return RatingSystem(value: value)
    }

    /// The youngest age the rating admits; nil when the system or the value is unknown.
    public var age: Int? {
        knownSystem?.age(of: value)
    }
}

/// A rating system whose levels Flipbox can compare.
public enum RatingSystem: String, Sendable, Hashable, CaseIterable {
    /// US television (TV-Y ... TV-MA).
    case vchip = "VCHIP"
    /// US films (G ... NC-17).
    case mpaa = "MPAA"
    /// German films and television (FSK 0, 6, 12, 16, 18).
    case fsk = "FSK"
    /// British films (U, PG, 12A, 12, 15, 18, R18).
    case bbfc = "BBFC"
    /// European games, also used as plain ages (3, 7, 12, 16, 18).
    case pegi = "PEGI"
    /// DVB's parental rating: a minimum age (XMLTV from DVB receivers writes the age).
    case dvb = "DVB"

    /// The system a `system="…"` attribute names (case and decoration ignored:
    /// `vchip`, `dvb:parental`, `BBFC (UK)`), or nil for an unknown one.
    public init?(name: String) {
        let key = name.uppercased().filter { $0.isLetter || $0.isNumber }
        if key.hasPrefix("VCHIP") || key == "TV" || key == "USTV" || key == "TVPG" { self = .vchip }
        else if key.hasPrefix("MPAA") || key == "MPA" { self = .mpaa }
        else if key.hasPrefix("FSK") { self = .fsk }
        else if key.hasPrefix("BBFC") { self = .bbfc }
        else if key.hasPrefix("PEGI") { self = .pegi }
        else if key.hasPrefix("DVB") || key == "AGE" { self = .dvb }
        else { return nil }
    }

    /// The system a value without a system implies: `TV-14` VCHIP, `PG-13`/`R`/`NC-17` MPAA,
    /// `FSK 16` FSK, `12A`/`15`/`U` BBFC, `PEGI 7` PEGI, a bare number a DVB age. nil otherwise.
    public init?(value: String) {
        let v = value.uppercased().trimmingSpaces
        if v.hasPrefix("TV-") || v.hasPrefix("TV ") { self = .vchip }
        else if v.hasPrefix("FSK") || v.hasPrefix("AB ") { self = .fsk }
        else if v.hasPrefix("PEGI") { self = .pegi }
        else if v.hasPrefix("BBFC") || ["U", "12A", "15", "R18", "UC"].contains(v) { self = .bbfc }
        else if v.hasPrefix("MPAA") || ["G", "PG", "PG-13", "R", "NC-17"].contains(v) { self = .mpaa }
        else if Self.leadingNumber(v) != nil, v.allSatisfy({ $0.isNumber || $0 == "+" || $0 == " " }) { self = .dvb }
        else { return nil }
    }

    /// The youngest age `value` admits in this system, or nil when the system has no such level.
    public func age(of value: String) -> Int? {
        var v = value.uppercased().trimmingSpaces
        // Drop the system's own name when the value repeats it (`FSK 12`, `PEGI 7`, `MPAA PG`).
        if self != .vchip {
            for prefix in [rawValue + " ", rawValue + "-", "AB "] where v.hasPrefix(prefix) {
                v = String(v.dropFirst(prefix.count)).trimmingSpaces
            }
        }
        switch self {
        case .vchip:
            let levels = ["TV-Y": 0, "TV-G": 0, "TV-Y7": 7, "TV-Y7-FV": 7, "TV-PG": 10, "TV-14": 14, "TV-MA": 17]
            let key = v.replacingSpaces(with: "-")
            return levels[key] ?? levels["TV-" + key]
        case .mpaa:
            return ["G": 0, "PG": 10, "PG-13": 13, "R": 17, "NC-17": 18][v]
        case .bbfc:
            return ["U": 0, "UC": 0, "PG": 8, "12A": 12, "12": 12, "15": 15, "18": 18, "R18": 18][v]
        case .fsk, .pegi, .dvb:
            guard let n = Self.leadingNumber(v), (0...21).contains(n) else { return nil }
            return n
        }
    }

    /// The number a value starts with (`12`, `16+`, `18 JAHREN`), if any.
    static func leadingNumber(_ text: String) -> Int? {
        let digits = text.prefix { $0.isNumber }
        return digits.isEmpty ? nil : Int(digits)
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first?.isWhitespace == true { s.removeFirst() }
        while s.last?.isWhitespace == true { s.removeLast() }
        return String(s)
    }

    var nonEmpty: String? { isEmpty ? nil : self }

    func replacingSpaces(with separator: Character) -> String {
        String(map { $0 == " " ? separator : $0 })
    }
}
