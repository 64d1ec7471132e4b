import FlipboxCore
import Foundation
import GStreamer
import Lineup

/// A channel's subtitle tracks and the one shown (or that will be, on a flip there).
public struct SubtitleState: Sendable, Hashable {
    public var tracks: [SubtitleTrack]
    /// The `index` of the track shown; nil when subtitles are off.
    public var showing: Int?
    public init(tracks: [SubtitleTrack], showing: Int?) {
        self.tracks = tracks
        self.showing = showing
    }
}

extension Headend {
    /// The subtitles `source` shows when decoded: the viewer's choice for the channel (which may
    /// be off), else the first track in a preferred subtitle language, else none.
    nonisolated func chosenSubtitles(_ source: ChannelSource) -> SubtitleTrack? {
        let tracks = source.subtitleTracks
        let index = SubtitleSelection.choose(tracks, remembered: subtitleChoices[source.channel.id], preferred: preferredSubtitleLanguages)
        return tracks.first { $0.index == index }
    }

    /// The subtitles of `channel`: its tracks and the one shown when it is on screen.
    public nonisolated func subtitles(of channel: Channel) -> SubtitleState {
        guard let source = source(for: channel) else { return SubtitleState(tracks: [], showing: nil) }
        return SubtitleState(tracks: source.subtitleTracks, showing: chosenSubtitles(source)?.index)
    }

    /// Shows the subtitles of `feed` that `request` asks for (or none), and remembers the choice
    /// for its channel, so the next flip there shows them too. Throws `TrackSelectionError`: no
    /// channel playing, no such track (the message says what the channel has).
    public func selectSubtitles(_ request: SubtitleRequest, feed: FeedID) throws -> SubtitleState {
        guard let entry = decoders[feed] else {
            throw TrackSelectionError(code: .notPlaying, message: "no channel is playing")
        }
        let channel = entry.source.channel
        let tracks = entry.source.subtitleTracks
        let current = entry.decoder.map { $0.shownSubtitles?.index } ?? chosenSubtitles(entry.source)?.index
        let target: SubtitleTrack?
        switch request {
        case .off:
            target = nil
        case .captions:
            guard let captions = tracks.first(where: { $0.kind == .closedCaptions }) else {
                throw TrackSelectionError(code: .noSuchTrack, message: "channel \(channel.number) carries no closed captions\(Self.listing(tracks))")
            }
            target = captions
        case .pick(.next):
            target = SubtitleSelection.next(tracks, after: current).flatMap { i in tracks.first { $0.index == i } }
        case .pick(let pick):
            target = try TrackSelection.target(pick, among: tracks, current: current, channel: "\(channel.number)",
                                               kind: "subtitle track", speech: "subtitles")
        }
        subtitleChoices[channel.id] = target.map { .track(TrackSelection.choice(for: $0, among: tracks)) } ?? .off
        if let problem = entry.decoder?.showSubtitles(target, webVTT: entry.source.webVTT) {
            logger.warning("channel \(channel.number) \(channel.name): teletext page \(target?.page ?? 0) cannot be decoded (\(problem)); is GStreamer's teletextdec installed (gstreamer1.0-plugins-bad)? Run flipbox doctor")
        }
        logger.info("channel \(channel.number) \(channel.name): subtitles \(target.map { "\($0.format) \($0.languageName ?? $0.language ?? "")" } ?? "off")")
        return SubtitleState(tracks: tracks, showing: target?.index)
    }

    /// A subtitle stream of the channel `feed` shows delivered its first page (media thread):
    /// when nothing is drawn yet, draw what the viewer's choice or the preferred languages pick
    /// now that the stream is known.
    func subtitleStreamAppeared(feed: FeedID) {
        guard let entry = decoders[feed], let decoder = entry.decoder, decoder.shownSubtitles == nil,
              subtitleChoices[entry.source.channel.id] != .off, let track = chosenSubtitles(entry.source) else { return }
        decoder.showSubtitles(track, webVTT: entry.source.webVTT)
    }

    /// `source` found its WebVTT renditions (media thread): as `subtitleStreamAppeared` for
    /// each feed showing it.
    func subtitleTracksAppeared(_ source: ChannelSource) {
        for (feed, entry) in decoders where entry.source === source { subtitleStreamAppeared(feed: feed) }
    }

    /// The teletext branch of `decoder` failed (media thread): it is taken out, the picture
    /// plays on without it.
    func teletextFailed(_ decoder: ChannelDecoder) {
        decoder.stopTeletext()
    }

    private static func listing(_ tracks: [SubtitleTrack]) -> String {
        tracks.isEmpty ? "" : "; it has " + tracks.map { $0.language ?? $0.format }.joined(separator: ", ")
    }
}
