import Foundation

/// A season and episode as people write them (`S01E02`), read from XMLTV's `episode-num`:
/// `xmltv_ns` (`0.1.` is season 1, episode 2: zero-based, totals after a slash ignored) or the
/// `onscreen` form (`S01E02`, `s1 e2`, `1x02`). Either part may be unknown. Numbers are
/// bounded (``limit``) and parsed with checked arithmetic: anything else is no number.
public struct EpisodeNumber: Hashable, Sendable, Codable {
    /// One-based; nil when unknown.
    public var season: Int?
    /// One-based; nil when unknown.
    public var episode: Int?

    /// The largest season or episode taken; a bigger number is treated as garbage.
    public static let limit = 99_999

    public init(season: Int?, episode: Int?) {
        self.season = season
        self.episode = episode
    }

    /// From the guide's two forms, xmltv_ns first; nil when neither gives a number.
    public init?(xmltvNS: String?, onScreen: String?) {
        if let ns = xmltvNS.flatMap(EpisodeNumber.init(xmltvNS:)) {
            self = ns
        } else if let shown = onScreen.flatMap(EpisodeNumber.init(onScreen:)) {
            self = shown
        } else {
            return nil
        }
    }

    /// `season . episode . part`, zero-based, each maybe `n/total`, each maybe empty.
    public init?(xmltvNS text: String) {
        let fields = text.split(separator: ".", omittingEmptySubsequences: false)
        guard fields.count >= 2, fields.count <= 3 else { return nil }
        let season = EpisodeNumber.zeroBased(fields[0])
        let episode = EpisodeNumber.zeroBased(fields[1])
        guard case .some(let s) = season, case .some(let e) = episode, s != nil || e != nil else { return nil }
        self.init(season: s, episode: e)
    }

    /// `S01E02`, `S1 E2`, `E12`, `1x02` (case ignored).
    public init?(onScreen text: String) {
        let upper = text.uppercased().filter { !$0.isWhitespace }
        if let x = upper.firstIndex(of: "X"), upper.first?.isNumber == true {
            guard let s = EpisodeNumber.number(upper[..<x]), let e = EpisodeNumber.number(upper[upper.index(after: x)...])
            else { return nil }
            self.init(season: s, episode: e)
            return
        }
        var rest = Substring(upper)
        guard case .some(let season) = EpisodeNumber.take("S", from: &rest),
              case .some(let episode) = EpisodeNumber.take("E", from: &rest) else { return nil }
        guard rest.isEmpty, season != nil || episode != nil else { return nil }
        self.init(season: season, episode: episode)
    }

    /// The number after `letter` at the start of `rest`, consumed: `.some(nil)` when `rest` does
    /// not start with the letter, nil when no bounded number follows it.
    private static func take(_ letter: Character, from rest: inout Substring) -> Int?? {
        guard rest.first == letter else { return .some(nil) }
        let digits = rest.dropFirst().prefix(while: \.isNumber)
        guard let n = number(digits) else { return nil }
        rest = rest.dropFirst(1 + digits.count)
        return .some(n)
    }

    /// `S01E02`, `S01`, `E02`; nil when both are unknown.
    public var label: String? {
        let s = season.map { "S" + EpisodeNumber.twoDigits($0) } ?? ""
        let e = episode.map { "E" + EpisodeNumber.twoDigits($0) } ?? ""
        let text = s + e
        return text.isEmpty ? nil : text
    }

    private static func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    /// A zero-based field: `.some(nil)` when empty, `.some(n + 1)` when a bounded number, nil
    /// when garbage.
    private static func zeroBased(_ field: Substring) -> Int?? {
        let value = field.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return .some(nil) }
        guard let n = number(Substring(trimmed)) else { return nil }
        let (one, overflow) = n.addingReportingOverflow(1)
        guard !overflow, one <= limit else { return nil }
        return .some(one)
    }

    /// Decimal digits only, at most ``limit``.
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 6, text.allSatisfy({ $0.isASCII && $0.isNumber }),
              let n = Int(text), n <= limit else { return nil }
        return n
    }
}
