import GStreamer

/// One audio stream of a channel, as its ingest found it.
public struct AudioTrack: LanguageTrack, Hashable {
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
}

/// Which audio track plays. Pure.
public enum AudioSelection {
    /// The viewer's choice for this channel when the channel has it; else the first of
    /// `preferred` (ISO 639-2/T codes, in order) that a track speaks; else the first track.
    /// Nil without tracks.
    public static func choose(_ tracks: [AudioTrack], remembered: AudioChoice?, preferred: [String]) -> Int? {
        guard let first = tracks.first else { return nil }
        return TrackSelection.remembered(tracks, remembered) ?? TrackSelection.preferred(tracks, preferred) ?? first.index
    }

    /// The track after `current` in stream order, wrapping; the first when `current` is not
    /// among them. Nil without tracks.
    public static func next(_ tracks: [AudioTrack], after current: Int?) -> Int? { TrackSelection.next(tracks, after: current) }

    /// What to remember for `track`: its language when it has one (a second track in the same
    /// language is remembered by number).
    public static func choice(for track: AudioTrack, among tracks: [AudioTrack]) -> AudioChoice {
        TrackSelection.choice(for: track, among: tracks)
    }

    /// Preferred languages from a setting such as `deu, eng` or `de eng`: normalised to ISO
    /// 639-2/T; the words that are no language come back in `unknown`.
    public static func languages(_ setting: String) -> (codes: [String], unknown: [String]) { TrackSelection.languages(setting) }
}
