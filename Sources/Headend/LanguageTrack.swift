import GStreamer

/// A stream of a channel that a viewer picks by number or language: an audio track or a
/// subtitle track.
public protocol LanguageTrack: Sendable {
    /// The stream's number in the ingest; stable while the source runs.
    var index: Int { get }
    /// ISO 639-2/T code (`deu`, `eng`), nil when the stream does not say.
    var language: String? { get }
}

extension LanguageTrack {
    /// The language in English (`German`), when known.
    public var languageName: String? { language.flatMap(LanguageCode.name) }
}

/// What a viewer chose among a channel's tracks: a language (kept across stream reordering and
/// reconnects) or, for tracks that name none, a track number.
public enum TrackChoice: Sendable, Hashable, CustomStringConvertible {
    case language(String)
    case track(Int)

    public var description: String {
        switch self {
        case .language(let code): code
        case .track(let index): "track \(index + 1)"
        }
    }
}

public typealias AudioChoice = TrackChoice

/// Picking among a channel's tracks of one kind, the same way for sound and subtitles. Pure.
public enum TrackSelection {
    /// The track `remembered` names, when the channel has it.
    public static func remembered<T: LanguageTrack>(_ tracks: [T], _ remembered: TrackChoice?) -> Int? {
        switch remembered {
        case .language(let code): tracks.first(where: { $0.language == code })?.index
        case .track(let index): tracks.contains(where: { $0.index == index }) ? index : nil
        case nil: nil
        }
    }

    /// The first track that speaks the first of `preferred` (ISO 639-2/T codes, in order) it can.
    public static func preferred<T: LanguageTrack>(_ tracks: [T], _ preferred: [String]) -> Int? {
        for code in preferred {
            if let t = tracks.first(where: { $0.language == code }) { return t.index }
        }
        return nil
    }

    /// The track after `current` in stream order, wrapping; the first when `current` is not
    /// among them. Nil without tracks.
    public static func next<T: LanguageTrack>(_ tracks: [T], after current: Int?) -> Int? {
        guard !tracks.isEmpty else { return nil }
        guard let current, let i = tracks.firstIndex(where: { $0.index == current }) else { return tracks[0].index }
        return tracks[(i + 1) % tracks.count].index
    }

    /// What to remember for `track`: its language when it has one (a second track in the same
    /// language is remembered by number).
    public static func choice<T: LanguageTrack>(for track: T, among tracks: [T]) -> TrackChoice {
        if let code = track.language, tracks.filter({ $0.language == code }).count == 1 { return .language(code) }
        return .track(track.index)
    }

    /// The track `request` asks for among `tracks` while `current` plays (`next` is not asked
    /// here: audio wraps, subtitles go to off after the last). Throws `TrackSelectionError`
    /// `noSuchTrack` naming what the channel has; `kind` names the tracks in messages
    /// (`audio track`, `subtitle track`) and `speech` what a language is missing in (`sound`).
    public static func target<T: LanguageTrack>(_ request: TrackRequest, among tracks: [T], current: Int?, channel: String,
                                                kind: String, speech: String) throws -> T? {
        switch request {
        case .next:
            return next(tracks, after: current).flatMap { i in tracks.first { $0.index == i } }
        case .track(let position):
            guard tracks.indices.contains(position) else {
                throw TrackSelectionError(code: .noSuchTrack, message: "channel \(channel) has \(tracks.count) \(kind)\(tracks.count == 1 ? "" : "s"); there is no track \(position + 1)")
            }
            return tracks[position]
        case .language(let code):
            let speaking = tracks.filter { $0.language == code }
            guard !speaking.isEmpty else {
                let spoken = tracks.compactMap(\.language)
                throw TrackSelectionError(code: .noSuchTrack, message: "channel \(channel) has no \(speech) in \(request)\(spoken.isEmpty ? "" : "; it has \(spoken.joined(separator: ", "))")")
            }
            return next(speaking, after: current).flatMap { i in speaking.first { $0.index == i } } ?? speaking[0]
        }
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
