import Foundation
import GStreamer
@testable import Headend
import Lineup
import LoopbackStreams
import Testing

extension HeadendTests {
    /// The channel on screen changes codec mid-stream, or sends garbage, and comes back
    /// (issue 9): the picture follows, from a real sender on loopback UDP.
    @Suite struct CodecChange {
        init() throws { try GStreamer.initialize() }

        static func clip(_ codec: ClipFormat.Codec, colour: UInt32) async throws -> TransportStreamClip {
            let format = ClipFormat(codec: codec, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 4,
                                    bitrateKbps: 400, colour: colour)
            return try TransportStreamClip(path: try await format.made(in: ClipFormat.cacheDirectory))
        }

        /// The mean colour of the newest decoded frame, if any.
        static func newestColour(_ recorder: Activation.FrameRecorder) -> (r: Double, g: Double, b: Double)? {
            guard let frame = recorder.frames.last?.frame,
                  let caps = try? Caps("video/x-raw,format=I420,width=320,height=180,framerate=25/1,pixel-aspect-ratio=1/1"),
                  let png = try? ImageCodec.png(frame: frame, caps: caps),
                  let image = try? ImageCodec.decode(bytes: png) else { return nil }
            let m = image.meanRGB(x: 60, y: 40, width: 200, height: 100)
            return (Double(m.r), Double(m.g), Double(m.b))
        }

        static func isRed(_ c: (r: Double, g: Double, b: Double)?) -> Bool { c.map { $0.r > 180 && $0.g < 80 && $0.b < 80 } ?? false }
        static func isBlue(_ c: (r: Double, g: Double, b: Double)?) -> Bool { c.map { $0.b > 180 && $0.r < 80 && $0.g < 80 } ?? false }
        static func isGreen(_ c: (r: Double, g: Double, b: Double)?) -> Bool { c.map { $0.g > 180 && $0.r < 80 && $0.b < 80 } ?? false }

        @Test func theShownChannelFollowsCodecAndPIDChangesAndComesBackAfterGarbage() async throws {
            let red = try await Self.clip(.h264, colour: 0xFF0000)
            let blue = try await Self.clip(.mpeg2, colour: 0x0000FF)
            let green = try await Self.clip(.hevc, colour: 0x00FF00)
            let port = freePort()
            let sender = try TransportStreamSender(clip: red, port: port)
            defer { sender.stop() }
            let channel = makeChannel(["udp://127.0.0.1:\(port)"])
            let headend = Headend(lineup: Lineup(channels: [channel]), policy: .all, target: DecodeTarget(width: 320, height: 180),
                                  logger: testLogger)
            await headend.applyPolicy(current: 0, last: nil)
            let source = headend.sources[0]
            let warm = await eventually(within: 8) { source.state == .warm && source.cache.hasKeyframe && source.cache.audioCaps != nil }
            try #require(warm, "not warm: \(source.state)")
            let recorder = Activation.FrameRecorder()
            _ = try await headend.activate(channel, sink: recorder)
            #expect(await eventually(within: 3) { Self.isRed(Self.newestColour(recorder)) }, "H.264: \(String(describing: Self.newestColour(recorder)))")

            // H.264 -> MPEG-2 -> HEVC -> H.264, each switch mid-GOP on the same PIDs, every clip's
            // tables version 0 (as ffmpeg writes them): the demuxer does not follow by itself, the
            // ingest is read again as soon as the new table comes. The picture follows within a
            // GOP (1 s) and the time to read the ingest again; the bound leaves room for a loaded
            // machine but not for the 2 s stall rule, and no stall may be needed.
            // Then to streams on other PIDs (a new PMT PID, tables version 1) and back: the
            // demuxer follows the new tables, and the ingest is read again for the new streams.
            var movedFormat = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 4, bitrateKbps: 400, colour: 0x0000FF)
            movedFormat.layout = ClipFormat.ProgramLayout(pmtPID: 0x1200, firstStreamPID: 0x300, tablesVersion: 1)
            let moved = try TransportStreamClip(path: try await movedFormat.made(in: ClipFormat.cacheDirectory))
            for (clip, name, check) in [(blue, "MPEG-2 blue", Self.isBlue), (green, "HEVC green", Self.isGreen), (red, "H.264 red", Self.isRed),
                                        (moved, "H.264 blue on other PIDs", Self.isBlue), (red, "H.264 red on the first PIDs", Self.isRed)] {
                let changed = ContinuousClock.now
                sender.play(clip)
                let followed = await eventually(within: 12) { check(Self.newestColour(recorder)) }
                let took = ContinuousClock.now - changed
                #expect(followed, "the picture did not follow the change to \(name): newest \(String(describing: Self.newestColour(recorder))), \(source.state)")
                #expect(took < .milliseconds(2500), "the change to \(name) took \(took)")
                #expect(source.counts.stalls == 0, "the change to \(name) waited for the stall rule")
            }

            // Garbage for 3 s, then the H.264 stream again: the picture comes back by itself.
            sender.mode = .garbage
            try await Task.sleep(for: .seconds(3))
            sender.mode = .stream
            let before = recorder.frames.count
            let back = await eventually(within: 12) { recorder.frames.count > before + 25 && Self.isRed(Self.newestColour(recorder)) }
            #expect(back, "no picture after the garbage: \(recorder.frames.count - before) new frames, \(source.state)")
            #expect(source.state == .hot)
            await headend.shutdown()
        }
    }
}
