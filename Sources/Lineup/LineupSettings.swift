import Foundation

/// The lineup-wide settings (YAML `settings:`, M3U `#EXTM3U` attributes), read and checked once
/// when the lineup is loaded: a value that does not parse is an error on its line
/// (`lineup.yaml:7: settings.card-delay must be a duration ...`), and in YAML a name that is no
/// setting is a warning on its line.
///
/// A nil field was not written; the default belongs to whoever resolves the setting (the
/// command line over the lineup over the default is resolved once, in the executable's
/// `ResolvedSettings`). Groups whose grammar belongs to a module above this one (`parental`,
/// `keymap.*`, `hdhomerun-*`) are kept as written and checked there.
public struct LineupSettings: Sendable, Hashable {
    // Warm channels (docs/headend.md)
    public var warm: WarmPolicy?
    public var warmMaxChannels: Int?
    public var warmMemory: ByteSize?
    /// Most bits a second all warm channels together may take from their links (`warm-bandwidth`).
    public var warmBandwidth: BitRate?
    public var warmChannelMemory: ByteSize?
    /// The most streams each server of the lineup's sources gives at once (`max-streams`; an
    /// M3U header's `max-streams="2"`): the limit of every pool not named in `pools:`.
    public var maxStreams: Int?

    // Switching (docs/switcher.md)
    public var cardDelay: Duration?
    public var cardMinimum: Duration?
    public var tuneTimeout: Duration?
    public var skip: Skip?
    public var flipScope: FlipScope?
    public var lockedFlip: LockedFlip?
    public var locked: [ChannelNumber]?
    public var start: ChannelNumber?
    public var upNextSeconds: Double?
    public var bannerSeconds: Double?
    /// The card templates directory as written (relative to the lineup's directory).
    public var interstitials: String?
    /// The card template of channels that name none.
    public var interstitial: String?
    /// The card template per group (`interstitial.News: news`), over `interstitial`.
    public var groupInterstitials: [String: String] = [:]

    // Timeshift (docs/timeshift.md); `timeshift: off` reads as not written. The group form
    // `timeshift: {minutes: 30, warm-seconds: 60, memory: 64MB}` sets the same fields.
    public var timeshift: Duration?
    public var timeshiftMemory: ByteSize?
    public var timeshiftWarm: Duration?
    public var resumePosition: Bool?

    // Recordings (docs/recordings.md)
    /// Where recordings are written, as written (relative to the lineup's directory).
    public var recordingsDir: String?
    /// The most the recordings may take on disk; the oldest go first.
    public var recordingsQuota: ByteSize?
    /// Recordings that ended more than this many days ago go.
    public var recordingsKeepDays: Int?

    // Picture and sound (docs/broadcast.md, docs/box.md)
    public var deinterlace: Deinterlace?
    /// Preferred audio languages, first choice first, as written (`deu`, `English`).
    public var audioLanguages: [String] = []
    /// Audio description (a voice describing the picture) chosen unasked where a channel has it.
    public var audioDescription: Bool?
    /// Languages whose subtitles show unasked, first choice first, as written.
    public var subtitleLanguages: [String] = []
    public var audioDevice: String?
    /// Every channel's sound brought to one loudness.
    public var normalizeAudio: Bool?
    /// Sound sent on undecoded to the receiver behind HDMI.
    public var audioPassthrough: AudioPassthrough?

    // Serving (docs/serve.md). Who may reach the box (`allow-hosts`, `serve-allow`) is no lineup
    // setting: only the command line says it (``policyNames``).
    public var serveMaxClients: Int?

    /// `parental` and `parental.*` as written, for `ParentalRules`.
    public var parental: [String: String] = [:]
    /// `keymap.*` as written, for the evdev key map.
    public var keymap: [String: String] = [:]
    /// `hdhomerun-*` as written, for the HDHomeRun device.
    public var hdhomerun: [String: String] = [:]
    /// How often a lineup read from a source (a URL, an Xtream account, an HDHomeRun, a
    /// Tvheadend server) is read again while the box plays (`lineup-refresh`, default 12 h);
    /// `.off`: only at start.
    public var lineupRefresh: LineupRefreshInterval = .every(LineupRefreshInterval.standard)

    /// Every setting as written (group members as `group.name`), for display; read values
    /// through the fields above.
    public private(set) var written: [String: String] = [:]
    /// The line each setting was written on (1-based).
    public private(set) var lines: [String: Int] = [:]

