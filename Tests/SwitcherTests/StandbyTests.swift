import Foundation
import GStreamer
import Lineup
import Logging
import Output
@testable import Switcher
import TestSupport
import Testing

/// TV standby (HDMI-CEC's standby and power-on, driven here directly): every channel cold and
/// the output black, then the last channel back. Real pipelines, headless output, pixels.
@Suite(.serialized, .heavy) struct StandbyTests {
    @Test func standbyReleasesTheWarmPoolAndResumeReturnsToTheLastChannel() async throws {
        try GStreamer.initialize()
        let lineup = Lineup(channels: [
            Channel(id: "r", number: ChannelNumber(1), name: "Red", sources: ["test://color/ff0000?size=160x90&gop=15"]),
            Channel(id: "g", number: ChannelNumber(2), name: "Green", sources: ["test://color/00ff00?size=160x90&gop=15"]),
            Channel(id: "b", number: ChannelNumber(3), name: "Blue", sources: ["test://color/0000ff?size=160x90&gop=15"]),
        ])
        let options = PlayerOptions(sink: .headless, width: 320, height: 180, fps: 30, warm: .all)
        let player = try Player(lineup: lineup, options: options, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        try await player.start()
        #expect(await waitUntil(30) { await player.channels().allSatisfy { $0.state.tier != .cold } })
        #expect(await player.flip(.tune(ChannelNumber(2))).ok)
        #expect(await waitUntil(30) { (try? await overlaySnapshot(player)).map { region($0, (140, 70, 40, 40), is: (0, 255, 0)) } ?? false })

        await player.standby()
        #expect(await player.isStandingBy)
        #expect(await waitUntil(30) { await player.channels().allSatisfy { $0.state.tier == .cold } },
                "every channel cold: \(player.headend.states().map(\.tier))")
        #expect(await waitUntil(30) { (try? await overlaySnapshot(player)).map { region($0, (0, 0, 320, 180), is: (0, 0, 0), tolerance: 8) } ?? false },
                "the output is black")
        await player.standby() // idempotent
        #expect(await player.status().channel?.number == ChannelNumber(2), "the switcher keeps its channel")

        let result = await player.resume()
        #expect(result?.ok == true && result?.channel?.number == "2", "resume tunes the channel that was on: \(String(describing: result))")
        #expect(await !player.isStandingBy)
        #expect(await waitUntil(30) { (try? await overlaySnapshot(player)).map { region($0, (140, 70, 40, 40), is: (0, 255, 0)) } ?? false },
                "channel 2's picture is back")
        #expect(await waitUntil(30) { await player.channels().allSatisfy { $0.state.tier != .cold } }, "the warm pool is back")
        #expect(await player.resume() == nil, "resume when awake does nothing")
        await player.shutdown()
    }
}
