import Foundation

/// One programme of the guide, with the times already made consistent: `stop` is after
/// `start`, a missing stop became the next programme's start, and an overlapped programme
/// ends where the later one starts.
public struct Programme: Hashable, Sendable, Codable {
    /// The XMLTV channel id (`<programme channel=…>`).
    public var channel: String
    public var start: Date
    public var stop: Date
    public var title: String
    public var subTitle: String?
    public var description: String?
    public var categories: [String]
    /// `<episode-num system="xmltv_ns">`, e.g. `2 . 9 . 0/1` (zero-based season . episode . part).
    public var episodeXMLTVNS: String?
    /// `<episode-num system="onscreen">`, e.g. `S03E10`.
    public var episodeOnScreen: String?
    /// `<icon src=…>` of the programme (not of its star rating).
    public var icon: String?
    public var ratings: [Rating]
    /// `<star-rating><value>`, e.g. `3/5`.
    public var starRating: String?

    public init(
        channel: String, start: Date, stop: Date, title: String, subTitle: String? = nil, description: String? = nil,
        categories: [String] = [], episodeXMLTVNS: String? = nil, episodeOnScreen: String? = nil,
        icon: String? = nil, ratings: [Rating] = [], starRating: String? = nil
    ) {
        self.channel = channel
        self.start = start
        self.stop = stop
        self.title = title
        self.subTitle = subTitle
        self.description = description
        self.categories = categories
        self.episodeXMLTVNS = episodeXMLTVNS
        self.episodeOnScreen = episodeOnScreen
        self.icon = icon
        self.ratings = ratings
        self.starRating = starRating
    }

    /// Whether the programme is on at `instant` (start inclusive, stop exclusive).
    public func isOn(at instant: Date) -> Bool { start <= instant && instant < stop }
}

/// A content rating: `<rating system="MPAA"><value>PG</value></rating>`.
public struct Rating: Hashable, Sendable, Codable {
    public var system: String?
    public var value: String
    public init(system: String?, value: String) {
        self.system = system
        self.value = value
    }
}

/// A channel as the guide describes it.
public struct GuideChannel: Hashable, Sendable, Codable {
    /// `<channel id=…>`, which programmes name.
    public var id: String
    public var displayNames: [String]
    public var icon: String?
    public init(id: String, displayNames: [String], icon: String? = nil) {
        self.id = id
        self.displayNames = displayNames
        self.icon = icon
    }
}