    /// What next/previous skip (`skip: hidden, failed`; `none`).
    public struct Skip: Sendable, Hashable {
        public var hidden: Bool
        public var failed: Bool
        public init(hidden: Bool, failed: Bool) {
            self.hidden = hidden
            self.failed = failed
        }

        /// `hidden`, `failed`, `hidden,failed` or `none`; nil otherwise.
        public init?(_ text: String) {
            let parts = Set(text.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            guard !parts.isEmpty, parts.isSubset(of: ["hidden", "failed", "none"]), !(parts.contains("none") && parts.count > 1) else { return nil }
            self.init(hidden: parts.contains("hidden"), failed: parts.contains("failed"))
        }
    }

    public init() {}

    /// Reads `written`; values that do not parse are left out (use the loader to hear about
    /// them). For lineups made in code.
    public init(_ written: [String: String], lines: [String: Int] = [:]) {
        var log = DiagnosticLog(file: "")
        self.init(written: written, lines: lines, channels: nil, log: &log, warnsUnknown: false)
    }

    /// Where setting `key` was written: `FILE:LINE: settings.KEY` (no line when unknown).
    public func origin(_ key: String, file: String) -> String {
        guard let line = lines[key], line > 0 else { return "\(file): settings.\(key)" }
        return "\(file):\(line): settings.\(key)"
    }

    // MARK: Names

    /// Every setting name this version reads.
    public static let names = [
        "warm", "warm-max-channels", "warm-memory", "warm-channel-memory", "warm-bandwidth", "max-streams",
        "card-delay", "card-minimum", "tune-timeout", "skip", "flip-scope", "locked-flip", "locked", "start",
        "up-next-seconds", "banner-seconds", "interstitials", "interstitial",
        "timeshift", "timeshift-memory", "timeshift-warm", "resume-position",
        "recordings-dir", "recordings-quota", "recordings-keep-days",
        "deinterlace", "audio-languages", "audio-description", "subtitle-languages", "audio-device", "normalize-audio", "audio-passthrough",
        "allow-hosts", "serve-allow", "serve-max-clients",
        "hdhomerun-device-id", "hdhomerun-tuners", "hdhomerun-name",
        "guide-refresh", "lineup-refresh", "parental",
    ] + LogoStyle.Option.allCases.map(\.attribute) + CatchupSource.attributeNames
    /// Names that once set who may reach the box. A lineup is data, often a provider's, and soon
    /// fetched from a URL: it must not open the box, so these are read nowhere and warned about,
    /// each with the command-line option that says it instead.
    public static let policyNames: [(name: String, option: String)] = [
        ("allow-hosts", "flipbox play --allow-host NAME"),
        ("serve-allow", "--serve-allow CIDR"),
    ]
    /// Groups whose members are any name: `parental.FSK`, `keymap.KEY_F2`, `interstitial.News`.
    public static let groups = ["parental", "keymap", "interstitial"]
    /// The members of the group `timeshift: {...}`, each with the flat setting it stands for.
    static let timeshiftMembers: [(member: String, flat: String)] = [
        ("minutes", "timeshift"), ("warm-seconds", "timeshift-warm"), ("memory", "timeshift-memory"),
    ]

    static func isKnown(_ key: String) -> Bool {
        if names.contains(key) { return true }
        if timeshiftMembers.contains(where: { "timeshift.\($0.member)" == key }) { return true }
        guard let dot = key.firstIndex(of: ".") else { return false }
        return groups.contains(String(key[..<dot])) && key.index(after: dot) < key.endIndex
    }

    // MARK: Reading

    /// Reads every setting, logging each bad value (an error) and, with `warnsUnknown`, each
    /// unknown name (a warning) on its line. `channels`: the lineup's numbers, to check
    /// `start` and `locked` against (nil: not checked).
    init(written: [String: String], lines: [String: Int], channels: Set<ChannelNumber>?, log: inout DiagnosticLog, warnsUnknown: Bool) {
        self.written = written
        self.lines = lines
        for key in written.keys.sorted(by: { (lines[$0] ?? 0, $0) < (lines[$1] ?? 0, $1) }) {
            let text = written[key] ?? ""
            var reader = Reader(key: key, text: text, line: lines[key] ?? 0)
            read(&reader, channels: channels, warnsUnknown: warnsUnknown)
            if let problem = reader.problem { log.error(reader.line, problem) }
            if let warning = reader.warning { log.warning(reader.line, warning) }
        }
    }

