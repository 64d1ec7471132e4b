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

/// Flips that supersede one another in a pool of one stream (a one-connection IPTV account, a
/// one-tuner device): a viewer pressing channel up three times fast, every channel cold. The flip
/// superseded while its channel connects must let its stream go before the next flip's opens:
/// the server never sees two streams of the box at once, refuses none, and the channel asked
/// last shows. A press that comes soon after the one before waits a moment before it connects,
/// so the presses of a run open one stream or two, not one each.
@Suite(.serialized, .heavy) struct SupersededFlipPoolTests {
    init() throws { try GStreamer.initialize() }

    @Test func flipsThatSupersedeEachOtherNeverOpenTwoStreamsOfAOneStreamPool() async throws {
        var clips: [TransportStreamClip] = []
        for i in 0..<4 {
            let format = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 4,
                                    bitrateKbps: 300, hue: i * 60, toneHz: 300 + 20 * i)
            clips.append(try TransportStreamClip(path: try await format.made(in: ClipFormat.cacheDirectory)))
        }
        let server = try LivePoolServer(clips: clips, streams: 1, whenFull: .refuse, retryAfter: nil)
        defer { server.stop() }
        let lineup = Lineup(channels: (0..<4).map { i in
            Channel(id: "pool\(i + 1)", number: ChannelNumber(i + 1), name: "Pool \(i + 1)", sources: [server.url(channel: i)])
        })
        var options = PlayerOptions(sink: .headless, width: 320, height: 180, fps: 25, warm: .none)
        options.bannerSeconds = 0
        var map = StreamPoolMap()
        map.hostLimits = [try #require(StreamPoolMap.HostLimit("127.0.0.1=1"))]
        options.pools = PoolSettings(map: map)
        var log = Logger(label: "test") { label -> any LogHandler in
            ProcessInfo.processInfo.environment["FLIPBOX_TEST_LOG"] != nil ? StreamLogHandler.standardError(label: label) : SwiftLogNoOpLogHandler()
        }
        log.logLevel = Logger.Level.debug
        let player = try Player(lineup: lineup, options: options, logger: log)
        try await player.start()
        #expect(await waitUntil(15) { await player.status().channel?.number == ChannelNumber(1) }, "channel 1 shows")
        try await Task.sleep(for: .seconds(1))

        // Up, up, up: each flip 40 ms after the one before (long before its channel connects),
        // then 300 ms after (while it connects, its slot taken).
        for (round, gap) in [40, 40, 300, 300].enumerated() {
            let servedBefore = server.streamsServed.values.reduce(0, +)
            let first = Task { await player.next() }
            try await Task.sleep(for: .milliseconds(gap))
            let second = Task { await player.next() }
            try await Task.sleep(for: .milliseconds(gap))
            let last = await player.next()
            let superseded = [await first.value, await second.value]
            #expect(superseded.allSatisfy { !$0.ok }, "round \(round): the first two are superseded: \(superseded)")
            #expect(last.ok, "round \(round): the last flip shows its channel: \(last.error ?? "")")
            // One stream per round: the channel reached. Presses 300 ms apart: the first press
            // connects too (nothing said another would come); the second waits for the third.
            let served = server.streamsServed.values.reduce(0, +) - servedBefore
            #expect(served <= (gap < 100 ? 1 : 2), "round \(round) (presses \(gap) ms apart): \(served) streams opened")
            try await Task.sleep(for: .seconds(1))
        }
        #expect(server.maxOpen <= 1, "the server saw \(server.maxOpen) streams of the box at once")
        #expect(server.refusals == 0, "the server refused \(server.refusals) streams")
        await player.shutdown()
    }
}
