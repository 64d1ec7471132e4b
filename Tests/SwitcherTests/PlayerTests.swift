import FlipboxCore
import Foundation
import GStreamer
import Lineup
import Logging
import Output
@testable import Switcher
import TestSupport
import Testing

/// The player with a real headless output and real synthetic channels, in process.
@Suite(.serialized, .heavy) struct PlayerTests {
    static let logger = Logger(label: "test")

    func makePlayer(_ channels: [(String, String)], timeout: Duration = .seconds(8)) throws -> Player {
        try GStreamer.initialize()
        let lineup = Lineup(channels: channels.enumerated().map { i, c in
            Channel(id: "c\(i + 1)", number: ChannelNumber(i + 1), name: c.0, sources: [c.1])
        })
        let options = PlayerOptions(sink: .headless, width: 320, height: 180, fps: 30, warm: .all, tuneTimeout: timeout)
        return try Player(lineup: lineup, options: options, logger: Self.logger)
    }

    @Test func audioFollowsTheShownChannel() async throws {
        let player = try makePlayer([
            ("Low", "test://color/ff0000?size=160x90&gop=15&tone=440"),
            ("High", "test://color/0000ff?size=160x90&gop=15&tone=1200"),
        ])
        try await player.start()
        defer { Task { await player.shutdown() } }
        #expect(await waitUntil(15) { await player.status().channel?.number == ChannelNumber(1) })
        #expect(await waitUntil(5) { await player.channels().allSatisfy { $0.state.tier != .cold } })
        // Waits for the sound rather than sleeping a fixed time: a loaded run may take longer
        // to fill the output's 300 ms, and the check is what is heard, not when.
        func hears(_ wanted: Double, over other: Double) async -> Bool {
            await waitUntil(5) {
                let audio = player.output.recentAudio(milliseconds: 300)
                return audio.count > 48 * 200 && tonePower(audio, wanted) > 20 * tonePower(audio, other)
            }
        }
        #expect(await hears(440, over: 1200), "channel 1's 440 Hz tone is heard")

        let result = await player.flip(.next)
        #expect(result.ok && result.channel?.number == "2")
        #expect(await hears(1200, over: 440), "channel 2's 1200 Hz tone replaced channel 1's")
        // And it stays replaced: channel 1's sound does not come back.
        try await Task.sleep(for: .milliseconds(400))
        let audio = player.output.recentAudio(milliseconds: 300)
        #expect(tonePower(audio, 1200) > 20 * tonePower(audio, 440), "channel 2's tone is still the one heard")
        await player.shutdown()
    }

    @Test func everyRequestGetsExactlyOneResult() async throws {
        let player = try makePlayer([
            ("A", "test://color/ff0000?size=160x90&gop=15"),
            ("B", "test://color/00ff00?size=160x90&gop=15"),
            ("C", "test://color/0000ff?size=160x90&gop=15"),
        ])
        let events = player.events()
        try await player.start()
        #expect(await waitUntil(15) { await player.status().channel?.number == ChannelNumber(1) })
        #expect(await waitUntil(5) { await player.channels().allSatisfy { $0.state.tier != .cold } })

        let collector = Task { () -> [FlipResult] in
            var results: [FlipResult] = []
            for await e in events { if case .flipCompleted(let r) = e { results.append(r) } }
            return results
        }
        // A burst of flips, 20 ms apart, then some unknown and direct ones.
        let burst = await keyRepeat(player, .next, count: 7, spacing: .milliseconds(20))
        let unknown = await player.flip(.tune(ChannelNumber(42)))
        let direct = await player.flip(.tune(ChannelNumber(3)))
        await player.shutdown()
        let published = await collector.value

        #expect(Set(burst.map(\.requestID)).count == 7)
        #expect(burst.allSatisfy { $0.outcome == .completed || $0.outcome == .superseded })
        #expect(burst.contains { $0.outcome == .completed })
        // 1 + 7 steps over three channels lands on channel 2.
        let last = burst.max { $0.requestID < $1.requestID }
        #expect(last?.outcome == .completed && last?.channel?.number == "2", "\(String(describing: last))")
        #expect(unknown.outcome == .failed && unknown.failure == .unknownChannel && unknown.error == "No channel 42")
        #expect(direct.ok && direct.channel?.number == "3")
        for r in burst + [unknown, direct] {
            #expect(published.filter { $0.requestID == r.requestID }.count == 1, "request \(r.requestID) published once")
            #expect(published.first { $0.requestID == r.requestID } == r, "the published result is the returned one")
        }
    }
}
