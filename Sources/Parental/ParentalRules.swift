import Failures
import Foundation

/// The `parental:` settings: the highest rating allowed per rating system, what unrated
/// content does, and how long an unlock lasts. A pure value: judging a programme is a lookup.
///
/// ```yaml
/// settings:
///   parental:
///     VCHIP: TV-PG      # highest allowed per system
///     FSK: 12
///     unrated: lock     # allow (default) or lock
///     unlock: programme # until the programme ends (default), or a time such as 2h
/// ```
///
/// The same as one line (an M3U header, `--parental`): `VCHIP=TV-PG, FSK=12, unrated=lock`.
///
/// A rating of a known system without its own maximum is judged by age against the strictest
/// maximum given (an `MPAA R` film is 17 and over a `VCHIP TV-PG` limit of 10). A rating of an
/// unknown system, or content with no rating at all, follows `unrated`.
public struct ParentalRules: Sendable, Hashable {
    public enum Unrated: String, Sendable, Hashable { case allow, lock }

    /// The highest level allowed in one system: its age, and the level as the setting wrote it.
    public struct Limit: Sendable, Hashable {
        public var age: Int
        public var text: String
    }

    /// The highest level allowed per system.
    public private(set) var maximum: [RatingSystem: Limit] = [:]
    public var unrated: Unrated = .allow
    /// How long an unlock lasts; nil: until the programme on the channel ends.
    public var unlockDuration: Duration?

    /// No rules: nothing is locked by its rating.
    public init() {}

    /// The rules in a lineup's settings: `parental.SYSTEM`, `parental.unrated`, `parental.unlock`
    /// (the YAML mapping `parental:` flattened), or the one-line `parental` setting.
    /// Throws with the setting's name and what is wrong with it.
    public init(settings: [String: String]) throws(ParentalRulesError) {
        var pairs: [(key: String, value: String, origin: String)] = []
        if let line = settings["parental"] {
            for part in line.split(whereSeparator: { $0 == "," || $0 == ";" }) {
                let item = String(part).trimmingSpaces
                guard !item.isEmpty else { continue }
                guard let eq = item.firstIndex(where: { $0 == "=" || $0 == ":" }) else {
                    throw ParentalRulesError(.malformed, "parental: '\(item)' is not SYSTEM=LEVEL, unrated=allow|lock or unlock=TIME")
                }
                pairs.append((String(item[..<eq]).trimmingSpaces, String(item[item.index(after: eq)...]).trimmingSpaces, "parental"))
            }
        }
        for (key, value) in settings where key.hasPrefix("parental.") {
            pairs.append((String(key.dropFirst("parental.".count)), value, key))
        }
        for (key, value, origin) in pairs.sorted(by: { $0.origin < $1.origin }) {
            try set(key, value, origin: origin)
        }
    }

    private mutating func set(_ key: String, _ value: String, origin: String) throws(ParentalRulesError) {
        switch key.lowercased() {
        case "unrated":
            guard let rule = Unrated(rawValue: value.lowercased()) else {
                throw ParentalRulesError(.badValue, "\(origin): unrated must be allow or lock, not '\(value)'")
            }
            unrated = rule
        case "unlock":
            if value.lowercased() == "programme" || value.lowercased() == "program" {
                unlockDuration = nil
            } else {
                guard let d = Self.duration(value), d > .zero, d <= .seconds(24 * 3600) else {
                    throw ParentalRulesError(.badValue, "\(origin): unlock must be 'programme' or a time such as 30m or 2h (at most 24h), not '\(value)'")
                }
                unlockDuration = d
            }
        case "age":
            guard let age = Int(value), (0...21).contains(age) else {
                throw ParentalRulesError(.badValue, "\(origin): age must be a number of years from 0 to 21, not '\(value)'")
            }
            for system in RatingSystem.allCases where maximum[system] == nil { maximum[system] = Limit(age: age, text: value) }
        default:
            guard let system = RatingSystem(name: key) else {
                let known = RatingSystem.allCases.map(\.rawValue).joined(separator: ", ")
                throw ParentalRulesError(.unknownSystem, "\(origin): unknown rating system '\(key)' (known: \(known); or unrated, unlock, age)")
            }
            guard let age = system.age(of: value) else {
                throw ParentalRulesError(.unknownRating, "\(origin): '\(value)' is not a \(system.rawValue) rating")
            }
            maximum[system] = Limit(age: age, text: value)
        }
    }