    /// One setting being read: its problem, if any, worded for the person who wrote it.
    private struct Reader {
        let key: String
        let text: String
        let line: Int
        var problem: String?
        var warning: String?

        mutating func fail<Value>(_ expected: String) -> Value? {
            problem = "settings.\(key) '\(text)' is not \(expected)"
            return nil
        }

        mutating func duration(within range: ClosedRange<Duration>) -> Duration? {
            guard let d = Duration(setting: text) else {
                problem = "settings.\(key) must be a duration like 80ms, 8s or 30m, not '\(text)'"
                return nil
            }
            guard range.contains(d) else {
                problem = "settings.\(key) must be between \(range.lowerBound) and \(range.upperBound), not '\(text)'"
                return nil
            }
            return d
        }

        mutating func seconds(within range: ClosedRange<Double>, _ expected: String) -> Double? {
            guard let s = Double(text.trimmingCharacters(in: .whitespaces)), range.contains(s) else { return fail(expected) }
            return s
        }

        mutating func count(within range: ClosedRange<Int>, _ expected: String) -> Int? {
            guard let n = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(n) else { return fail(expected) }
            return n
        }

        mutating func size() -> ByteSize? {
            guard let size = ByteSize(text), size.bytes > 0 else { return fail("a size such as 256MB, 1G or 512KB") }
            return size
        }

        mutating func bitRate() -> BitRate? {
            guard let rate = BitRate(text) else { return fail("a rate such as 40Mbps, 800kbps or 1.5Gbps") }
            return rate
        }

        mutating func bool() -> Bool? {
            switch text.lowercased() {
            case "true", "yes", "on": true
            case "false", "no", "off": false
            default: fail("true or false")
            }
        }

        var words: [String] {
            text.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
        }

        mutating func channel(in channels: Set<ChannelNumber>?) -> ChannelNumber? {
            let t = text.trimmingCharacters(in: .whitespaces)
            guard let n = ChannelNumber(t) else { return fail("a channel number") }
            if let channels, !channels.contains(n) { return fail("a channel of this lineup") }
            return n
        }
    }

