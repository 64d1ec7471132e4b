import FlipboxCore
import Foundation
import GStreamer
@testable import Headend
import Lineup
import Testing

extension HeadendTests {
    /// The warm budget applied to real channels: what runs, what is held cold, and why.
    @Suite struct Budget {
        init() throws { try GStreamer.initialize() }

        static let colours = ["ff0000", "00ff00", "0000ff", "ffff00", "00ffff", "ff00ff"]

        func lineup(_ urls: [String]) -> Lineup {
            Lineup(channels: urls.enumerated().map { i, url in makeChannel([url], number: i + 1, name: "C\(i + 1)") })
        }

        /// Indices of the channels whose state satisfies `match`.
        func indices(_ headend: Headend, _ match: (ChannelState) -> Bool) -> Set<Int> {
            Set(headend.states().enumerated().filter { match($0.element) }.map(\.offset))
        }

        @Test func aBudgetOfThreeKeepsTheThreeMostLikelyChannelsWarmAndMovesWithAFlip() async throws {
            let urls = Self.colours.map { "test://color/\($0)?size=160x90&fps=30&gop=15" }
            let headend = Headend(lineup: lineup(urls), policy: .all, budget: WarmBudget(maxChannels: 3),
                                  target: DecodeTarget(width: 160, height: 90), logger: testLogger)

            // On channel 0: itself, then the next (1) and the previous (5).
            let plan = await headend.applyPolicy(current: 0, last: nil)
            #expect(plan.running == [0, 1, 5])
            let warmFirst = await eventually(within: 8) { indices(headend) { $0 == .warm } == [0, 1, 5] }
            #expect(warmFirst, "states: \(headend.states().map(\.description))")
            #expect(indices(headend) { $0.tier == .cold } == [2, 3, 4])
            #expect(headend.states()[3] == .parked(reason: "over the warm budget of 3 channels"))
            #expect(headend.sources[3].cache.byteCount == 0, "a channel held cold caches nothing")

            // Flip to 3 (cold: it was held), then plan around it: 3 on screen, 0 the last channel,
            // 4 the next one. 1 and 5 go cold.
            let recorder = Activation.FrameRecorder()
            let (feed, path) = try await headend.activate(headend.lineup.channels[3], sink: recorder)
            #expect(path == .cold)
            #expect(await eventually(within: 8) { recorder.frames.contains { $0.feed == feed } }, "the flipped-to channel decodes")
            await headend.applyPolicy(current: 3, last: 0)
            let moved = await eventually(within: 8) {
                indices(headend) { $0 == .warm } == [0, 4] && indices(headend) { $0 == .hot } == [3]
            }
            #expect(moved, "states: \(headend.states().map(\.description))")
            #expect(indices(headend) { $0.tier == .cold } == [1, 2, 5])
            // And it stays that way: the budget watch does not undo it.
            try await Task.sleep(for: .milliseconds(1500))
            #expect(indices(headend) { $0.tier != .cold } == [0, 3, 4], "states: \(headend.states().map(\.description))")

            await headend.deactivate(feed: feed)
            await headend.shutdown()
        }

        @Test func aChannelWhoseGOPOutgrowsTheChannelLimitGoesColdAndSaysWhy() async throws {
            // Channel 1: noise at 2 Mb/s with a keyframe every 10 s, far more than 64 KB a GOP.
            let urls = ["test://color/ff0000?size=160x90&fps=30&gop=15",
                        "test://snow?size=320x180&fps=30&gop=300&bitrate=2000"]
            let limit = 64 << 10
            let headend = Headend(lineup: lineup(urls), policy: .all, budget: WarmBudget(channelBytes: limit),
                                  target: DecodeTarget(width: 160, height: 90), logger: testLogger)
            let plan = await headend.applyPolicy(current: 0, last: nil)
            #expect(plan.running == [0, 1], "not measured yet: both run")
            let parked = await eventually(within: 10) {
                if case .parked = headend.states()[1] { true } else { false }
            }
            #expect(parked, "states: \(headend.states().map(\.description))")
            let reason = headend.states()[1].reason ?? ""
            #expect(reason.hasPrefix("keyframe interval too long"), "reason: \(reason)")
            #expect(reason.contains("64 KB"), "reason names the limit: \(reason)")
            #expect(headend.states()[0] == .warm)
            #expect(headend.sources[0].cache.budgetBytes == limit)
            await headend.shutdown()
        }
    }
}