    /// Whether any rule can lock anything.
    public var isActive: Bool { !maximum.isEmpty || unrated == .lock }

    /// The verdict on content rated `programme` (from the guide) on a channel rated `channel`
    /// (the lineup's `rating:`). The programme's ratings count when it has any, else the
    /// channel's; none at all is unrated.
    public func verdict(programme: [ContentRating], channel: ContentRating?) -> ParentalVerdict {
        guard isActive else { return .allowed }
        let ratings = programme.isEmpty ? channel.map { [$0] } ?? [] : programme
        let strictest = maximum.values.min { $0.age < $1.age }
        var judged = false
        for rating in ratings {
            guard let system = rating.knownSystem, let age = rating.age else { continue }
            guard let limit = maximum[system] ?? strictest else { continue }
            judged = true
            if age > limit.age {
                let limitText = maximum[system] != nil ? "\(system.rawValue) \(limit.text)" : "age \(limit.age)"
                return .locked(reason: "Rated \(rating), over \(limitText)")
            }
        }
        if judged || unrated == .allow { return .allowed }
        let text = ratings.map(\.description).joined(separator: ", ")
        return .locked(reason: ratings.isEmpty ? "Not rated" : "Rated \(text), a rating this box cannot judge")
    }

    /// Why content is locked, or nil when it may be shown: a locked channel (`locked:`,
    /// `--locked`) always is, else the rules' verdict on the programme's ratings (or the
    /// channel's own `rating:`). The one judgement of a lock, for the screen (`ContentLocks` in
    /// the switcher) and for everything the head-end serves (`ServeLocks`).
    public func lockReason(channelLocked: Bool, programme: [ContentRating], channel: ContentRating?) -> String? {
        if channelLocked { return Self.lockedChannelReason }
        switch verdict(programme: programme, channel: channel) {
        case .allowed: return nil
        case .locked(let reason): return reason
        }
    }

    /// The reason given for a channel locked as a whole.
    public static let lockedChannelReason = "This channel is locked"

    /// `90s`, `30m`, `2h`, `1h30m`; nil when malformed.
    static func duration(_ text: String) -> Duration? {
        var total = 0.0, number = ""
        for ch in text.lowercased() where ch != " " {
            if ch.isNumber || ch == "." { number.append(ch); continue }
            guard let n = Double(number) else { return nil }
            switch ch {
            case "s": total += n
            case "m": total += n * 60
            case "h": total += n * 3600
            default: return nil
            }
            number = ""
        }
        guard number.isEmpty, total > 0 else { return nil }
        return .milliseconds(Int64(total * 1000))
    }
}

/// Whether content may be shown.
public enum ParentalVerdict: Sendable, Hashable {
    case allowed
    /// Locked; the reason is for the viewer (`Rated TV-MA, over VCHIP TV-PG`).
    case locked(reason: String)

    public var isLocked: Bool { if case .locked = self { true } else { false } }
}

/// A `parental` setting that cannot be used; the message names it and says what is wrong.
public typealias ParentalRulesError = Failure<ParentalRulesCode>

public enum ParentalRulesCode: String, FailureCode {
    /// An item of the one-line `parental` setting that is not `NAME=VALUE`.
    case malformed
    /// `unrated`, `unlock` or `age` with a value they do not take.
    case badValue
    /// A rating system the box does not know.
    case unknownSystem
    /// A level that is not a rating of its system.
    case unknownRating

    public var kind: FailureKind { .badRequest }
}
