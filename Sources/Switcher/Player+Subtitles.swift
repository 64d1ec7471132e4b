import FlipboxCore
import Foundation
import GStreamer
import Headend
import Lineup

/// The subtitles of the channel on screen: its tracks and the one shown.
public struct SubtitleStatus: Sendable, Hashable {
    public var channel: ChannelSummary?
    public var subtitles: SubtitleState
    public init(channel: ChannelSummary?, subtitles: SubtitleState) {
        self.channel = channel
        self.subtitles = subtitles
    }
}

extension Player {
    /// The subtitle tracks of the channel on screen and the one shown.
    public func subtitleStatus() -> SubtitleStatus {
        guard let index = machine.current else { return SubtitleStatus(channel: nil, subtitles: SubtitleState(tracks: [], showing: nil)) }
        let channel = lineup.channels[index]
        return SubtitleStatus(channel: ChannelSummary(channel), subtitles: headend.subtitles(of: channel))
    }

    /// Shows the subtitles `spec` names on the channel on screen: `next` (the tracks in turn,
    /// then off), `off`, `cc` (closed captions), a track number (1 for the first) or a language
    /// (`deu`, `German`). The choice is remembered for the channel and shown on screen. Throws
    /// `TrackSelectionError` (not understood, no channel, no such track).
    public func selectSubtitles(_ spec: String) async throws -> SubtitleStatus {
        guard let request = SubtitleRequest(spec) else {
            throw TrackSelectionError(code: .badRequest, message: "'\(spec)' is no subtitle track; use next, off, cc, a track number from 1, or a language code such as deu or eng")
        }
        guard let index = machine.current, let feed = machine.shownFeed else {
            throw TrackSelectionError(code: .notPlaying, message: "no channel is playing")
        }
        let state = try await headend.selectSubtitles(request, feed: feed)
        if let position = state.tracks.firstIndex(where: { $0.index == state.showing }) {
            let track = state.tracks[position]
            showMessage("Subtitles: \(track.languageName ?? track.language ?? track.format) · \(track.format)\(track.page.map { " \($0)" } ?? "") (\(position + 1)/\(state.tracks.count))")
        } else {
            showMessage(state.tracks.isEmpty ? "No subtitles" : "Subtitles off")
        }
        return SubtitleStatus(channel: ChannelSummary(lineup.channels[index]), subtitles: state)
    }
}
