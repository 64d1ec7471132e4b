import Foundation

/// A channel number as viewers type it: `7`, or a sub-channel such as `9.1`.
public struct ChannelNumber: Hashable, Comparable, Sendable, CustomStringConvertible, Codable {
    public var major: Int
    public var minor: Int?

    public init(_ major: Int, _ minor: Int? = nil) {
        self.major = major
        self.minor = minor
    }

    /// Parses `7`, `007`, `9.1`; nil for anything else (negative, empty, `9.`, `x`).
    public init?(_ text: String) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2,
              let major = Int(parts[0]), major >= 0, parts[0].allSatisfy(\.isASCII) else { return nil }
        if parts.count == 2 {
            guard let minor = Int(parts[1]), minor >= 0, parts[1].allSatisfy(\.isASCII) else { return nil }
            self.init(major, minor)
        } else {
            self.init(major)
        }
    }

    public var description: String { minor.map { "\(major).\($0)" } ?? "\(major)" }

    /// What to say of `text` that is not a channel number: the one wording of every API.
    public static func notANumber(_ text: String) -> String {
        "'\(text)' is not a channel number; use a number such as 7 or 9.1"
    }

    /// The one reading of a channel number in a URL path (the control API's `/tune/9.1`, the
    /// served `/stream/7.ts` and `/auto/v7`): percent-decoded, then read as a number; when it is
    /// none, the error's message says so in `notANumber`'s words.
    public static func inPath(_ text: String?) throws(LineupValueError) -> ChannelNumber {
        try reading(text.map { $0.removingPercentEncoding ?? $0 } ?? "")
    }

    /// `text` (a query parameter, a JSON field) as a channel number; when it is none, the
    /// error's message says so in `notANumber`'s words.
    public static func reading(_ text: String) throws(LineupValueError) -> ChannelNumber {
        guard let number = ChannelNumber(text) else { throw LineupValueError(.channelNumber, notANumber(text)) }
        return number
    }

    public static func < (a: ChannelNumber, b: ChannelNumber) -> Bool {
        (a.major, a.minor ?? -1) < (b.major, b.minor ?? -1)
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let i = try? c.decode(Int.self) { self.init(i); return }
        let s = try c.decode(String.self)
        guard let n = ChannelNumber(s) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not a channel number: \(s)")
        }
        self = n
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}

/// Where a definition came from, for messages of the form `FILE:LINE: what is wrong`.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }
    public var description: String { "\(file):\(line)" }
}

/// A channel logo: a file on this box, or a URL fetched once and cached on disk.
public enum LogoReference: Hashable, Sendable, CustomStringConvertible {
    case file(String)
    case remote(URL)

    public var description: String {
        switch self {
        case .file(let path): path
        case .remote(let url): url.absoluteString
        }
    }
}

/// One channel of a lineup, as the lineup file describes it. Pure data.
public struct Channel: Hashable, Sendable, Identifiable {
    /// Stable identifier: the lineup's `id`/`tvg-id`, else derived from the name and number.
    public var id: String
    public var number: ChannelNumber
    public var name: String
    /// Source URLs, primary first, then backups in order.
    public var sources: [String]
    public var logo: LogoReference?
    /// How the logo is shown: the lineup's `settings` with the channel's own options over them.
    public var logoStyle: LogoStyle
    public var group: String?
    /// XMLTV channel id used to match the guide (`tvg-id` in M3U, `guide` in YAML).
    public var guideID: String?
    /// Content rating such as `TV-PG` or `FSK 12`.
    public var contentRating: String?
    /// Name of the interstitial card template in `Interstitials/`.
    public var interstitial: String?
    public var language: String?
    public var country: String?
    public var isRadio: Bool
    public var isFavourite: Bool
    public var isHidden: Bool
    /// `#EXTVLCOPT:` and `#KODIPROP:` lines (and YAML `options`), kept in order as `key=value`.
    public var options: [ChannelOption]
    /// Every raw attribute the lineup gave (for M3U: the `#EXTINF` attributes, `catchup*` included).
    public var attributes: [String: String]
    /// Where the channel is defined.
    public var location: SourceLocation

    public init(
        id: String, number: ChannelNumber, name: String, sources: [String],
        logo: LogoReference? = nil, logoStyle: LogoStyle = LogoStyle(), group: String? = nil, guideID: String? = nil,
        contentRating: String? = nil, interstitial: String? = nil,
        language: String? = nil, country: String? = nil, isRadio: Bool = false,
        isFavourite: Bool = false, isHidden: Bool = false,
        options: [ChannelOption] = [], attributes: [String: String] = [:],
        location: SourceLocation = SourceLocation(file: "<memory>", line: 0)
    ) {
        self.id = id
        self.number = number
        self.name = name
        self.sources = sources
        self.logo = logo
        self.logoStyle = logoStyle
        self.group = group
        self.guideID = guideID
        self.contentRating = contentRating
        self.interstitial = interstitial
        self.language = language
        self.country = country
        self.isRadio = isRadio
        self.isFavourite = isFavourite
        self.isHidden = isHidden
        self.options = options
        self.attributes = attributes
        self.location = location
    }
}

/// A per-channel player option line, e.g. `#EXTVLCOPT:http-user-agent=Foo` or `#KODIPROP:inputstream=...`.
public struct ChannelOption: Hashable, Sendable {
    public enum Kind: String, Sendable { case vlc, kodi, native }
    public var kind: Kind
    public var key: String
    public var value: String
    public init(kind: Kind, key: String, value: String) {
        self.kind = kind
        self.key = key
        self.value = value
    }
}

