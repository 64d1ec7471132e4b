import FlipboxCore
import Foundation
import GStreamer
import Lineup

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

extension Headend {
    /// The audio stream `source` plays when decoded, and its caps: the viewer's choice for the
    /// channel, else the first preferred language, else the first stream.
    nonisolated func chosenAudio(_ source: ChannelSource) -> (stream: Int, caps: Caps?) {
        let tracks = source.cache.audioTracks
        let stream = AudioSelection.choose(tracks, remembered: audioChoices[source.channel.id], preferred: preferredLanguages,
                                           describing: prefersAudioDescription) ?? 0
        return (stream, source.cache.audioCaps(stream: stream) ?? source.cache.audioCaps)
    }

    /// The audio tracks of `source`, each marked when it is passed through undecoded.
    nonisolated func audioTracks(_ source: ChannelSource) -> [AudioTrack] {
        source.cache.audioTracks.map { track in
            var t = track
            t.passedThrough = target.passthrough.contains(track.family)
            return t
        }
    }

    /// The audio of `channel`: its tracks and the one that plays when it is shown (the viewer's
    /// choice, else the preferred language, else the first).
    public nonisolated func audio(of channel: Channel) -> AudioState {
        guard let source = source(for: channel) else { return AudioState(tracks: [], playing: nil) }
        let tracks = audioTracks(source)
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
        let tracks = audioTracks(entry.source)
        guard !tracks.isEmpty else {
            throw AudioSelectionError(code: .noAudio, message: "channel \(channel.number) \(channel.name) has no sound")
        }
        let current = entry.decoder?.playingAudioStream ?? chosenAudio(entry.source).stream
        guard let target = try TrackSelection.target(request, among: tracks, current: current, channel: "\(channel.number)",
                                                     kind: "audio track", speech: "sound") else { return AudioState(tracks: tracks, playing: current) }
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
