import FlipboxCore
import Foundation
import GStreamer
import Headend
import Lineup
import Logging
import LoopbackStreams
@testable import Switcher
import TestSupport
import Testing

/// Broadcast streams through the whole player and its headless output (issue 15): a channel
/// with two AC-3 languages plays the preferred one and switches on request; a radio channel
/// flips like any other and shows its card. Checked by the output's sound and pixels.
@Suite(.serialized, .heavy) struct BroadcastPlayerTests {
    static let logger = Logger(label: "test")

    /// The repository's card templates (the radio card among them).
    static let interstitials = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Interstitials").standardized.path

    /// Sends each clip on its own loopback UDP port: channel 1, 2, … with these names.
    static func send(_ clips: [(ClipFormat, String)]) async throws -> ([TransportStreamSender], [Channel]) {
        var senders: [TransportStreamSender] = []
        var channels: [Channel] = []
        do {
            for (i, (format, name)) in clips.enumerated() {
                let clip = try TransportStreamClip(path: try await format.made(in: ClipFormat.cacheDirectory))
                let port = Int.random(in: 41000...49000)
                senders.append(try TransportStreamSender(clip: clip, port: port))
                channels.append(Channel(id: "c\(i + 1)", number: ChannelNumber(i + 1), name: name, sources: ["udp://127.0.0.1:\(port)"]))
            }
        } catch {
            for s in senders { s.stop() }
            throw error
        }
        return (senders, channels)
    }

    func hears(_ player: Player, _ hz: Double, over other: Double) -> Bool {
        let a = player.output.recentAudio(milliseconds: 400)
        return a.count >= 48 * 300 * 2 && tonePower(a, hz) > 10 * max(tonePower(a, other), 1e-9)
    }

    @Test func languagesSwitchAndRadioPlaysWithItsCard() async throws {
        try GStreamer.initialize()
        var tv = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 4, bitrateKbps: 400, colour: 0x0000FF)
        tv.audioCodec = .ac3
        tv.audioTracks = [.init(toneHz: 440, language: "deu"), .init(toneHz: 1000, language: "eng")]
        let radio = ClipFormat.radio(.mp2, toneHz: 600)
        let (senders, channels) = try await Self.send([(tv, "Two Languages"), (radio, "Radio")])
        defer { for s in senders { s.stop() } }
        let lineup = Lineup(channels: channels, settings: ["audio-languages": "eng"])
        var options = PlayerOptions(sink: .headless, width: 320, height: 180, fps: 25, warm: .all)
        options.interstitials = Self.interstitials
        let player = try Player(lineup: lineup, options: options, logger: Self.logger)
        try await player.start()
        #expect(await waitUntil(20) { await player.status().channel?.number == ChannelNumber(1) })
        #expect(await waitUntil(10) { hears(player, 1000, over: 440) }, "English, the preferred language, plays")
        let media = await player.status().media
        #expect(media?.audio.tracks.map(\.language) == ["deu", "eng"], "status lists the tracks: \(String(describing: media))")

        let german = try await player.selectAudio("German")
        #expect(german.audio.playing == 0)
        #expect(await waitUntil(5) { hears(player, 440, over: 1000) }, "German plays after the switch")
        let next = try await player.selectAudio("next")
        #expect(next.audio.playing == 1)
        #expect(await waitUntil(5) { hears(player, 1000, over: 440) }, "English again")
        await #expect(throws: AudioSelectionError.self) { try await player.selectAudio("fra") }

        #expect(await waitUntil(10) { let radio = await player.channels()[1]; return radio.state.tier == .warm && radio.media?.radio == true })
        let flip = await player.flip(.tune(ChannelNumber(2)))
        #expect(flip.ok, "a flip to radio completes: \(flip.error ?? "")")
        #expect(await waitUntil(5) { hears(player, 600, over: 1000) }, "the radio plays")
        #expect(await player.status().media?.radio == true)
        // The radio card (Interstitials/radio.svg: orange level bars in the middle) replaces the stand-in.
        let card = await waitUntil(15) {
            guard let png = try? await player.snapshotPNG(width: nil), let image = try? ImageCodec.decode(bytes: png) else { return false }
            let bars = image.meanRGB(x: 125, y: 62, width: 66, height: 55)
            return bars.r > 60 && bars.r > bars.b
        }
        #expect(card, "the radio card shows")
        await #expect(throws: AudioSelectionError.self) { try await player.selectAudio("2") }
        await player.shutdown()
    }

    /// A cold flip to radio shows the tuning card (the channel is not known as radio until its
    /// streams are). The radio card replaces it when the sound comes, and the sound plays from
    /// then on: the flip does not wait out the tuning card's minimum time (6 s here, so waiting
    /// it out cannot pass for a slow source).
    @Test func aColdRadioFlipPlaysItsSoundWithoutWaitingOutTheTuningCard() async throws {
        try GStreamer.initialize()
        let tv = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 4, bitrateKbps: 400, colour: 0x0000FF)
        let radio = ClipFormat.radio(.mp2, toneHz: 600)
        let (senders, channels) = try await Self.send([(tv, "Television"), (radio, "Radio")])
        defer { for s in senders { s.stop() } }
        var options = PlayerOptions(sink: .headless, width: 320, height: 180, fps: 25, warm: .none,
                                    switcher: SwitcherSettings(cardDelay: .zero, cardMinimum: .seconds(6), tuneTimeout: .seconds(8)))
        options.interstitials = Self.interstitials
        let player = try Player(lineup: Lineup(channels: channels), options: options, logger: Self.logger)
        try await player.start()
        #expect(await waitUntil(20) { await player.status().channel?.number == ChannelNumber(1) })
        #expect(await player.channels()[1].state.tier != .warm, "the radio channel is cold")

        let flip = await player.flip(.tune(ChannelNumber(2)))
        #expect(flip.ok, "a cold flip to radio completes: \(flip.error ?? "")")
        #expect(flip.interstitialShown, "the tuning card showed while the radio connected")
        let latency = try #require(flip.latency)
        #expect(latency < .seconds(6), "the radio card took the tuning card's place when the sound came, after \(latency)")
        #expect(await waitUntil(3) { hears(player, 600, over: 1000) }, "the radio plays under its card")
        #expect(await player.status().media?.radio == true)
        await player.shutdown()
    }
}
