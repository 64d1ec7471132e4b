import Foundation
import GStreamer
@testable import Headend
import Lineup
import LoopbackStreams
import Testing

extension HeadendTests {
    /// Warm flips into MPEG-TS channels that loop with a timestamp discontinuity and lose the
    /// keyframe at the loop point (issue 15), from a real sender on loopback UDP.
    @Suite struct Discontinuity {
        init() throws { try GStreamer.initialize() }

        /// A looping sender (later loops start 0.5 s in: the loop point's keyframe is lost) and a
        /// headend keeping its channel warm.
        struct Rig {
            let sender: TransportStreamSender
            let channel: Channel
            let headend: Headend
            var source: ChannelSource { headend.sources[0] }

            init(gopSeconds: Double, seconds: Double) async throws {
                let format = ClipFormat(codec: .h264, width: 320, height: 180, fps: 30, gopSeconds: gopSeconds,
                                        seconds: seconds, bitrateKbps: 500)
                let clip = try TransportStreamClip(path: try await format.made(in: ClipFormat.cacheDirectory))
                let port = freePort()
                sender = try TransportStreamSender(clip: clip, port: port, loopSkip: 0.5)
                channel = makeChannel(["udp://127.0.0.1:\(port)"])
                headend = Headend(lineup: Lineup(channels: [channel]), policy: .all, target: DecodeTarget(width: 320, height: 180),
                                  logger: testLogger)
                await headend.applyPolicy(current: 0, last: nil)
                let source = headend.sources[0]
                let sender = self.sender
                let warm = await eventually(within: 8) {
                    source.state == .warm && source.cache.hasKeyframe && source.cache.audioCaps != nil
                }
                #expect(warm, "not warm: \(source.state)")
                // Past the first loop point: the GOPs now come after a discontinuity.
                let looped = await eventually(within: seconds + 2) { sender.loops >= 1 }
                #expect(looped, "the sender did not loop")
            }

            func stop() async {
                sender.stop()
                await headend.shutdown()
            }
        }

        @Test func flipJustAfterAKeyframeShowsAPictureFromTheCacheAlone() async throws {
            let rig = try await Rig(gopSeconds: 1, seconds: 3)
            // Stop the sender right after a keyframe, so the newest GOP holds only that keyframe
            // (and perhaps the frame after it): a decoder that reorders B-frames gives out
            // nothing from that alone, and with the sender paused nothing else comes.
            var alone = false
            for _ in 0..<6 {
                rig.sender.pauseAfterNextKeyframe(frames: 2)
                _ = await eventually(within: 3) { rig.sender.isPausedAfterKeyframe }
                try await Task.sleep(for: .milliseconds(150))
                if (1...2).contains(rig.source.cache.newestGOPVideoFrames) {
                    alone = true
                    break
                }
                rig.sender.resume()
                try await Task.sleep(for: .milliseconds(300))
            }
            try #require(alone, "could not catch a GOP with only its keyframe (\(rig.source.cache.newestGOPVideoFrames) frames)")

            let recorder = Activation.FrameRecorder()
            let (_, path) = try await rig.headend.activate(rig.channel, sink: recorder)
            #expect(path == .warm)
            // Well inside the 2 s after which the silent source counts as stalled.
            let shown = await eventually(within: 1.2) { !recorder.frames.isEmpty }
            #expect(shown, "no picture from the cache while the source is paused after a keyframe")
            rig.sender.resume()
            await rig.stop()
        }

        @Test func aChannelShownFromAnOldGOPPlaysOnInRealTimeWithoutJumping() async throws {
            let rig = try await Rig(gopSeconds: 2, seconds: 4)
            // Flip when the cached GOP is more than a second old.
            let old = await eventually(within: 6) { rig.source.cache.newestGOPVideoFrames >= 40 }
            try #require(old)
            let recorder = Activation.FrameRecorder()
            let (feed, _) = try await rig.headend.activate(rig.channel, sink: recorder)
            // Past the next keyframe (GOPs straddling a loop point last 3.5 s) and the backlog.
            try await Task.sleep(for: .seconds(6))
            let frames = recorder.frames.filter { $0.feed == feed }
            let times = frames.map(\.frame.pts).filter(\.isValid)
            var backwards: [String] = []
            for (a, b) in zip(times, times.dropFirst()) where b + ClockTime.second / 10 < a {
                backwards.append("\(Double(a) / 1e9) -> \(Double(b) / 1e9) s")
            }
            #expect(backwards.isEmpty, "the picture jumped back in time: \(backwards)")
            // Real time: about 180 frames in 6 s, not the GOP's backlog on top.
            #expect(frames.count <= 6 * 30 * 11 / 10, "\(frames.count) frames in 6 s: the channel fast-forwarded")
            #expect(frames.count >= 6 * 30 / 2, "only \(frames.count) frames in 6 s")
            await rig.stop()
        }
    }
}
