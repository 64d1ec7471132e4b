import FlipboxCore
import Foundation
import GStreamer
import Headend
import Lineup
@testable import Serve
import Testing

extension ServeTests {
    /// Synthetic channels (`test://`) are served as a broadcaster sends: H.264 High, 4:2:0, 8 bits,
    /// with the colour tags of their size (issue 37: they were High 4:4:4 Predictive at 10 bits,
    /// `yuv444p10le`, which no TV, phone, browser or hardware decoder plays).
    @Suite struct SyntheticProfile {
        /// Every pattern, a label, SD and HD sizes; the colours ffprobe names for each
        /// (GStreamer's BT.601 is ffprobe's `smpte170m`).
        static let channels: [(source: String, width: Int, height: Int, colours: String)] = [
            ("test://smpte?size=1280x720&fps=25&gop=25&tone=440", 1280, 720, "bt709"),
            ("test://ball?size=320x180&fps=30&gop=30", 320, 180, "smpte170m"),
            ("test://snow?size=720x576&fps=25&gop=25", 720, 576, "smpte170m"),
            ("test://gradient?size=640x360&fps=24&gop=24", 640, 360, "smpte170m"),
            ("test://checkers?size=960x540&fps=30&gop=30", 960, 540, "smpte170m"),
            ("test://color/8957e5?size=1024x768&fps=30&gop=30&label=Music", 1024, 768, "bt709"),
        ]

        @Test func everyPatternIsServedInABroadcastProfile() async throws {
            let harness = try await ServeHarness(channels: Self.channels.enumerated().map { i, c in makeChannel(c.source, number: i + 1) })
            let sources = harness.headend.sources
            #expect(await eventually(within: 15) { sources.allSatisfy { $0.state == .warm && $0.cache.hasKeyframe } },
                    "warm: \(sources.map(\.state))")
            let probes = try await withThrowingTaskGroup(of: (Int, ToolRun).self) { group in
                for number in 1...Self.channels.count {
                    group.addTask {
                        (number, try await runTool("ffprobe", [
                            "-v", "error", "-of", "json", "-show_streams", "-select_streams", "v:0",
                            "-analyzeduration", "1000000", harness.url("/stream/\(number).ts"),
                        ], timeout: 30))
                    }
                }
                return try await group.reduce(into: [Int: ToolRun]()) { $0[$1.0] = $1.1 }
            }
            for (i, expected) in Self.channels.enumerated() {
                let probe = try #require(probes[i + 1])
                #expect(probe.status == 0, "channel \(i + 1): ffprobe failed: \(probe.errors)")
                let json = try JSONSerialization.jsonObject(with: probe.output) as? [String: Any] ?? [:]
                let video = (json["streams"] as? [[String: Any]] ?? []).first ?? [:]
                let seen = ["profile", "pix_fmt", "color_space", "color_primaries", "color_transfer"].map { video[$0] as? String ?? "-" }
                #expect(seen == ["High", "yuv420p", expected.colours, expected.colours, expected.colours],
                        "channel \(i + 1) \(expected.source): \(seen)")
                #expect(video["width"] as? Int == expected.width && video["height"] as? Int == expected.height)
            }
            await harness.stop()
        }

        /// The demo lineup's synthetic channels, served, play in a second box: a head-end whose
        /// lineup is the served `/stream/N.ts` addresses decodes each (channel 5's picture in its
        /// colour, away from its label).
        @Test func theDemoLineupServedPlaysInASecondBox() async throws {
            // The repository root, from this file's place (no bundle resources).
            let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            let demo = try LineupLoader.load(path: repository.appendingPathComponent("Channels/demo.yaml").path)
            let synthetic = demo.channels.filter { $0.sources.first?.hasPrefix("test://") == true }
            #expect(synthetic.count == 6, "the demo's six synthetic channels: \(synthetic.map(\.number))")
            let harness = try await ServeHarness(channels: synthetic)
            let sources = harness.headend.sources
            #expect(await eventually(within: 15) { sources.allSatisfy { $0.state == .warm && $0.cache.hasKeyframe } })
            let served = synthetic.map { Channel(id: "served-\($0.id)", number: $0.number, name: $0.name,
                                                 sources: [harness.url("/stream/\($0.number).ts")]) }
            let second = Headend(lineup: Lineup(channels: served), policy: .none, target: DecodeTarget(width: 320, height: 180),
                                 logger: testLogger)
            for channel in served {
                let frames = Frames()
                let (feed, _) = try await second.activate(channel, sink: frames)
                let played = await eventually(within: 15) { frames.count >= 10 }
                #expect(played, "channel \(channel.number) \(channel.name) plays in the second box: \(frames.count) frames")
                if channel.number == ChannelNumber(5), let frame = frames.last {
                    let caps = try Caps("video/x-raw,format=I420,width=320,height=180,framerate=30/1,pixel-aspect-ratio=1/1")
                    let image = try ImageCodec.decode(bytes: try ImageCodec.png(frame: frame, caps: caps))
                    let mean = image.meanRGB(x: 8, y: 8, width: 60, height: 30)
                    #expect(abs(Int(mean.r) - 0x89) < 24 && abs(Int(mean.g) - 0x57) < 24 && abs(Int(mean.b) - 0xE5) < 24,
                            "channel 5 is #8957e5 there: \(mean)")
                }
                await second.deactivate(feed: feed)
            }
            await second.shutdown()
            await harness.stop()
        }

        /// The decoded frames of one feed.
        final class Frames: DecodedFrameSink, @unchecked Sendable {
            private let lock = NSLock()
            private var newest: Buffer?
            private var counted = 0
            func presentVideo(_ frame: Buffer, feed: FeedID) {
                lock.withLock {
                    newest = frame
                    counted += 1
                }
            }
            func presentAudio(_ samples: Buffer, feed: FeedID) {}
            var count: Int { lock.withLock { counted } }
            var last: Buffer? { lock.withLock { newest } }
        }
    }
}
