import FlipboxCore
import Foundation
import GStreamer
@testable import Headend
import Lineup
import Testing

extension HeadendTests {
    /// The viewing history on a real head-end: what was on screen is counted and kept in the
    /// state directory, and what is usually watched at this hour is kept warm before the rest.
    @Suite struct ViewingHistoryOnAHeadend {
        init() throws { try GStreamer.initialize() }

        static func lineup() -> Lineup {
            Lineup(channels: (0..<12).map { makeChannel(["test://color/\(String(format: "%02x%02x80", $0 * 20, 255 - $0 * 20))?size=160x90&fps=25&gop=25"],
                                                        number: $0 + 1, name: "Colour \($0 + 1)") })
        }

        @Test func theChannelUsuallyWatchedNowIsKeptWarmBeforeTheRest() async throws {
            let state = try TempDirectory()
            defer { state.remove() }
            let file = ViewingHistoryFile(directory: state.url.path)
            // Channel 7 was watched at this hour of the week, a week ago.
            var history = ViewingHistory()
            let now = Date()
            let weekAgo = now.addingTimeInterval(-7 * 24 * 3600)
            history.watched("ch7", from: weekAgo.addingTimeInterval(-1200), to: weekAgo.addingTimeInterval(1200), calendar: .current)
            try file.save(history)
            let headend = Headend(lineup: Self.lineup(), policy: .all, budget: WarmBudget(maxChannels: 6),
                                  target: DecodeTarget(width: 160, height: 90), logger: testLogger, pools: PoolSettings(historyFile: file))
            let plan = await headend.applyPolicy(current: 0, last: nil)
            #expect(plan.running == [0, 1, 11, 2, 10, 6], "on 1: its neighbours, then 7, watched at this hour: \(plan.running.sorted())")
            #expect(plan.heldCold[3] == "over the warm budget of 6 channels")
            await headend.shutdown()
        }

        @Test func timeOnScreenIsCountedAndKeptInTheStateDirectory() async throws {
            let state = try TempDirectory()
            defer { state.remove() }
            let file = ViewingHistoryFile(directory: state.url.path)
            let headend = Headend(lineup: Self.lineup(), policy: .none, target: DecodeTarget(width: 160, height: 90), logger: testLogger,
                                  pools: PoolSettings(historyFile: file))
            let t0 = Date().addingTimeInterval(-1000)
            await headend.screenChanged(to: 3, at: t0)
            await headend.screenChanged(to: 5, at: t0.addingTimeInterval(600))
            await headend.screenChanged(to: 6, at: t0.addingTimeInterval(605))  // surfed past 6
            await headend.shutdown()
            let kept = file.load()
            let onFour = kept.seconds["ch4"].map { $0.reduce(0, +) } ?? 0
            #expect(abs(onFour - 600) < 1, "ten minutes on 4 (decayed by the minutes since): \(onFour)")
            #expect(kept.seconds["ch6"] == nil, "five seconds on 6 is surfing past")
            #expect(kept.seconds["ch7"] != nil, "the channel on screen at shutdown is counted too")
        }
    }
}
