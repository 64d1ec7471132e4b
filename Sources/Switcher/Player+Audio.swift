import FlipboxCore
import Foundation
import GStreamer
import Headend
import Lineup
import Output

/// The sound of the channel on screen: its tracks and the one playing.
public struct AudioStatus: Sendable, Hashable {
    public var channel: ChannelSummary?
    public var audio: AudioState
    public init(channel: ChannelSummary?, audio: AudioState) {
        self.channel = channel
        self.audio = audio
    }
}

extension Player {
    /// The audio tracks of the channel on screen and the one playing.
    public func audioStatus() -> AudioStatus {
        guard let index = machine.current else { return AudioStatus(channel: nil, audio: AudioState(tracks: [], playing: nil)) }
        let channel = lineup.channels[index]
        return AudioStatus(channel: ChannelSummary(channel), audio: headend.audio(of: channel))
    }

    /// Switches the sound of the channel on screen to `spec`: `next`, a track number (1 for the
    /// first) or a language (`deu`, `de`, `German`). The choice is remembered for the channel and
    /// shown on screen. Throws `AudioSelectionError` (no channel, no sound, no such track).
    public func selectAudio(_ spec: String) async throws -> AudioStatus {
        guard let request = AudioRequest(spec) else {
            throw AudioSelectionError(code: .badRequest, message: "'\(spec)' is not an audio track; use next, a track number from 1, or a language code such as deu or eng")
        }
        guard let index = machine.current, let feed = machine.shownFeed else {
            throw AudioSelectionError(code: .notPlaying, message: "no channel is playing")
        }
        let state = try await headend.selectAudio(request, feed: feed)
        let channel = lineup.channels[index]
        if let playing = state.playing, let position = state.tracks.firstIndex(where: { $0.index == playing }) {
            let track = state.tracks[position]
            let language = track.languageName ?? track.language ?? "Track \(position + 1)"
            showMessage("♪ \(language) · \(track.family.displayName) (\(position + 1)/\(state.tracks.count))")
        }
        return AudioStatus(channel: ChannelSummary(channel), audio: state)
    }

    /// Renders the radio card of channel `index` (a channel without video) unless it has one:
    /// its picture while its sound plays. A plain stand-in shows until it is ready.
    func prepareRadioCard(_ index: Int) {
        let channel = lineup.channels[index]
        guard headend.sources[index].cache.isAudioOnly, !headend.stills.has(channel.id) else { return }
        startJob(.radioCard(index)) { player in
            let frame = await player.radioCard(channel)
            guard !Task.isCancelled else { return }
            player.headend.stills.set(frame, for: channel.id)
        }
    }

    private func radioCard(_ channel: Channel) async -> Buffer {
        let logoPath: String? = if let logo = channel.logo { try? await logoCache.localPath(for: logo) } else { nil }
        let fields = CardFields(number: channel.number.description, name: channel.name, group: channel.group ?? "",
                                logoPath: logoPath, status: "Radio", programmes: nowNext(channel).cardFields)
        return await cards.render(template: InterstitialCards.radioName, fields: fields)
    }
}
