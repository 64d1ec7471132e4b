import FlipboxCore
import Foundation
import GStreamer
import Headend
import Lineup
import Logging
import LoopbackStreams
import Switcher
import Testing
import TestSupport

/// A box with default settings on 8 channels of an IPTV account that allows 2 connections and
/// ends the oldest when a third opens: every flip shows the channel asked for, the channel on
/// screen is never cut (it was, by warm channels' reconnects, 7 flips in 24), and the server ends
/// a handful of streams in the whole run (hundreds a minute before). Run in the quiet phase
/// (`make test`'s `TimingTests`): learning reads the time between a stream opening and another
/// ending, which two test processes at full load on 2 cores stretched past its 1.5 s window.
@Suite(.serialized) struct PoolPlayerTimingTests {
    @Test func everyFlipShowsItsChannelAndTheScreenIsNeverCut() async throws {
        try GStreamer.initialize()
        var clips: [TransportStreamClip] = []
        for i in 0..<8 {
            let format = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 4,
                                    bitrateKbps: 300, hue: i * 30, toneHz: 300 + 20 * i)
            clips.append(try TransportStreamClip(path: try await format.made(in: ClipFormat.cacheDirectory)))
        }
        let server = try LivePoolServer(clips: clips, streams: 2, whenFull: .endsOldest)
        defer { server.stop() }
        let lineup = Lineup(channels: (0..<8).map { i in
            Channel(id: "pool\(i + 1)", number: ChannelNumber(i + 1), name: "Pool \(i + 1)", sources: [server.url(channel: i)])
        })
        var options = PlayerOptions(sink: .headless, width: 320, height: 180, fps: 25, warm: .all)
        options.bannerSeconds = 0
        let player = try Player(lineup: lineup, options: options, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        try await player.start()
        #expect(await waitUntil(15) { await player.status().channel != nil }, "the first channel shows")
        let learned = await waitUntil(20) { await player.status().pools.first?.limit == 2 }
        let pools = await player.status().pools
        #expect(learned, "\(pools)")

        var results: [FlipResult] = []
        var cutWhileShown: [String] = []
        for _ in 0..<7 {
            let result = await player.next()
            results.append(result)
            guard result.ok, let number = result.channel.flatMap({ ChannelNumber($0.number) }), let i = lineup.index(of: number) else { continue }
            // A second later the channel is still streaming: nothing of the box's own ended it.
            try await Task.sleep(for: .seconds(1))
            if !server.openChannels.contains(i) { cutWhileShown.append("\(number): open \(server.openChannels)") }
        }
        #expect(results.allSatisfy { $0.ok }, "\(results.map { $0.error ?? "ok" })")
        #expect(results.compactMap { $0.channel?.number } == ["2", "3", "4", "5", "6", "7", "8"])
        #expect(cutWhileShown.isEmpty, "\(cutWhileShown)")
        #expect(server.maxOpen <= 3 && server.endedByServer <= 3, "most open \(server.maxOpen), ended \(server.endedByServer)")
        let pool = try #require(await player.status().pools.first)
        #expect(pool.limit == 2 && pool.limitOrigin == "learned" && pool.open <= 2, "\(pool)")
        await player.shutdown()
    }
}
