import FlipboxCore
import Control
import Lineup
import Switcher
import Testing

@Suite("RemoteStatusLine")
struct RemoteStatusLineTests {
    @Test func completed() {
        let result = FlipResult(requestID: 1, outcome: .completed, channel: ChannelSummary(number: "7", name: "Red Test", id: "red"),
                                latency: .microseconds(18_300), path: .warm)
        #expect(RemoteStatusLine.flip(result, request: .next) == "→ 7 Red Test  (warm, 18 ms)")
    }

    @Test func failedNamesTheTarget() {
        let unknown = FlipResult(requestID: 2, outcome: .failed, channel: nil, error: "unknown channel")
        #expect(RemoteStatusLine.flip(unknown, request: .tune(ChannelNumber(12))) == "✗ 12: unknown channel")
        let noRecall = FlipResult(requestID: 3, outcome: .failed, channel: nil, error: "nothing to recall")
        #expect(RemoteStatusLine.flip(noRecall, request: .recall) == "✗ recall: nothing to recall")
    }

    @Test func superseded() {
        let result = FlipResult(requestID: 4, outcome: .superseded, channel: ChannelSummary(number: "5", name: "News", id: "n"), supersededBy: 5)
        #expect(RemoteStatusLine.flip(result, request: .next) == "↷ 5 News: superseded")
    }

    @Test func info() {
        let status = PlayerStatus(channel: nil, output: OutputFormat(width: 1280, height: 720, fps: 30, sink: "kms"),
                                  uptime: .seconds(3723), lastFlip: nil)
        #expect(RemoteStatusLine.info(status) == "ℹ no channel · 1280x720@30 kms · up 1h 02m 03s")
    }
}
