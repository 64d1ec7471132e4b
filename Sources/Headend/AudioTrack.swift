import GStreamer

/// One audio stream of a channel, as its ingest found it.
public struct AudioTrack: LanguageTrack, Hashable {
    /// The stream's number in the ingest (0 for the first found); stable while the source runs.
    public var index: Int
    public var family: AudioFamily
    /// ISO 639-2/T code (`deu`, `eng`), nil when the stream does not say.
    public var language: String?
    public var channels: Int?
    /// Audio description: a voice that describes the picture for people who cannot see it.
    /// Not chosen unasked unless the box is set to prefer it (`audio-description: true`).
    public var describesPicture: Bool
    /// Sent undecoded to the receiver behind HDMI or S/PDIF when it plays (`--audio-passthrough`).
    public var passedThrough: Bool

    public init(index: Int, family: AudioFamily, language: String?, channels: Int? = nil, describesPicture: Bool = false,
                passedThrough: Bool = false) {
        self.index = index
        self.family = family
        self.language = language
        self.channels = channels
        self.describesPicture = describesPicture
        self.passedThrough = passedThrough
    }

    init(index: Int, caps: Caps, language: String?, describesPicture: Bool = false) {
        self.init(index: index, family: AudioFamily(caps: caps), language: language, channels: caps.int("channels"),
                  describesPicture: describesPicture)
    }
}

/// Which audio track plays. Pure.
public enum AudioSelection {
    /// The viewer's choice for this channel when the channel has it; else the first of
    /// `preferred` (ISO 639-2/T codes, in order) that a track speaks; else the first track.
    /// Audio description tracks are left out of the last two unless `describing` (the box is set
    /// to prefer them): then they come first, in the same order. Nil without tracks.
    public static func choose(_ tracks: [AudioTrack], remembered: AudioChoice?, preferred: [String], describing: Bool = false) -> Int? {
        guard !tracks.isEmpty else { return nil }
        let wanted = tracks.filter { $0.describesPicture == describing }
        let candidates = wanted.isEmpty ? tracks : wanted
        // A language remembered finds the main sound in it before its description; a track the
        // viewer picked by number (a description too) is theirs.
        return TrackSelection.remembered(candidates, remembered) ?? TrackSelection.remembered(tracks, remembered)
            ?? TrackSelection.preferred(candidates, preferred) ?? candidates[0].index
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
