import Foundation
import Headend
import Hummingbird
import Switcher

/// The audio endpoints: `GET /api/v1/audio` lists the tracks of the channel on screen and the
/// one playing; `POST /api/v1/audio/{track}` plays `next`, a track number (from 1) or a language
/// (`deu`, `de`, `German`), remembered for the channel. Bad track 400, no such track 404, no
/// channel or no sound 409.
struct AudioRoutes<Player: AudioControl> {
    let player: Player

    func register(on table: APIRouteTable) {
        let player = self.player
        table.onTracks("/api/v1/audio", status: { AudioStatusJSON(await player.audioStatus()) },
                       select: { AudioStatusJSON(try await player.selectAudio($0)) })
    }
}

extension APIRouteTable {
    /// The routes of one kind of track (sound, subtitles): `GET path` answers `status`,
    /// `POST path/{track}` answers `select` with the (percent-decoded) word; its errors answer by
    /// their kind (400, 404, 409).
    func onTracks<Answer: Encodable & Sendable>(_ path: String, status: @escaping @Sendable () async -> Answer,
                                                 select: @escaping @Sendable (String) async throws -> Answer) {
        on(path, [.get: { _, _ in JSONResponse.make(.ok, await status()) }])
        on(path + "/{track}", [.post: { _, context in
            let text = context.parameters.get("track").flatMap { $0.removingPercentEncoding } ?? ""
            return await JSONResponse.answer { try await select(text) }
        }])
    }
}

/// One audio track: `{"track", "language", "languageName", "codec", "channels", "description", "passthrough", "playing"}`;
/// `track` numbers the channel's tracks from 1, as `POST /api/v1/audio/{track}` takes them.
struct AudioTrackJSON: Encodable, Sendable {
    var track: Int
    var language: String?
    var languageName: String?
    var codec: String
    var channels: Int?
    /// Audio description (a voice describing the picture).
    var description: Bool
    /// Sent undecoded to the receiver behind HDMI (`--audio-passthrough`).
    var passthrough: Bool
    var playing: Bool

    enum CodingKeys: String, CodingKey { case track, language, languageName, codec, channels, description, passthrough, playing }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(track, forKey: .track)
        try c.encode(language, forKey: .language)
        try c.encode(languageName, forKey: .languageName)
        try c.encode(codec, forKey: .codec)
        try c.encode(channels, forKey: .channels)
        try c.encode(description, forKey: .description)
        try c.encode(passthrough, forKey: .passthrough)
        try c.encode(playing, forKey: .playing)
    }

    /// The tracks of `state`, numbered from 1.
    static func list(_ state: AudioState) -> [AudioTrackJSON] {
        state.tracks.enumerated().map { i, t in
            AudioTrackJSON(track: i + 1, language: t.language, languageName: t.languageName, codec: t.family.displayName,
                           channels: t.channels, description: t.describesPicture, passthrough: t.passedThrough, playing: t.index == state.playing)
        }
    }
}

/// `GET /api/v1/audio` and the answer of `POST /api/v1/audio/{track}`.
struct AudioStatusJSON: Encodable, Sendable {
    var status: AudioStatus
    init(_ status: AudioStatus) { self.status = status }

    enum CodingKeys: String, CodingKey { case channel, tracks, playing }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        let tracks = AudioTrackJSON.list(status.audio)
        try c.encode(status.channel.map(ChannelJSON.init), forKey: .channel)
        try c.encode(tracks, forKey: .tracks)
        try c.encode(tracks.first(where: \.playing)?.track, forKey: .playing)
    }
}

/// The video of a channel: `{"codec", "width", "height", "fps", "interlaced", "colour",
/// "colorimetry", "colourAssumed", "hdr", "peakLuminance"}`.
struct VideoJSON: Encodable, Sendable {
    var video: ChannelMedia.Video

    enum CodingKeys: String, CodingKey { case codec, width, height, fps, interlaced, colour, colorimetry, colourAssumed, hdr, peakLuminance }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(video.family == .other ? video.mediaType : video.family.displayName, forKey: .codec)
        try c.encode(video.width, forKey: .width)
        try c.encode(video.height, forKey: .height)
        try c.encode(video.framesPerSecond.map { ($0 * 100).rounded() / 100 }, forKey: .fps)
        try c.encode(video.interlaced, forKey: .interlaced)
        try c.encode(video.colour.description, forKey: .colour)
        try c.encode(video.colour.name, forKey: .colorimetry)
        try c.encode(video.colour.assumed, forKey: .colourAssumed)
        try c.encode(video.colour.isHDR, forKey: .hdr)
        try c.encode(video.colour.peakLuminance, forKey: .peakLuminance)
    }
}

/// The `video`, `audio`, `subtitles` and `radio` keys a channel's entry (and the status) carries.
enum MediaKeys: String, CodingKey {
    case video, audio, subtitles, radio

    static func encode(_ media: ChannelMedia?, into encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: MediaKeys.self)
        try c.encode(media?.video.map(VideoJSON.init), forKey: .video)
        try c.encode(media.map { AudioTrackJSON.list($0.audio) } ?? [], forKey: .audio)
        try c.encode(media.map { SubtitleTrackJSON.list($0.subtitles) } ?? [], forKey: .subtitles)
        try c.encode(media?.radio ?? false, forKey: .radio)
    }
}
