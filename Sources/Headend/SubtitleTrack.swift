import GStreamer

/// One subtitle track of a channel: a DVB subtitle stream, a subtitle page of a teletext stream,
/// the closed captions (CEA-608/708) its video carries, or a WebVTT rendition of an HLS channel.
public struct SubtitleTrack: LanguageTrack, Hashable {
    public enum Kind: Sendable, Hashable {
        /// DVB subtitles (ETSI EN 300 743): bitmaps in a stream of their own.
        case dvb
        /// CEA-608/708 captions in the video (H.264 SEI), drawn from their service 1.
        case closedCaptions
        /// Teletext subtitles (ETSI EN 300 706): page `page` (`888`) of the ingest's subtitle
        /// stream `stream`.
        case teletext(page: Int, stream: Int)
        /// WebVTT cues of an HLS subtitle rendition (`#EXT-X-MEDIA:TYPE=SUBTITLES`), drawn as text.
        case webVTT
    }

    /// The subtitle stream's number in the ingest (0 for the first found); `captionsIndex` for
    /// the closed captions; `teletextIndex` for a teletext page.
    public var index: Int
    public var kind: Kind
    /// ISO 639-2/T code (`deu`), nil when the stream does not say (captions never do).
    public var language: String?
    /// What the provider calls the track (an HLS rendition's `NAME`), nil when it does not say.
    public var name: String?
    /// Whether `subtitle-languages` may choose it (not an HLS rendition marked `FORCED` or
    /// without `AUTOSELECT`).
    public var autoSelect: Bool

    public init(index: Int, kind: Kind, language: String?, name: String? = nil, autoSelect: Bool = true) {
        self.index = index
        self.kind = kind
        self.language = language
        self.name = name
        self.autoSelect = autoSelect
    }

    /// The number the closed captions go by (after any DVB stream a channel can have).
    public static let captionsIndex = 1000
    public static let closedCaptions = SubtitleTrack(index: captionsIndex, kind: .closedCaptions, language: nil)

    /// The number a teletext page goes by: unique per stream and page, stable while the source
    /// runs (and after the captions').
    public static func teletextIndex(stream: Int, page: Int) -> Int { 10_000 + stream * 1000 + page }

    /// `DVB`, `Teletext`, `CC1` or `WebVTT` (as a set-top box names them).
    public var format: String {
        switch kind {
        case .dvb: "DVB"
        case .closedCaptions: "CC1"
        case .teletext: "Teletext"
        case .webVTT: "WebVTT"
        }
    }

    /// The teletext page (`888`); nil for other tracks.
    public var page: Int? {
        if case .teletext(let page, _) = kind { page } else { nil }
    }
}

/// What a viewer chose for a channel's subtitles: off, or a track.
public enum SubtitleChoice: Sendable, Hashable {
    case off
    case track(TrackChoice)
}

/// Which subtitle track shows. Pure.
public enum SubtitleSelection {
    /// The viewer's choice for this channel (off, or a track the channel has); else the first of
    /// `preferred` a track speaks; else none: subtitles are off unless asked for.
    public static func choose(_ tracks: [SubtitleTrack], remembered: SubtitleChoice?, preferred: [String]) -> Int? {
        switch remembered {
        case .off: return nil
        case .track(let choice): if let index = TrackSelection.remembered(tracks, choice) { return index }
        case nil: break
        }
        return TrackSelection.preferred(tracks.filter(\.autoSelect), preferred)
    }

    /// The track after `current`, and off after the last (then the first again).
    public static func next(_ tracks: [SubtitleTrack], after current: Int?) -> Int? {
        guard let current, let i = tracks.firstIndex(where: { $0.index == current }) else { return tracks.first?.index }
        return i + 1 < tracks.count ? tracks[i + 1].index : nil
    }
}

/// What a viewer asks of a channel's subtitles.
public enum SubtitleRequest: Sendable, Hashable, CustomStringConvertible {
    case off
    /// The closed captions of the video (`cc`, `CC1`).
    case captions
    /// A track by number or language; `next` goes through the tracks, then off.
    case pick(TrackRequest)

    /// `off`, `cc`, `next`, a track number from 1, or a language (`deu`, `German`); nil for
    /// anything else.
    public init?(_ text: String) {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "off", "none": self = .off
        case "cc", "cc1", "captions": self = .captions
        default:
            guard let request = TrackRequest(text) else { return nil }
            self = .pick(request)
        }
    }

    public var description: String {
        switch self {
        case .off: "off"
        case .captions: "closed captions"
        case .pick(let request): request.description
        }
    }
}
