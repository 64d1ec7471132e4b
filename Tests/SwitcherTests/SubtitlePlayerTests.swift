import Foundation
import GStreamer
import Headend
import Lineup
import Logging
import LoopbackStreams
import Switcher
import TestSupport
import Testing

/// Subtitles through the whole player and its headless output (issue 15): DVB subtitles made by
/// `dvbsubenc` and CEA-708 captions made by `cccombiner`, sent live over loopback UDP. Checked
/// by the pixels of the output's snapshot: the subtitle region is bright where subtitles show,
/// dark where they are off, and nothing of them stays after a flip to another channel.
@Suite(.serialized, .heavy) struct SubtitlePlayerTests {
    static let logger = Logger(label: "test")

    /// The share of pixels brighter than mid-grey in `region` (fractions of the picture).
    func brightShare(_ player: Player, _ region: (x: Double, y: Double, width: Double, height: Double)) async -> Double? {
        guard let png = try? await player.snapshotPNG(width: nil), let image = try? ImageCodec.decode(bytes: png) else { return nil }
        let x0 = Int(region.x * Double(image.width)), y0 = Int(region.y * Double(image.height))
        let w = Int(region.width * Double(image.width)), h = Int(region.height * Double(image.height))
        var bright = 0
        for y in y0..<(y0 + h) {
            for x in x0..<(x0 + w) {
                let p = image.rgba(x: x, y: y)
                if (Int(p.r) + Int(p.g) + Int(p.b)) / 3 > 160 { bright += 1 }
            }
        }
        return Double(bright) / Double(max(1, w * h))
    }

    /// Whether the region shows subtitles (`on`: more than `threshold` of it bright) or none,
    /// for `steady` seconds after it first does. Off: in every snapshot (a page that lingers
    /// fails). On: in at least 4 of 5 snapshots (captions redrawn once a second can miss a frame
    /// on a loaded machine; a page that is gone half the time still fails). Starts after the
    /// moment a message (`Subtitles off`) may flash. What was seen is printed when it fails.
    func shows(_ on: Bool, _ player: Player, _ region: (x: Double, y: Double, width: Double, height: Double),
               within seconds: Double = 8, steady: Double = 1.5, threshold: Double = 0.02) async -> Bool {
        try? await Task.sleep(for: .milliseconds(700))
        guard await waitUntil(seconds, { await brightShare(player, region).map { ($0 > threshold) == on } ?? false }) else {
            print("shows(\(on)): not within \(seconds) s; last share \(String(describing: await brightShare(player, region)))")
            return false
        }
        let until = ContinuousClock.now + .milliseconds(Int(steady * 1000))
        var shares: [Double] = []
        while ContinuousClock.now < until {
            if let share = await brightShare(player, region) { shares.append(share) }
            try? await Task.sleep(for: .milliseconds(100))
        }
        let agreeing = shares.filter { ($0 > threshold) == on }.count
        let steadyEnough = on ? shares.count >= 3 && agreeing * 5 >= shares.count * 4 : agreeing == shares.count
        if !steadyEnough { print("shows(\(on)): not steady over \(steady) s: shares \(shares.map { String(format: "%.3f", $0) })") }
        return steadyEnough
    }

    @Test func dvbSubtitlesAndCaptionsShowWhereAskedAndNeverOnAnotherChannel() async throws {
        try GStreamer.initialize()
        let dvb = SubtitleClip(.dvb(language: "deu"))
        let captions = SubtitleClip(.captions)
        let plain = ClipFormat(codec: .h264, width: 720, height: 576, fps: 25, gopSeconds: 1, seconds: 4, bitrateKbps: 400, colour: 0x102040)
        let paths = [try await dvb.made(in: ClipFormat.cacheDirectory), try await captions.made(in: ClipFormat.cacheDirectory),
                     try await plain.made(in: ClipFormat.cacheDirectory)]
        let (senders, channels) = try loopbackChannels(paths, idPrefix: "s", names: ["DVB Subtitles", "Captions", "Plain"])
        defer { for s in senders { s.stop() } }
        let lineup = Lineup(channels: channels, settings: ["subtitle-languages": "deu, eng"])
        var options = PlayerOptions(sink: .headless, width: 320, height: 256, fps: 25, warm: .all)
        options.bannerSeconds = 0  // the banner after a flip would cover the subtitles' region
        options.messageDuration = .zero  // and so would the message a choice shows
        let player = try Player(lineup: lineup, options: options, logger: Self.logger)
        try await player.start()
        #expect(await waitUntil(20) { await player.status().channel?.number == ChannelNumber(1) })

        // German DVB subtitles: on unasked (the lineup prefers German), listed with the channel.
        #expect(await waitUntil(10) { await player.subtitleStatus().subtitles.tracks.count == 1 })
        let listed = await player.subtitleStatus().subtitles
        #expect(listed.tracks.map(\.language) == ["deu"] && listed.tracks.map(\.kind) == [.dvb] && listed.showing == 0, "\(listed)")
        #expect(await player.status().media?.subtitles.tracks.count == 1, "status lists the subtitle tracks")
        #expect(await shows(true, player, dvb.region, threshold: 0.5), "the German subtitles show")

        let off = try await player.selectSubtitles("off")
        #expect(off.subtitles.showing == nil)
        #expect(await shows(false, player, dvb.region, threshold: 0.5), "no subtitles once off")
        let next = try await player.selectSubtitles("next")
        #expect(next.subtitles.showing == 0)
        #expect(await shows(true, player, dvb.region, threshold: 0.5), "on again with next")
        await #expect(throws: TrackSelectionError.self) { try await player.selectSubtitles("fra") }
        await #expect(throws: TrackSelectionError.self) { try await player.selectSubtitles("7") }
        await #expect(throws: TrackSelectionError.self) { try await player.selectSubtitles("what is this") }

        // A flip to a channel without subtitles: nothing of the page stays on its picture.
        #expect(await waitUntil(10) { await player.channels()[2].state.tier == .warm })
        let toPlain = await player.flip(.tune(ChannelNumber(3)))
        #expect(toPlain.ok, "\(toPlain.error ?? "")")
        #expect(await shows(false, player, dvb.region, within: 3, steady: 3), "no subtitle pixels on the next channel")
        #expect(await player.subtitleStatus().subtitles == SubtitleState(tracks: [], showing: nil))

        // Captions: listed as CC1, off until asked (they name no language), drawn when chosen.
        #expect(await waitUntil(10) { await player.channels()[1].media?.subtitles.tracks.contains { $0.kind == .closedCaptions } == true })
        let toCaptions = await player.flip(.tune(ChannelNumber(2)))
        #expect(toCaptions.ok, "\(toCaptions.error ?? "")")
        let cc = await player.subtitleStatus().subtitles
        #expect(cc.tracks.map(\.format) == ["CC1"] && cc.showing == nil, "\(cc)")
        #expect(await shows(false, player, captions.region, within: 3), "captions stay off unasked")
        let shown = try await player.selectSubtitles("cc")
        #expect(shown.subtitles.showing == SubtitleTrack.captionsIndex)
        #expect(await shows(true, player, captions.region, within: 15), "the captions show")  // a loaded run starts them late

        // Back to the DVB channel: its remembered choice (on) shows; then to the plain one.
        let back = await player.flip(.tune(ChannelNumber(1)))
        #expect(back.ok)
        #expect(await shows(true, player, dvb.region, threshold: 0.5), "the DVB channel keeps its subtitles on")
        let last = await player.flip(.tune(ChannelNumber(3)))
        #expect(last.ok)
        #expect(await shows(false, player, captions.region, within: 3, steady: 2), "no captions on the plain channel")
        let dvbRegion = await brightShare(player, dvb.region) ?? 1
        #expect(dvbRegion < 0.02, "no subtitles on the plain channel")
        await player.shutdown()
    }

