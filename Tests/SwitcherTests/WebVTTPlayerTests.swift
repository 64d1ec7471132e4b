import Foundation
import GStreamer
import Headend
import Lineup
import Logging
import LoopbackStreams
import Switcher
import TestSupport
import Testing

/// WebVTT subtitles of live HLS channels through the whole player (issue 15): a master playlist
/// with an H.264 variant and an English WebVTT rendition, served live on loopback. The video
/// shows a white marker in its top-left corner during every other 2 s segment, and exactly those
/// segments carry a cue, so the cue's text must be in the picture when, and only when, the marker
/// is: checked by the pixels of the output's snapshots.
@Suite(.serialized, .heavy) struct WebVTTPlayerTests {
    static let logger = Logger(label: "test")
    /// Fractions of the picture: the marker, and the band the text is drawn in.
    static let marker = (x: 0.02, y: 0.02, width: 0.15, height: 0.15)
    static let band = (x: 0.05, y: 0.78, width: 0.9, height: 0.2)
    static let cue = "Hello from WebVTT"

    /// 60 s of dark blue 320x240 H.264 (no B-frames, a keyframe every 2 s) with the marker in
    /// the first half of every 4 s, cut in 2 s segments.
    static func clip() throws -> HLSClip {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-webvtt-clips")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("marked-60s.ts").path
        if !FileManager.default.fileExists(atPath: path) {
            let ffmpeg = Process()
            ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
            ffmpeg.arguments = ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=0x203060:s=320x240:r=25:d=60",
                                "-vf", "drawbox=x=0:y=0:w=80:h=60:color=white:t=fill:enable='lt(mod(t\\,4)\\,2)'",
                                "-c:v", "libx264", "-preset", "ultrafast", "-bf", "0", "-g", "50", "-keyint_min", "50",
                                "-sc_threshold", "0", "-pix_fmt", "yuv420p", "-f", "mpegts", path + ".part"]
            try ffmpeg.run()
            ffmpeg.waitUntilExit()
            guard ffmpeg.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
            try FileManager.default.moveItem(atPath: path + ".part", toPath: path)
        }
        return try HLSClip(path: path, segmentSeconds: 2)
    }

    static func server(_ clip: HLSClip, subtitles: Bool = true) throws -> LiveHLSServer {
        try LiveHLSServer(clip: clip, window: 4, subtitles: subtitles
            ? LiveHLSServer.Subtitles(name: "English CC", language: "en") { $0 % 2 == 0 ? cue : nil } : nil)
    }

    /// The share of bright pixels of each region in one snapshot.
    static func look(_ player: Player) async -> (marker: Double, band: Double)? {
        guard let png = try? await player.snapshotPNG(width: nil), let image = try? ImageCodec.decode(bytes: png) else { return nil }
        func share(_ r: (x: Double, y: Double, width: Double, height: Double)) -> Double {
            let x0 = Int(r.x * Double(image.width)), y0 = Int(r.y * Double(image.height))
            let w = Int(r.width * Double(image.width)), h = Int(r.height * Double(image.height))
            let pixels = (y0..<(y0 + h)).flatMap { y in (x0..<(x0 + w)).map { x in image.rgba(x: x, y: y) } }
            let bright = pixels.filter { (Int($0.r) + Int($0.g) + Int($0.b)) / 3 > 160 }
            return Double(bright.count) / Double(max(1, pixels.count))
        }
        return (share(marker), share(band))
    }

    /// Snapshots for `seconds`: how many had the marker, the text, and both or neither.
    static func watch(_ player: Player, seconds: Double) async -> (looks: Int, marker: Int, text: Int, agree: Int) {
        var looks = 0, marked = 0, text = 0, agree = 0
        let until = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < until {
            if let l = await look(player) {
                looks += 1
                let m = l.marker > 0.5, t = l.band > 0.01
                if m { marked += 1 }
                if t { text += 1 }
                if m == t { agree += 1 }
            }
            try? await Task.sleep(for: .milliseconds(120))
        }
        return (looks, marked, text, agree)
    }

    static func options() -> PlayerOptions {
        var options = PlayerOptions(sink: .headless, width: 320, height: 256, fps: 25, warm: .all)
        options.bannerSeconds = 0  // the banner after a flip would cover the text's band
        options.messageDuration = .zero  // and so would the message a choice shows
        return options
    }

    @Test func theCueShowsAtItsTimeWhenChosenAndNeverOnAnotherChannel() async throws {
        try GStreamer.initialize()
        let clip = try await offPool { try Self.clip() }
        let subtitled = try Self.server(clip), plain = try Self.server(clip, subtitles: false)
        defer { subtitled.stop(); plain.stop() }
        let lineup = Lineup(channels: [Channel(id: "vtt", number: ChannelNumber(1), name: "Subtitled", sources: [subtitled.url]),
                                       Channel(id: "plain", number: ChannelNumber(2), name: "Plain", sources: [plain.url])])
        let player = try Player(lineup: lineup, options: Self.options(), logger: Self.logger)
        try await player.start()
        #expect(await waitUntil(20) { await player.status().channel?.number == ChannelNumber(1) })

        // Listed with its language and name; off unasked (the lineup prefers no language).
        #expect(await waitUntil(10) { await player.subtitleStatus().subtitles.tracks.count == 1 })
        let listed = await player.subtitleStatus().subtitles
        let described = listed.tracks.map { [$0.language, $0.name, $0.format] }
        #expect(described == [["eng", "English CC", "WebVTT"]] && listed.showing == nil, "\(listed)")
        let unasked = await Self.watch(player, seconds: 4)
        #expect(unasked.marker > 0 && unasked.text == 0, "no text while off, the picture plays: \(unasked)")

        // Chosen: the text is in the picture exactly while the marked segments play.
        let on = try await player.selectSubtitles("eng")
        #expect(on.subtitles.showing == WebVTTSubtitles.firstIndex)
        try await Task.sleep(for: .milliseconds(500))
        let shown = await Self.watch(player, seconds: 10)
        #expect(shown.text >= shown.looks / 4 && shown.marker >= shown.looks / 4, "the cue shows, not always: \(shown)")
        #expect(Double(shown.agree) >= 0.9 * Double(shown.looks), "the text comes and goes with its segments: \(shown)")

        // Off hides it.
        _ = try await player.selectSubtitles("off")
        try await Task.sleep(for: .milliseconds(300))
        let hidden = await Self.watch(player, seconds: 4.5)
        #expect(hidden.marker > 0 && hidden.text == 0, "off: no text \(hidden)")

        // On again, then a flip away: the other channel never shows it.
        _ = try await player.selectSubtitles("1")
        #expect(await waitUntil(6) { await Self.look(player).map { $0.band > 0.01 } ?? false }, "on again")
        #expect(await waitUntil(10) { await player.channels()[1].state.tier == .warm })
        let away = await player.flip(.tune(ChannelNumber(2)))
        #expect(away.ok, "\(away.error ?? "")")
        let other = await Self.watch(player, seconds: 5)
        #expect(other.marker > 0 && other.text == 0, "no text on the plain channel: \(other)")
        #expect(await player.subtitleStatus().subtitles == SubtitleState(tracks: [], showing: nil))

        // Back: the remembered choice shows again.
        let back = await player.flip(.tune(ChannelNumber(1)))
        #expect(back.ok)
        #expect(await waitUntil(8) { await Self.look(player).map { $0.band > 0.01 } ?? false }, "back: on again")
        await player.shutdown()
    }

    /// A rendition whose segments are no WebVTT, whose playlist is 404 or never answers: the
    /// picture plays on, nothing is drawn, and each says what is wrong once.
    @Test(arguments: [LiveHLSServer.SubtitleMode.notWebVTT, .missing, .hanging])
    func badSubtitlesNeverStallThePicture(_ mode: LiveHLSServer.SubtitleMode) async throws {
        try GStreamer.initialize()
        let server = try Self.server(try await offPool { try Self.clip() })
        server.subtitleMode = mode
        defer { server.stop() }
        let warnings = WarningCounter()
        let lineup = Lineup(channels: [Channel(id: "bad", number: ChannelNumber(1), name: "Bad Subtitles", sources: [server.url])],
                            settings: ["subtitle-languages": "eng"])
        let player = try Player(lineup: lineup, options: Self.options(), logger: Logger(label: "test") { _ in warnings })
        try await player.start()
        #expect(await waitUntil(20) { await player.status().channel?.number == ChannelNumber(1) })
        // The rendition is listed (the master names it) and chosen by the preferred language.
        #expect(await waitUntil(10) { await player.subtitleStatus().subtitles.showing == WebVTTSubtitles.firstIndex })
        // Long enough for several reloads (a hanging request gives up after its deadline).
        let seen = await Self.watch(player, seconds: mode == .hanging ? 14 : 8)
        #expect(seen.marker > 0 && seen.marker < seen.looks && seen.text == 0, "the picture plays on, no text: \(seen)")
        #expect(server.subtitleFetches >= 2, "the rendition was tried again: \(server.subtitleFetches)")
        let told = warnings.messages.filter { $0.contains("English CC subtitles") }
        #expect(told.count == 1, "said once: \(told) all: \(warnings.messages)")
        let expected = switch mode {
        case .notWebVTT: "not a WebVTT file"
        case .missing: "HTTP 404"
        default: "did not answer"
        }
        #expect(told.first?.contains(expected) == true, "\(told)")
        await player.shutdown()
    }
}
