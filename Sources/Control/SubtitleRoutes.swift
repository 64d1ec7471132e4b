import Foundation
import Headend
import Hummingbird
import Switcher

/// The subtitle endpoints: `GET /api/v1/subtitles` lists the subtitle tracks of the channel on
/// screen (DVB streams and teletext pages, then the closed captions its video carries) and the one shown;
/// `POST /api/v1/subtitles/{track}` shows `next` (the tracks in turn, then off), `off`, `cc`, a
/// track number (from 1) or a language (`deu`, `German`), remembered for the channel. Bad track
/// 400, no such track 404 (the message lists what the channel has), no channel 409.
struct SubtitleRoutes<Player: SubtitleControl> {
    let player: Player

    func register(on table: APIRouteTable) {
        let player = self.player
        table.onTracks("/api/v1/subtitles", status: { SubtitleStatusJSON(await player.subtitleStatus()) },
                       select: { SubtitleStatusJSON(try await player.selectSubtitles($0)) })
    }
}

/// One subtitle track: `{"track", "language", "languageName", "name", "format", "page", "showing"}`;
/// `track` numbers the channel's tracks from 1, as `POST /api/v1/subtitles/{track}` takes them;
/// `name` is what the provider calls it (an HLS rendition's `NAME`, else null); `format` is
/// `DVB`, `Teletext`, `CC1` (closed captions) or `WebVTT`; `page` the teletext page (`888`),
/// null for the others.
struct SubtitleTrackJSON: Encodable, Sendable {
    var track: Int
    var language: String?
    var languageName: String?
    var name: String?
    var format: String
    var page: Int?
    var showing: Bool

    enum CodingKeys: String, CodingKey { case track, language, languageName, name, format, page, showing }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(track, forKey: .track)
        try c.encode(language, forKey: .language)
        try c.encode(languageName, forKey: .languageName)
        try c.encode(name, forKey: .name)
        try c.encode(format, forKey: .format)
        try c.encode(page, forKey: .page)
        try c.encode(showing, forKey: .showing)
    }

    /// The tracks of `state`, numbered from 1.
    static func list(_ state: SubtitleState) -> [SubtitleTrackJSON] {
        state.tracks.enumerated().map { i, t in
            SubtitleTrackJSON(track: i + 1, language: t.language, languageName: t.languageName, name: t.name, format: t.format,
                              page: t.page, showing: t.index == state.showing)
        }
    }
}

/// `GET /api/v1/subtitles` and the answer of `POST /api/v1/subtitles/{track}`: `showing` is the
/// number of the track shown, null when subtitles are off.
struct SubtitleStatusJSON: Encodable, Sendable {
    var status: SubtitleStatus
    init(_ status: SubtitleStatus) { self.status = status }

    enum CodingKeys: String, CodingKey { case channel, tracks, showing }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        let tracks = SubtitleTrackJSON.list(status.subtitles)
        try c.encode(status.channel.map(ChannelJSON.init), forKey: .channel)
        try c.encode(tracks, forKey: .tracks)
        try c.encode(tracks.first(where: \.showing)?.track, forKey: .showing)
    }
}
