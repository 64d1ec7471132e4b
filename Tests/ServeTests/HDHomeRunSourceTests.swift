import FlipboxCore
import Foundation
import GStreamer
import Headend
import Lineup
@testable import Serve
import Synchronization
import Testing

extension ServeTests {
    /// Another Flipbox's HDHomeRun emulation (2 tuners, 5 channels) as the source of a box's
    /// lineup, as a box on a real HDHomeRun sees it: the third stream is answered 503 with
    /// `X-HDHomeRun-Error: 805 All Tuners In Use`.
    @Suite(.serialized) struct HDHomeRunAsASource {
        /// Counts decoded frames per feed (decoder streaming threads).
        final class Frames: DecodedFrameSink, Sendable {
            private let counts = Mutex<[FeedID: Int]>([:])
            func presentVideo(_ frame: Buffer, feed: FeedID) { counts.withLock { $0[feed, default: 0] += 1 } }
            func presentAudio(_ samples: Buffer, feed: FeedID) {}
            func frames(_ feed: FeedID) -> Int { counts.withLock { $0[feed] ?? 0 } }
        }

        @Test func aBoxOnATwoTunerHDHomeRunLearnsTwoAndShowsEveryChannel() async throws {
            let host = HDHomeRun.loopbackAddress()
            let colours = ["ff0000", "00ff00", "0000ff", "ffff00", "00ffff"]
            let harness = try await ServeHarness(channels: colours.enumerated().map {
                makeChannel("test://color/\($1)?size=160x90&fps=30&gop=15", number: $0 + 3, name: "Colour \($0 + 3)")
            }) {
                $0.host = host
                $0.device = HDHomeRunDevice(deviceID: HDHomeRunDevice.derivedID(seed: "tuners"), tunerCount: 2)
            }
            let base = "http://\(host):\(harness.port)"
            // What the tuner answers with both tuners taken, as a media server sees it.
            let lineup = Lineup(channels: (0..<5).map { makeChannel("\(base)/auto/v\($0 + 3)", number: $0 + 1, name: "Tuner \($0 + 1)") })
            let box = Headend(lineup: lineup, policy: .all, target: DecodeTarget(width: 160, height: 90), logger: testLogger)
            let mostTuned = Mutex(0)
            let watch = Task {
                while !Task.isCancelled {
                    let tuned = await harness.server.clientCount
                    mostTuned.withLock { $0 = max($0, tuned) }
                    try? await Task.sleep(for: .milliseconds(20))
                }
            }
            await box.applyPolicy(current: nil, last: nil)
            let learned = await eventually(within: 20) { await box.poolStatus().first?.limit == 2 }
            let status = await box.poolStatus()
            #expect(learned, "the tuner count is learned from the device's 805: \(status)")
            #expect(status.first?.limitOrigin == "learned" && (status.first?.refusals ?? 0) <= 2, "\(status)")
            let refused = box.sources.contains {
                $0.counts.refusals > 0
            }
            #expect(refused, "a refusal taught it")

            let frames = Frames()
            var shown: FeedID?
            var current: Int?
            for i in [2, 3, 4, 0, 1, 4] {
                let (feed, _) = try await box.activate(lineup.channels[i], sink: frames)
                let showed = await eventually(within: 8) { frames.frames(feed) >= 5 }
                #expect(showed, "channel \(i + 1) shows: \(box.sources[i].state)")
                if let shown { await box.deactivate(feed: shown) }
                await box.applyPolicy(current: i, last: current)
                shown = feed
                current = i
            }
            if let shown { await box.deactivate(feed: shown) }
            watch.cancel()
            #expect(mostTuned.withLock { $0 } <= 2, "never more than the device's 2 tuners in use")
            await box.shutdown()
            await harness.stop()
        }
    }
}
