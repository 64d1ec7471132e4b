import Foundation

/// Where a channel's provider keeps its past programmes (catch-up, "archive"), as IPTV playlists
/// say it (Kodi's IPTV Simple and TiviMate read the same attributes): `catchup` (the mode),
/// `catchup-source` (a URL template), `catchup-days` (how far back) and `catchup-correction`
/// (hours added to the times, for a provider whose archive runs on its local time), on a
/// channel's `#EXTINF` or as defaults in the `#EXTM3U` header.
///
/// Modes:
/// - `default`: `catchup-source` is the whole URL of the archive (a relative one, `?utc={utc}`,
///   is added to the channel's URL).
/// - `append`: `catchup-source` is added to the end of the channel's URL.
/// - `shift`: `?utc={utc}&lutc={lutc}` is added to the channel's URL (SIPTV).
/// - `flussonic` (`fs`): Flussonic's archive beside the channel (`…/index-{utc}-{duration}.m3u8`
///   for HLS, `…/timeshift_abs-{utc}.ts` for MPEG-TS).
/// - `xc`: an Xtream Codes panel (`/live/U/P/ID.ts` becomes `/timeshift/U/P/MINUTES/START/ID.ts`).
///
/// Placeholders: `{utc}` `${start}` (start, Unix seconds), `{utcend}` `${end}` (end), `{lutc}`
/// `${now}` `${timestamp}` (now), `{duration}` `${duration}` (seconds), `{duration:N}` (in units of
/// N seconds, `{duration:60}` minutes), `{offset}` `${offset}` and `{offset:N}` (from the start
/// to now), `{Y}` `{m}` `{d}` `{H}` `{M}` `{S}` (the start's date and time), and `{utc:FORMAT}`,
/// `{start:FORMAT}`, `{utcend:FORMAT}`, `{end:FORMAT}`, `{lutc:FORMAT}`, `{now:FORMAT}` with
/// FORMAT made of those letters and `-`, `:`, `_`, `.`, `/`, space (`{end:Y-m-d:H-M}`). Dates are
/// UTC plus `catchup-correction`.
public struct CatchupSource: Sendable, Hashable {
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        case `default`, append, shift, flussonic, xc
    }

    public var mode: Mode
    /// `catchup-source`; for `default` the whole URL, for `append` its end.
    public var template: String?
    /// `catchup-days`: the archive's depth (1…365); nil when not said.
    public var days: Int?
    /// `catchup-correction` in seconds (from hours, −24…24).
    public var correction: Int

    /// The attributes it is read from (also `#EXTM3U` header defaults).
    public static let attributeNames = ["catchup", "catchup-source", "catchup-days", "catchup-correction"]

    /// The most days an archive is taken to go back.
    public static let maxDays = 365

    public init(mode: Mode, template: String? = nil, days: Int? = nil, correction: Int = 0) {
        self.mode = mode
        self.template = template
        self.days = days
        self.correction = correction
    }

    /// A problem with a channel's catch-up attributes, for the lineup's author.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// Reads a channel's attributes; nil when it has no catch-up (no `catchup`, `catchup-source`
    /// or `catchup-days`); a problem when they are malformed.
    public static func read(_ attributes: [String: String]) -> Result<CatchupSource, Problem>? {
        let modeText = attributes["catchup"]?.trimmingCharacters(in: .whitespaces).lowercased()
        let template = attributes["catchup-source"].flatMap { $0.isEmpty ? nil : $0 }
        guard modeText != nil || template != nil else { return nil }
        let mode: Mode
        switch modeText {
        case nil, "": mode = .default
        case "fs": mode = .flussonic
        case "flussonic-hls", "flussonic-ts": mode = .flussonic
        case let text?:
            guard let known = Mode(rawValue: text) else {
                return .failure(Problem("catchup=\"\(text.prefix(32))\" is no catch-up mode; use default, append, shift, flussonic (fs) or xc"))
            }
            mode = known
        }
        var days: Int?
        if let text = attributes["catchup-days"]?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            guard text.count <= 4, let value = Int(text), (0...maxDays).contains(value) else {
                return .failure(Problem("catchup-days=\"\(text.prefix(16))\" is not a number of days from 0 to \(maxDays)"))
            }
            days = value
        }
        var correction = 0
        if let text = attributes["catchup-correction"]?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            guard text.count <= 8, let hours = Double(text), hours.isFinite, (-24...24).contains(hours) else {
                return .failure(Problem("catchup-correction=\"\(text.prefix(16))\" is not a number of hours from -24 to 24"))
            }
            correction = Int((hours * 3600).rounded())
        }
        switch mode {
        case .default, .append:
            guard let template else {
                return .failure(Problem("catchup=\"\(mode.rawValue)\" needs a catchup-source (the archive's URL template)"))
            }
            if let problem = Self.check(template) { return .failure(problem) }
            // A relative template (`?utc={utc}`) is added to the channel's URL, as other players do.
            if template.contains("://"), !template.lowercased().hasPrefix("http://"), !template.lowercased().hasPrefix("https://") {
                return .failure(Problem("catchup-source \"\(template.prefix(64))\" is not an http(s) URL"))
            }
        case .shift, .flussonic, .xc:
            if let template, let problem = Self.check(template) { return .failure(problem) }
        }
        return .success(CatchupSource(mode: mode, template: template, days: days, correction: correction))
    }

    /// Whether a programme that started at `start` is still in the archive at `now`: within
    /// `catchup-days` (any past when not said), and not in the future.
    public func covers(start: Date, now: Date) -> Bool {
        guard start <= now else { return false }
        guard let days else { return true }
        return now.timeIntervalSince(start) <= Double(days) * 86_400
    }

    /// The archive URL of the channel `channelURL` from `start` to `end`, asked at `now`.
    public func url(channel channelURL: String, start: Date, end: Date, now: Date) throws(Problem) -> String {
        guard end > start else { throw Problem("the archive's end must come after its start") }
        let times = Times(start: start, end: end, now: now, correction: correction)
        switch mode {
        case .default:
            let filled = try Self.fill(template ?? channelURL, times)
            return filled.contains("://") ? filled : channelURL + filled
        case .append:
            return channelURL + (try Self.fill(template ?? "", times))
        case .shift:
            let separator = channelURL.contains("?") ? "&" : "?"
            return channelURL + separator + (try Self.fill(template ?? "utc={utc}&lutc={lutc}", times))
        case .flussonic:
            if let template { return try Self.fill(template, times) }
            return try Self.flussonic(channelURL, times)
        case .xc:
            if let template { return try Self.fill(template, times) }
            return try Self.xtream(channelURL, times)
        }
    }

    /// Flussonic: `http://host/name/index.m3u8` (or `…/video.m3u8`, `…/mono.m3u8`) becomes
    /// `http://host/name/index-START-DURATION.m3u8`; `http://host/name/mpegts` (or any other
    /// path) becomes `http://host/name/timeshift_abs-START.ts`.
    static func flussonic(_ url: String, _ times: Times) throws(Problem) -> String {
        guard var components = URLComponents(string: url), let slash = components.path.lastIndex(of: "/") else {
            throw Problem("the channel's URL \(url.prefix(64)) is not a Flussonic stream URL")
        }
        let directory = String(components.path[...slash])
        let file = String(components.path[components.path.index(after: slash)...])
        if file.hasSuffix(".m3u8") {
            let name = String(file.dropLast(5))
            components.path = directory + "\(name)-\(times.start)-\(times.duration).m3u8"
        } else {
            // `/name/mpegts` and `/name/` alike: the archive is beside the stream's name.
            let base = file == "mpegts" || file.isEmpty ? directory : components.path + "/"
            components.path = base + "timeshift_abs-\(times.start).ts"
        }
        guard let result = components.string else { throw Problem("the channel's URL \(url.prefix(64)) cannot take an archive time") }
        return result
    }

    /// Xtream Codes: `…/live/U/P/ID.ext` (or `…/U/P/ID`) becomes
    /// `…/timeshift/U/P/MINUTES/YYYY-MM-DD:HH-MM/ID.ext`.
    static func xtream(_ url: String, _ times: Times) throws(Problem) -> String {
        guard var components = URLComponents(string: url) else {
            throw Problem("the channel's URL \(url.prefix(64)) is not an Xtream Codes stream URL")
        }
        var parts = components.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if parts.first == "live" { parts.removeFirst() }
        guard parts.count == 3 else {
            throw Problem("the channel's URL is not an Xtream Codes stream URL (…/live/USER/PASSWORD/ID.ts)")
        }
        let (user, password, file) = (parts[0], parts[1], parts[2])
        let id = file.split(separator: ".").first.map(String.init) ?? file
        let minutes = max(1, (times.duration + 59) / 60)
        components.path = "/timeshift/\(user)/\(password)/\(minutes)/\(times.format(times.start, "Y-m-d:H-M"))/\(id).ts"
        guard let result = components.string else { throw Problem("the channel's URL cannot take an archive time") }
        return result
    }

    /// The times a template is filled with: Unix seconds (UTC) and the correction for dates.
    struct Times {
        let start: Int, end: Int, now: Int, correction: Int
        var duration: Int { end - start }
        var offset: Int { max(0, now - start) }

        init(start: Date, end: Date, now: Date, correction: Int) {
            self.start = Int(start.timeIntervalSince1970.rounded(.down))
            self.end = Int(end.timeIntervalSince1970.rounded(.up))
            self.now = Int(now.timeIntervalSince1970.rounded(.down))
            self.correction = correction
        }

        /// `seconds` (plus the correction) as FORMAT's letters say: Y m d H M S, others kept.
        func format(_ seconds: Int, _ format: String) -> String {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds + correction))
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
            return format.map { letter -> String in
                switch letter {
                case "Y": "\(c.year ?? 1970)"
                case "m": two(c.month)
                case "d": two(c.day)
                case "H": two(c.hour)
                case "M": two(c.minute)
                case "S": two(c.second)
                default: String(letter)
                }
            }.joined()
        }
    }

    /// The placeholder names a template may use (without a `:N` or `:FORMAT`).
    static let plain: Set<String> = ["utc", "utcend", "lutc", "start", "end", "now", "timestamp", "duration", "offset", "Y", "m", "d", "H", "M", "S"]
    static let withFormat: Set<String> = ["utc", "start", "utcend", "end", "lutc", "now", "timestamp"]
    static let withDivisor: Set<String> = ["duration", "offset"]
    static let formatLetters = Set("YmdHMS-:_./ ")

    /// The first unknown or malformed placeholder of `template`; nil when it has none.
    public static func check(_ template: String) -> Problem? {
        do { _ = try fill(template, Times(start: Date(timeIntervalSince1970: 0), end: Date(timeIntervalSince1970: 60), now: Date(timeIntervalSince1970: 60), correction: 0)) } catch {
            return error
        }
        return nil
    }

    /// `template` with each `{name}`, `{name:arg}` and `${name}` replaced.
    static func fill(_ template: String, _ times: Times) throws(Problem) -> String {
        guard template.count <= 4096 else { throw Problem("catchup-source is longer than 4096 characters") }
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            var literal = rest[..<open]
            if literal.hasSuffix("$") { literal = literal.dropLast() }
            out += literal
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw Problem("catchup-source has a '{' without its '}': \(template.prefix(80))")
            }
            let inside = rest[rest.index(after: open)..<close]
            out += try value(String(inside), times)
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    static func value(_ placeholder: String, _ times: Times) throws(Problem) -> String {
        let parts = placeholder.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let name = String(parts[0])
        let argument = parts.count > 1 ? String(parts[1]) : nil
        func seconds(_ name: String) -> Int {
            switch name {
            case "utc", "start": times.start
            case "utcend", "end": times.end
            default: times.now
            }
        }
        if let argument {
            if withDivisor.contains(name) {
                guard argument.count <= 6, let divisor = Int(argument), divisor > 0 else {
                    throw Problem("catchup-source: {\(placeholder)} needs a whole number of seconds after ':' such as {\(name):60}")
                }
                return "\((name == "duration" ? times.duration : times.offset) / divisor)"
            }
            guard withFormat.contains(name), !argument.isEmpty, argument.count <= 32, argument.allSatisfy(formatLetters.contains) else {
                throw Problem("catchup-source has an unknown placeholder {\(placeholder.prefix(40))}; known: {utc}, {utcend}, {lutc}, {duration}, {offset}, {Y}{m}{d}{H}{M}{S}, {utc:Y-m-d}, {duration:60}, ${start}, ${end}")
            }
            return times.format(seconds(name), argument)
        }
        switch name {
        case "utc", "start", "utcend", "end", "lutc", "now", "timestamp": return "\(seconds(name))"
        case "duration": return "\(times.duration)"
        case "offset": return "\(times.offset)"
        case "Y", "m", "d", "H", "M", "S": return times.format(times.start, name)
        default:
            throw Problem("catchup-source has an unknown placeholder {\(placeholder.prefix(40))}; known: {utc}, {utcend}, {lutc}, {duration}, {offset}, {Y}{m}{d}{H}{M}{S}, {utc:Y-m-d}, {duration:60}, ${start}, ${end}")
        }
    }
}

extension Channel {
    /// The channel's catch-up, when its attributes name one that reads (`lineup check` says
    /// what is wrong with one that does not).
    public var catchup: CatchupSource? {
        guard case .success(let source)? = CatchupSource.read(attributes) else { return nil }
        return source
    }
}
