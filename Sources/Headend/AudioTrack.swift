import GStreamer

/// One audio stream of a channel, as its ingest found it.
public struct AudioTrack: Sendable, Hashable {
    /// The stream's number in the ingest (0 for the first found); stable while the source runs.
    public var index: Int
    public var family: AudioFamily
    /// ISO 639-2/T code (`deu`, `eng`), nil when the stream does not say.
    public var language: String?
    public var channels: Int?

    public init(index: Int, family: AudioFamily, language: String?, channels: Int? = nil) {
        self.index = index
        self.family = family
        self.language = language
        self.channels = channels
    }

    init(index: Int, caps: Caps, language: String?) {
        self.init(index: index, family: AudioFamily(caps: caps), language: language, channels: caps.int("channels"))
    }

    /// The language in English (`German`), when known.
    public var languageName: String? { language.flatMap(LanguageCode.name) }
}

/// What a viewer chose for a channel's sound: a language (kept across stream reordering and
/// reconnects) or, for tracks that name none, a track number.
public enum AudioChoice: Sendable, Hashable, CustomStringConvertible {
    case language(String)
    case track(Int)

    public var description: String {
        switch self {
        case .language(let code): code
        case .track(let index): "track \(index + 1)"
        }
    }
}

/// Which audio track plays. Pure.
public enum AudioSelection {
    /// The viewer's choice for this channel when the channel has it; else the first of
    /// `preferred` (ISO 639-2/T codes, in order) that a track speaks; else the first track.
    /// Nil without tracks.
    public static func choose(_ tracks: [AudioTrack], remembered: AudioChoice?, preferred: [String]) -> Int? {
        guard let first = tracks.first else { return nil }
        switch remembered {
        case .language(let code):
            if let t = tracks.first(where: { $0.language == code }) { return t.index }
        case .track(let index):
            if tracks.contains(where: { $0.index == index }) { return index }
        case nil:
            break
        }
        for code in preferred {
            if let t = tracks.first(where: { $0.language == code }) { return t.index }
        }
        return first.index
    }

    /// The track after `current` in stream order, wrapping; the first when `current` is not
    /// among them. Nil without tracks.
    public static func next(_ tracks: [AudioTrack], after current: Int?) -> Int? {
        guard !tracks.isEmpty else { return nil }
        guard let current, let i = tracks.firstIndex(where: { $0.index == current }) else { return tracks[0].index }
        return tracks[(i + 1) % tracks.count].index
    }

    /// What to remember for `track`: its language when it has one (a second track in the same
    /// language is remembered by number).
    public static func choice(for track: AudioTrack, among tracks: [AudioTrack]) -> AudioChoice {
        if let code = track.language, tracks.filter({ $0.language == code }).count == 1 { return .language(code) }
        return .track(track.index)
    }

    /// Preferred languages from a setting such as `deu, eng` or `de eng`: normalised to ISO
    /// 639-2/T; the words that are no language come back in `unknown`.
    public static func languages(_ setting: String) -> (codes: [String], unknown: [String]) {
        var codes: [String] = [], unknown: [String] = []
        for word in setting.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "[" || $0 == "]" }) {
            let w = String(word)
            if let code = LanguageCode.normalized(w) { if !codes.contains(code) { codes.append(code) } } else { unknown.append(w) }
        }
        return (codes, unknown)
    }
}
