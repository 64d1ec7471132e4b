import Foundation
import Lineup

/// The JSON file beside a recording (`….json`) with the programme's guide data, for media
/// servers and for reading the directory without the database: its span, gaps and breaks too.
public struct RecordingSidecar: Hashable, Sendable, Codable {
    public var title: String
    public var subTitle: String?
    public var description: String?
    public var season: Int?
    public var episode: Int?
    public var episodeXMLTVNS: String?
    public var episodeOnScreen: String?
    public var categories: [String]
    public var icon: String?
    public var channel: String
    public var start: Date
    public var stop: Date
    public var recordedFrom: Date
    public var recordedUntil: Date
    public var gaps: [RecordingGap]
    /// The ad breaks inside it (absent when none).
    public var breaks: [RecordingBreak]?

    public init(_ r: Recording, breaks: [RecordingBreak] = []) {
        let p = r.programme
        title = p.title
        subTitle = p.subTitle
        description = p.description
        season = p.episode?.season
        episode = p.episode?.episode
        episodeXMLTVNS = p.episodeXMLTVNS
        episodeOnScreen = p.episodeOnScreen
        categories = p.categories
        icon = p.icon
        channel = r.channel.description
        start = p.start
        stop = p.stop
        recordedFrom = r.paddedStart
        recordedUntil = r.paddedEnd
        gaps = r.gaps
        self.breaks = breaks.isEmpty ? nil : breaks
    }

    /// Pretty, sorted keys, ISO 8601 times.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(self)
    }

    public static func decoded(from data: Data) throws -> RecordingSidecar {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(RecordingSidecar.self, from: data)
    }
}
