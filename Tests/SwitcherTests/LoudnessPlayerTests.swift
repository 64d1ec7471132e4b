import FlipboxCore
import Foundation
import GStreamer
import Lineup
import Logging
@testable import Switcher
import TestSupport
import Testing

/// Issue 15's loudness normaliser through the whole player: two channels 24 dB apart play at
/// about one loudness with `normalizeAudio`, and as they are without. Checked by the output's sound.
@Suite(.serialized, .heavy) struct LoudnessPlayerTests {
    static let logger = Logger(label: "test")

    /// The output's loudness over the last 400 ms, in dB of full scale (mean square).
    func loudness(_ player: Player) -> Double {
        let a = player.output.recentAudio(milliseconds: 400)
        guard !a.isEmpty else { return -120 }
        let meanSquare = a.reduce(0.0) { $0 + (Double($1) / 32768) * (Double($1) / 32768) } / Double(a.count)
        return 10 * log10(max(meanSquare, 1e-12))
    }

    /// Each channel's loudness on the output once its sound has played a while.
    func levels(normalize: Bool) async throws -> [Double] {
        try GStreamer.initialize()
        let lineup = Lineup(channels: [
            Channel(id: "loud", number: ChannelNumber(1), name: "Loud", sources: ["test://ball?size=160x90&fps=25&gop=25&tone=440&volume=0.4"]),
            Channel(id: "quiet", number: ChannelNumber(2), name: "Quiet", sources: ["test://ball?size=160x90&fps=25&gop=25&tone=660&volume=0.025"]),
        ])
        var options = PlayerOptions(sink: .headless, width: 160, height: 90, fps: 25, warm: .all)
        options.normalizeAudio = normalize
        let player = try Player(lineup: lineup, options: options, logger: Self.logger)
        try await player.start()
        var levels: [Double] = []
        for number in [1, 2, 1] {
            let result = await player.flip(FlipRequest.tune(ChannelNumber(number)))
            #expect(result.ok, "tune \(number): \(result)")
            // The sound first (on a loaded machine it may come seconds after the picture), then
            // at least 1.5 s of it, until the level holds within 1 dB for half a second: the
            // normaliser's level settles from the channel's first sound (slower on a loaded machine).
            let deadline = ContinuousClock.now + .seconds(15)
            while loudness(player) < -80, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            try await Task.sleep(for: .milliseconds(1500))
            var level = loudness(player)
            let settleBy = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < settleBy {
                try await Task.sleep(for: .milliseconds(500))
                let next = loudness(player)
                defer { level = next }
                if abs(next - level) < 1 { break }
            }
            levels.append(level)
        }
        await player.shutdown()
        return levels
    }

    @Test func normalisedChannelsPlayAtAboutOneLoudness() async throws {
        let levels = try await levels(normalize: true)
        #expect(levels.allSatisfy { $0 > -40 }, "sound plays: \(levels)")
        #expect(abs(levels[0] - levels[1]) < 3, "loud \(levels[0]) dB, quiet \(levels[1]) dB")
        #expect(abs(levels[2] - levels[1]) < 3, "back to loud \(levels[2]) dB")
    }

    @Test func withoutTheNormaliserTheyStayApart() async throws {
        let levels = try await levels(normalize: false)
        #expect(levels[0] - levels[1] > 15, "loud \(levels[0]) dB, quiet \(levels[1]) dB")
    }
}