    /// A cold flip (the decoder is bound at the first keyframe, perhaps before the subtitle
    /// stream said anything) shows the preferred subtitles too.
    @Test func aColdFlipShowsThePreferredSubtitlesOnceTheStreamIsKnown() async throws {
        try GStreamer.initialize()
        let dvb = SubtitleClip(.dvb(language: "eng"))
        let port = Int.random(in: 41000...49000)
        let clip = try TransportStreamClip(path: try await dvb.made(in: ClipFormat.cacheDirectory))
        let lineup = Lineup(channels: [Channel(id: "cold", number: ChannelNumber(1), name: "Cold", sources: ["udp://127.0.0.1:\(port)"])],
                            settings: ["subtitle-languages": "English"])
        var options = PlayerOptions(sink: .headless, width: 320, height: 256, fps: 25, warm: WarmPolicy.none)
        options.bannerSeconds = 0
        options.messageDuration = .zero
        let player = try Player(lineup: lineup, options: options, logger: Self.logger)
        try await player.start()
        // The sender starts once the first flip is on its way (`start` asks for it without
        // waiting; half a second is ample for it to reach the head-end): nothing is cached
        // before the flip. Started first, a loaded machine could cache a keyframe between the
        // start's plan and its flip, and the flip would be warm.
        try await Task.sleep(for: .milliseconds(500))
        let sender = try TransportStreamSender(clip: clip, port: port)
        defer { sender.stop() }
        #expect(await waitUntil(20) { await player.status().channel?.number == ChannelNumber(1) })
        let path = await player.status().lastFlip?.path
        #expect(path == .cold, "the first flip to a channel kept cold is cold: \(String(describing: path))")
        #expect(await shows(true, player, dvb.region, within: 10, threshold: 0.5), "the English subtitles show")
        #expect(await player.subtitleStatus().subtitles.showing == 0)
        await player.shutdown()
    }

    /// CEA-608 captions only (no 708 service): drawn from their decoded text when chosen.
    @Test func cea608CaptionsShowWhenChosen() async throws {
        try GStreamer.initialize()
        let cc = SubtitleClip(.cea608)
        let port = Int.random(in: 41000...49000)
        let sender = try TransportStreamSender(clip: try TransportStreamClip(path: try await cc.made(in: ClipFormat.cacheDirectory)), port: port)
        defer { sender.stop() }
        let lineup = Lineup(channels: [Channel(id: "cc", number: ChannelNumber(1), name: "Captions", sources: ["udp://127.0.0.1:\(port)"])])
        var options = PlayerOptions(sink: .headless, width: 320, height: 256, fps: 25, warm: .all)
        options.bannerSeconds = 0
        options.messageDuration = .zero
        let player = try Player(lineup: lineup, options: options, logger: Self.logger)
        try await player.start()
        #expect(await waitUntil(20) { await player.subtitleStatus().subtitles.tracks.map(\.format) == ["CC1"] })
        #expect(await shows(false, player, cc.region, within: 3), "off until chosen")
        _ = try await player.selectSubtitles("cc")
        #expect(await shows(true, player, cc.region), "the 608 caption shows")
        _ = try await player.selectSubtitles("off")
        #expect(await shows(false, player, cc.region), "and goes when off")
        await player.shutdown()
    }
}
