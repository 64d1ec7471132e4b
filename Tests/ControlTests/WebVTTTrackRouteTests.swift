import Control
import Foundation
import Headend
import Lineup
import Switcher
import Testing

/// A WebVTT rendition in a channel's `subtitles`: its format, language and the provider's name.
@Suite struct WebVTTTrackRouteTests {
    @Test func listsTheRenditionWithItsName() async throws {
        var media = FakePlayer.redMedia
        media.subtitles = SubtitleState(tracks: [SubtitleTrack(index: 0, kind: .dvb, language: "deu"),
                                                 SubtitleTrack(index: WebVTTSubtitles.firstIndex, kind: .webVTT, language: "eng", name: "English (CC)")],
                                        showing: WebVTTSubtitles.firstIndex)
        let player = FakePlayer(channels: [ChannelStatus(channel: FakePlayer.red, state: .hot, media: media)])
        try await withControlAPI(player) { client in
            let channels = try jsonObject(try await client.execute(uri: "/api/v1/channels", method: .get))["channels"] as? [[String: Any]]
            let tracks = try #require(channels?.first?["subtitles"] as? [[String: Any]])
            #expect(tracks.map { $0["format"] as? String } == ["DVB", "WebVTT"])
            #expect(tracks.map { $0["languageName"] as? String } == ["German", "English"])
            #expect(tracks[0]["name"] is NSNull && tracks[1]["name"] as? String == "English (CC)")
            #expect(tracks.map { $0["showing"] as? Bool } == [false, true])
        }
    }
}