/// A whole lineup: channels sorted by number, plus lineup-wide settings.
///
/// A lineup the box plays takes later readings of its source in place (``taking(_:)``): a
/// channel's position in `channels` (its slot) stays its own for the life of the process, so a
/// position held anywhere stays valid. Added channels are appended, removed ones are retired in
/// their slot (``retired``: not listed, not found by number or id), and ``listed`` gives the
/// slots of the lineup as it reads now, in channel-number order.
public struct Lineup: Sendable, Hashable {
    /// Every channel by slot: in number order as read, then the channels later readings added.
    public var channels: [Channel]
    /// Slots of channels a later reading no longer had.
    public private(set) var retired: Set<Int> = []
    /// The slots listed, in number order, once a reading was taken (nil: all, in order).
    private var slotOrder: [Int]?
    /// Guide (XMLTV) URLs from the M3U header (`url-tvg`, `x-tvg-url`) or YAML `guide`.
    public var guideURLs: [String]
    /// How often the guide is fetched again (`guide-refresh` setting, default 12 h); nil: only on request.
    public var guideRefresh: Duration?
    /// The file it was read from, if any.
    public var file: String?
    /// Lineup-wide settings from YAML (`settings:` map) or M3U header attributes, read once.
    public var settings: LineupSettings
    /// The pools of streams the lineup names (YAML `pools:`).
    public var pools: [StreamPoolDeclaration] = []

    public init(
        channels: [Channel], guideURLs: [String] = [], guideRefresh: Duration? = .seconds(12 * 3600),
        file: String? = nil, settings: LineupSettings = LineupSettings()
    ) {
        self.channels = channels.sorted { $0.number < $1.number }
        self.guideURLs = guideURLs
        self.guideRefresh = guideRefresh
        self.file = file
        self.settings = settings
    }

    /// A lineup made in code with settings as text; values that do not parse are left out.
    public init(
        channels: [Channel], guideURLs: [String] = [], guideRefresh: Duration? = .seconds(12 * 3600),
        file: String? = nil, settings: [String: String]
    ) {
        self.init(channels: channels, guideURLs: guideURLs, guideRefresh: guideRefresh, file: file, settings: LineupSettings(settings))
    }

    /// Where setting `key` was written, for an error about its value: `FILE:LINE: settings.KEY`
    /// (`path`, as the person gave it, else the file the lineup was read from).
    public func settingOrigin(_ key: String, path: String? = nil) -> String {
        settings.origin(key, file: path ?? self.file ?? "the lineup")
    }

    /// The slots of the channels in the lineup now, in number order (retired ones left out).
    public var listed: [Int] { slotOrder ?? Array(channels.indices) }
    /// The channels in the lineup now, in number order.
    public var listedChannels: [Channel] { slotOrder.map { $0.map { channels[$0] } } ?? channels }
    /// Whether slot `index` holds a channel of the lineup now.
    public func isListed(_ index: Int) -> Bool { channels.indices.contains(index) && !retired.contains(index) }

    public func channel(number: ChannelNumber) -> Channel? { index(of: number).map { channels[$0] } }
    public func channel(id: String) -> Channel? { index(id: id).map { channels[$0] } }
    public func index(of number: ChannelNumber) -> Int? { channels.indices.first { channels[$0].number == number && !retired.contains($0) } }
    public func index(id: String) -> Int? { channels.indices.first { channels[$0].id == id && !retired.contains($0) } }

    /// This lineup with a later reading of its source taken in place, and which slots changed.
    /// Channels are matched by id (as ``LineupChange`` matches them): one still there keeps its
    /// slot and takes its new value (number, name, addresses, details); one no longer there is
    /// retired in its slot; a new one is appended; a retired one that comes back takes its slot
    /// again. The lineup's settings, pools and guide stay as they were read at start.
    public func taking(_ reading: Lineup) -> (lineup: Lineup, slots: LineupSlots) {
        var next = self
        var slots = LineupSlots()
        // Each id's slot: ids are unique among the listed channels, and a retired channel
        // keeps its id, so a listed slot wins over a retired one.
        var slotByID: [String: Int] = [:]
        for (i, channel) in channels.enumerated() {
            if let held = slotByID[channel.id], !retired.contains(held) { continue }
            slotByID[channel.id] = i
        }
        var seen: Set<String> = []
        var kept: Set<Int> = []
        for channel in reading.channels where seen.insert(channel.id).inserted {
            if let slot = slotByID[channel.id] {
                kept.insert(slot)
                if next.channels[slot] != channel || retired.contains(slot) {
                    next.channels[slot] = channel
                    slots.changed.append(slot)
                }
                next.retired.remove(slot)
            } else {
                next.channels.append(channel)
                let slot = next.channels.count - 1
                kept.insert(slot)
                slots.added.append(slot)
            }
        }
        for slot in channels.indices where !retired.contains(slot) && !kept.contains(slot) {
            next.retired.insert(slot)
            slots.retired.append(slot)
        }
        next.slotOrder = next.channels.indices.filter { !next.retired.contains($0) }
            .sorted { (next.channels[$0].number, $0) < (next.channels[$1].number, $1) }
        return (next, slots)
    }
}

/// Which slots of a lineup a reading changed (``Lineup/taking(_:)``).
public struct LineupSlots: Sendable, Hashable {
    /// Slots appended for channels new to the box.
    public var added: [Int] = []
    /// Slots whose channel the reading no longer had.
    public var retired: [Int] = []
    /// Slots whose channel changed in place (or came back after it was retired).
    public var changed: [Int] = []

    public init() {}

    public var isEmpty: Bool { added.isEmpty && retired.isEmpty && changed.isEmpty }
}