    private mutating func read(_ r: inout Reader, channels: Set<ChannelNumber>?, warnsUnknown: Bool) {
        let key = r.key, text = r.text
        switch key {
        case "warm": warm = WarmPolicy(text) ?? r.fail("all, none or neighbours:N")
        case "warm-max-channels": warmMaxChannels = r.count(within: 1 ... .max, "a number of channels of at least 1")
        case "warm-memory": warmMemory = r.size()
        case "warm-bandwidth": warmBandwidth = r.bitRate()
        case "warm-channel-memory": warmChannelMemory = r.size()
        case "max-streams": maxStreams = r.count(within: 1 ... StreamPoolDeclaration.maxStreams, "a number of streams from 1 to \(StreamPoolDeclaration.maxStreams)")
        case "recordings-dir": recordingsDir = text.isEmpty ? r.fail("a directory") : text
        case "recordings-quota": recordingsQuota = r.size()
        case "recordings-keep-days": recordingsKeepDays = r.count(within: 1 ... 36_500, "a number of days from 1 to 36500")
        case "card-delay": cardDelay = r.duration(within: .zero ... .seconds(10))
        case "card-minimum": cardMinimum = r.duration(within: .zero ... .seconds(10))
        case "tune-timeout": tuneTimeout = r.duration(within: .milliseconds(500) ... .seconds(120))
        case "skip":
            skip = Skip(text)
            if skip == nil { r.problem = "settings.skip must be hidden, failed, hidden,failed or none, not '\(text)'" }
        case "flip-scope": flipScope = FlipScope(text) ?? r.fail("all, favourites or group")
        case "locked-flip": lockedFlip = LockedFlip(rawValue: text.lowercased()) ?? r.fail("skip or card")
        case "locked":
            var numbers: [ChannelNumber] = []
            for part in text.split(separator: ",") {
                let t = part.trimmingCharacters(in: .whitespaces)
                guard let n = ChannelNumber(t) else { r.problem = "settings.locked: '\(t)' is not a channel number"; return }
                if let channels, !channels.contains(n) { r.problem = "settings.locked: there is no channel \(n) to lock"; return }
                if !numbers.contains(n) { numbers.append(n) }
            }
            locked = numbers
        case "start": start = r.channel(in: channels)
        case "up-next-seconds": upNextSeconds = r.seconds(within: 0...3600, "a number of seconds from 0 (never) to 3600")
        case "banner-seconds": bannerSeconds = r.seconds(within: 0...3600, "a number of seconds from 0 to 3600")
        case "interstitials": interstitials = text
        case "interstitial": interstitial = text
        case "timeshift":
            if text.lowercased() != "off" { timeshift = r.duration(within: .seconds(10) ... .seconds(24 * 3600)) }
        case "timeshift-memory": timeshiftMemory = r.size()
        case "timeshift-warm": timeshiftWarm = r.duration(within: .seconds(1) ... .seconds(600))
        case "timeshift.minutes", "timeshift.warm-seconds", "timeshift.memory":
            let member = String(key.dropFirst("timeshift.".count))
            let flat = Self.timeshiftMembers.first { $0.member == member }?.flat ?? ""
            if written[flat] != nil {
                r.problem = "settings.\(key) and settings.\(flat) are the same setting; write one of them"
                return
            }
            switch member {
            case "minutes":
                timeshift = r.seconds(within: 1...1440, "a number of minutes from 1 to 1440").map { .milliseconds(Int64(($0 * 60_000).rounded())) }
            case "warm-seconds":
                timeshiftWarm = r.seconds(within: 1...600, "a number of seconds from 1 to 600").map { .milliseconds(Int64(($0 * 1000).rounded())) }
            default: timeshiftMemory = r.size()
            }
        case "resume-position": resumePosition = r.bool()
        case "deinterlace": deinterlace = Deinterlace(text) ?? r.fail("one of \(Deinterlace.names)")
        case "audio-languages": audioLanguages = r.words
        case "audio-description": audioDescription = r.bool()
        case "subtitle-languages": subtitleLanguages = r.words
        case "audio-device": audioDevice = text
        case "normalize-audio": normalizeAudio = r.bool()
        case "audio-passthrough":
            switch AudioPassthrough.parse(text) {
            case .success(let value): audioPassthrough = value
            case .failure(let problem): r.problem = "settings.audio-passthrough: \(problem)"
            }
        case "allow-hosts", "serve-allow":
            let option = Self.policyNames.first { $0.name == key }?.option ?? "the command line"
            r.warning = "settings.\(key) is ignored: who may reach the box is set only on its command line (\(option)), never by a lineup, which may come from a provider; give it there"
        case "serve-max-clients": serveMaxClients = r.count(within: 1 ... .max, "a number of clients of at least 1")
        case "hdhomerun-device-id", "hdhomerun-tuners", "hdhomerun-name": hdhomerun[key] = text
        case "parental": parental[key] = text
        case "guide-refresh": break  // The lineup's `guideRefresh`.
        case "lineup-refresh":
            switch GuideReference.refresh(text, setting: key) {
            case .success(let interval): lineupRefresh = interval.map(LineupRefreshInterval.every) ?? .off
            case .failure(let error): r.problem = "settings.\(error.message)"
            }
        default:
            if LogoStyle.Option(attribute: key) != nil { break }  // The channels' `logoStyle`.
            if key.hasPrefix("parental.") { parental[key] = text; break }
            if key.hasPrefix("keymap.") { keymap[key] = text; break }
            if key.hasPrefix("interstitial."), key.count > "interstitial.".count {
                groupInterstitials[String(key.dropFirst("interstitial.".count))] = text
                break
            }
            if key.hasPrefix("timeshift.") {
                let member = String(key.dropFirst("timeshift.".count))
                let known = Self.timeshiftMembers.map(\.member)
                let suggestion = YAMLLineupParser.suggestion(for: member, among: known)
                r.problem = "settings.timeshift has no '\(member)' (it takes \(known.joined(separator: ", ")))\(suggestion.hasPrefix(";") ? suggestion : "")"
                break
            }
            if warnsUnknown {
                r.warning = "unknown setting '\(key)', ignored\(YAMLLineupParser.suggestion(for: key, among: Self.names))"
            }
        }
    }
}

/// How often a sourced lineup is read again while the box plays.
public enum LineupRefreshInterval: Sendable, Hashable {
    case every(Duration)
    case off

    public static let standard: Duration = .seconds(12 * 3600)
}
