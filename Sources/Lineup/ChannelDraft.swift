import Foundation

/// A value as written in the file, with the line it was written on.
struct Located<Value> {
    var value: Value
    var line: Int
}

extension Located: Sendable where Value: Sendable {}

/// A channel as a parser read it, before numbering, ids, sources and logos are settled.
///
/// Both parsers produce drafts; `LineupAssembler` turns them into `Channel`s.
struct ChannelDraft: Sendable {
    /// How the draft's id was given.
    enum IDOrigin: Sendable {
        /// Written as a YAML `id`: must be unique, never rewritten.
        case explicit
        /// Taken from the guide id (`tvg-id`): made unique with `-2`, `-3`.
        case guide
        /// Not given: a slug of the name.
        case derived
    }

    /// Line of the definition (`#EXTINF`, the URL line of a bare entry, or the YAML item).
    var line: Int
    var number: Located<ChannelNumber>?
    var id: String?
    var idOrigin: IDOrigin = .derived
    var name: String = ""
    var sources: [Located<String>] = []
    var logo: Located<String>?
    /// The channel's own logo options (over the lineup's).
    var logoStyle = LogoStyle()
    var group: String?
    var guideID: String?
    var contentRating: String?
    var interstitial: String?
    var language: String?
    var country: String?
    var isRadio = false
    var isFavourite = false
    var isHidden = false
    var options: [ChannelOption] = []
    var attributes: [String: String] = [:]

    init(line: Int) { self.line = line }
}

/// What a parser hands to the assembler besides the channels.
struct LineupDraft: Sendable {
    var channels: [ChannelDraft] = []
    /// Guides as written, with their lines; resolved by the assembler.
    var guideURLs: [Located<String>] = []
    var pools: [StreamPoolDeclaration] = []
    var settings: [String: String] = [:]
    /// The line of each setting, for messages about its value.
    var settingLines: [String: Int] = [:]
    /// Whether every setting is meant for Flipbox (YAML), so an unknown name is worth a warning;
    /// an M3U header carries other players' attributes too.
    var namesSettings = false
    /// Logo options from the settings, the defaults of every channel.
    var logoDefaults = LogoStyle()
    /// Where the channels come from when the lineup names a source (`lineup:`, `xtream:`)
    /// instead of listing them, with its line.
    var source: Located<LineupSourceReference>?
    /// The groups kept of the source's channels (`groups:`); empty: every channel.
    var groups: [Located<String>] = []
    /// The file whose lines `settings`, `settingLines` and `guideURLs` are, when it is not the
    /// file of the channels (a lineup that names its source: its settings are its own, its
    /// channels the source's).
    var settingsFile: String?
}
