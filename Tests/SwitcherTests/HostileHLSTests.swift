import Foundation
import GStreamer
import Headend
import Lineup
import Logging
import LoopbackStreams
import Switcher
import TestSupport
import Testing

/// Hostile HLS sources (issue 32, defect 1): a subtitle rendition whose WebVTT segments or
/// playlist carry numbers out of every range. Each once crashed the whole box within seconds
/// (`arithmetic overflow`, exit 132), warm or not, so with `Restart=always` a crash loop. Served
/// live on loopback, four such channels beside a plain one: the box keeps playing, says which
/// channel's subtitles were refused and why, and each hostile channel's picture still plays.
@Suite(.serialized, .heavy) struct HostileHLSTests {
    /// Channel 2 onwards: what each serves, and what the box must say about it.
    static let hostile: [(name: String, mode: LiveHLSServer.SubtitleMode, said: String)] = [
        ("Huge Hours", .hostileSegment("WEBVTT\n\n99999999999999999:00:00.000 --> 99999999999999999:00:01.000\nboom\n"),
         "is no cue timing"),
        ("Huge Ticks", .hostileSegment("WEBVTT\n\n2562047788015:00:00.000 --> 2562047788015:00:01.000\nboom\n"),
         "is no cue timing"),
        ("Negative Map", .hostileSegment("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:-9223372036854775808,LOCAL:00:00:00.000\n\n00:00.000 --> 00:01.000\nx\n"),
         "is no timestamp map"),
        ("Endless Sequence", .hostilePlaylist("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:9223372036854775807\n#EXTINF:2,\n0.vtt\n#EXTINF:2,\n1.vtt\n"),
         "media sequence 9223372036854775807"),
    ]

    @Test func hostileSubtitlesNeverStopTheBox() async throws {
        try GStreamer.initialize()
        let clip = try await offPool { try WebVTTPlayerTests.clip() }
        let plain = try WebVTTPlayerTests.server(clip, subtitles: false)
        let servers = try Self.hostile.map { h in
            let server = try WebVTTPlayerTests.server(clip)
            server.subtitleMode = h.mode
            return server
        }
        defer { plain.stop(); servers.forEach { $0.stop() } }
        var channels = [Channel(id: "plain", number: ChannelNumber(1), name: "Plain", sources: [plain.url])]
        for (i, h) in Self.hostile.enumerated() {
            channels.append(Channel(id: "hostile\(i)", number: ChannelNumber(i + 2), name: h.name, sources: [servers[i].url]))
        }
        let warnings = WarningCounter()
        let player = try Player(lineup: Lineup(channels: channels, settings: ["subtitle-languages": "eng"]),
                                options: WebVTTPlayerTests.options(), logger: Logger(label: "test") { _ in warnings })
        try await player.start()
        #expect(await waitUntil(20) { await player.status().channel?.number == ChannelNumber(1) })

        // Every hostile channel is warm, its subtitles followed: each is named with its reason.
        for (i, h) in Self.hostile.enumerated() {
            let named = await waitUntil(30) {
                warnings.messages.contains { $0.contains("channel \(i + 2) \(h.name)") && $0.contains(h.said) }
            }
            #expect(named, "channel \(i + 2) \(h.name) said \(h.said): \(warnings.messages)")
        }
        #expect(servers.allSatisfy { $0.subtitleFetches > 0 })

        // The plain channel played on through it all: its marker comes and goes.
        let seen = await WebVTTPlayerTests.watch(player, seconds: 4.5)
        #expect(seen.marker > 0 && seen.marker < seen.looks, "channel 1 plays: \(seen)")

        // Each hostile channel's picture plays too; only its subtitles were refused.
        for (i, h) in Self.hostile.enumerated() {
            let flip = await player.flip(.tune(ChannelNumber(i + 2)))
            #expect(flip.ok, "\(h.name): \(flip.error ?? "")")
            let shown = await WebVTTPlayerTests.watch(player, seconds: 4.5)
            #expect(shown.marker > 0 && shown.marker < shown.looks && shown.text == 0, "\(h.name) plays, no text: \(shown)")
        }
        let back = await player.flip(.tune(ChannelNumber(1)))
        #expect(back.ok)
        await player.shutdown()
    }
}
