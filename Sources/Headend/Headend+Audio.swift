import Foundation
import GStreamer
import Lineup

/// What a viewer asks of a channel's sound.
public enum AudioRequest: Sendable, Hashable, CustomStringConvertible {
    /// The next track, in stream order, wrapping.
    case next
    /// The track at this position of the channel's list (0 for the first).
    case track(Int)
    /// The track in this language (ISO 639-2/T; the next one when several speak it).
    case language(String)

    public var description: String {
        switch self {
        case .next: "the next track"
        case .track(let i): "track \(i + 1)"
        case .language(let code): LanguageCode.name(code).map { "\($0) (\(code))" } ?? code
        }
    }
}

/// A channel's audio tracks and the one that plays (or will, on a flip there).
public struct AudioState: Sendable, Hashable {
    public var tracks: [AudioTrack]
    /// The `index` of the track that plays; nil without tracks.
    public var playing: Int?
    public init(tracks: [AudioTrack], playing: Int?) {
        self.tracks = tracks
        self.playing = playing
    }
}

/// Why an audio request cannot be met; `message` is for the viewer.
public struct AudioSelectionError: DomainFailure {
    public enum Code: Sendable { case notPlaying, noAudio, noSuchTrack, badRequest }
    public var kind: FailureKind {
        switch code {
        case .badRequest: .badRequest
        case .noSuchTrack: .notFound
        case .notPlaying, .noAudio: .conflict
        }
    }
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }
    public var code: Code
    public var message: String
    public var description: String { message }
}

/// The viewer's audio choice per channel id, kept while the box runs. Any thread.
final class AudioChoices: @unchecked Sendable {
    private let lock = NSLock()
    private var choices: [String: AudioChoice] = [:]
    subscript(id: String) -> AudioChoice? {
        get { lock.withLock { choices[id] } }
        set { lock.withLock { choices[id] = newValue } }
    }
}

extension Headend {
    /// The audio stream `source` plays when decoded, and its caps: the viewer's choice for the
    /// channel, else the first preferred language, else the first stream.
    nonisolated func chosenAudio(_ source: ChannelSource) -> (stream: Int, caps: Caps?) {
        let tracks = source.cache.audioTracks
        let stream = AudioSelection.choose(tracks, remembered: audioChoices[source.channel.id], preferred: preferredLanguages) ?? 0
        return (stream, source.cache.audioCaps(stream: stream) ?? source.cache.audioCaps)
    }

    /// The audio of `channel`: its tracks and the one that plays when it is shown (the viewer's
    /// choice, else the preferred language, else the first).
    public nonisolated func audio(of channel: Channel) -> AudioState {
        guard let source = source(for: channel) else { return AudioState(tracks: [], playing: nil) }
        let tracks = source.cache.audioTracks
        return AudioState(tracks: tracks, playing: tracks.isEmpty ? nil : chosenAudio(source).stream)
    }

    /// Switches the sound of `feed` as `request` asks, and remembers the choice for its channel
    /// (by language when the track has one), so the next flip there plays it too. The picture
    /// plays on; the new track starts where the sound is.
    public func selectAudio(_ request: AudioRequest, feed: FeedID) throws -> AudioState {
        guard let entry = decoders[feed] else {
            throw AudioSelectionError(code: .notPlaying, message: "no channel is playing")
        }
        let channel = entry.source.channel
        let tracks = entry.source.cache.audioTracks
        guard !tracks.isEmpty else {
            throw AudioSelectionError(code: .noAudio, message: "channel \(channel.number) \(channel.name) has no sound")
        }
        let current = entry.decoder?.playingAudioStream ?? chosenAudio(entry.source).stream
        let target: AudioTrack
        switch request {
        case .next:
            let index = AudioSelection.next(tracks, after: current)!
            target = tracks.first { $0.index == index }!
        case .track(let position):
            guard tracks.indices.contains(position) else {
                throw AudioSelectionError(code: .noSuchTrack, message: "channel \(channel.number) has \(tracks.count) audio track\(tracks.count == 1 ? "" : "s"); there is no track \(position + 1)")
            }
            target = tracks[position]
        case .language(let code):
            let speaking = tracks.filter { $0.language == code }
            guard !speaking.isEmpty else {
                let spoken = tracks.compactMap(\.language)
                throw AudioSelectionError(code: .noSuchTrack, message: "channel \(channel.number) has no sound in \(request)\(spoken.isEmpty ? "" : "; it has \(spoken.joined(separator: ", "))")")
            }
            target = AudioSelection.next(speaking, after: current).flatMap { i in speaking.first { $0.index == i } } ?? speaking[0]
        }
        audioChoices[channel.id] = AudioSelection.choice(for: target, among: tracks)
        if let decoder = entry.decoder, target.index != decoder.playingAudioStream,
           let caps = entry.source.cache.audioCaps(stream: target.index) {
            do {
                try decoder.selectAudio(stream: target.index, caps: caps)
            } catch {
                logger.error("channel \(channel.number): cannot switch to audio track \(target.index + 1): \(error)")
                throw AudioSelectionError(code: .noSuchTrack, message: "cannot play audio track \(target.index + 1) of channel \(channel.number): \(error)")
            }
            logger.info("channel \(channel.number) \(channel.name): audio track \(target.index + 1) (\(target.languageName ?? target.language ?? "no language"), \(target.family.displayName))")
        }
        return AudioState(tracks: tracks, playing: target.index)
    }
}

extension AudioRequest {
    /// `next`, a track number from 1, or a language (`deu`, `de`, `ger`, `German`); nil for
    /// anything else.
    public init?(_ text: String) {
        let t = text.trimmingCharacters(in: .whitespaces)
        if t.lowercased() == "next" {
            self = .next
        } else if let n = Int(t) {
            guard n >= 1 else { return nil }
            self = .track(n - 1)
        } else if let code = LanguageCode.normalized(t) {
            self = .language(code)
        } else {
            return nil
        }
    }
}
