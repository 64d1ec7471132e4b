import Foundation
import GStreamer
@testable import Headend
import LoopbackStreams
import Testing

extension HeadendTests {
    /// `FirstPictureDecoder` on its own: a keyframe gives one picture at the target's size; data
    /// that is no picture ends without one, and the decoder is ready again for the next keyframe.
    @Suite struct FirstPictureDecoding {
        init() throws { try GStreamer.initialize() }

        /// What one keyframe gave: the pictures, and whether it finished.
        final class Outcome: @unchecked Sendable {
            private let lock = NSLock()
            private var pictures: [Buffer] = []
            private var ended = 0
            func picture(_ b: Buffer) { lock.withLock { pictures.append(b) } }
            func finished() { lock.withLock { ended += 1 } }
            var count: (pictures: Int, finished: Int) { lock.withLock { (pictures.count, ended) } }
            var first: Buffer? { lock.withLock { pictures.first } }
        }

        @Test func aKeyframeGivesOnePictureAndGarbageNoneWithoutStoppingIt() async throws {
            var format = ClipFormat.hd720
            format.width = 640
            format.height = 360
            format.bitrateKbps = 1000
            format.seconds = 3
            let rig = try await BroadcastStreams.Rig([format])
            let warm = await rig.warm()
            try #require(warm, "not warm: \(BroadcastStreams.states(rig.headend))")
            let (keyframe, caps) = try #require(rig.headend.sources[0].cache.startKeyframe())
            let target = DecodeTarget(width: 320, height: 180)
            let decoder = try FirstPictureDecoder(family: .h264, target: target, logger: testLogger)
            defer { MediaExecutor.shared.schedule { decoder.shutdown() } }

            func run(_ buffer: Buffer) async -> Outcome {
                let outcome = Outcome()
                #expect(await eventually(within: 3) { decoder.isReady }, "ready for the next keyframe")
                let began = await onMediaThread { decoder.decode(buffer, more: [], caps: caps, deliver: outcome.picture, finished: outcome.finished) }
                #expect(began)
                #expect(await eventually(within: 4) { outcome.count.finished == 1 }, "finished: \(outcome.count)")
                return outcome
            }

            let good = await run(keyframe.buffer)
            #expect(good.count.pictures == 1)
            #expect(good.first?.size == target.width * target.height * 3 / 2, "an I420 picture at the target's size")
            // A keyframe that went through is flushed out, not restarted: the next one finds the
            // codec open and the converter built.
            let second = await run(keyframe.buffer)
            #expect(second.count.pictures == 1)
            #expect(decoder.restarts == 0, "flushed after a picture, not restarted")
            // Bytes that are no H.264 at all, marked as a keyframe.
            let garbage = Buffer(bytes: (0..<6000).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 13) }, pts: 0, dts: 0, keyframe: true)
            let bad = await run(garbage)
            #expect(bad.count.pictures == 0)
            // `finished` is told first; the restart follows on the media thread.
            #expect(await eventually(within: 3) { decoder.isReady })
            #expect(decoder.restarts == 1, "a keyframe without a picture restarts it")
            // And it decodes the next keyframe as before.
            let again = await run(keyframe.buffer)
            #expect(again.count.pictures == 1)
            #expect(decoder.restarts == 1)
            await rig.stop()
        }
    }
}

/// Runs `body` on the media thread (where pipelines are driven) and returns its result.
func onMediaThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        MediaExecutor.shared.schedule { continuation.resume(returning: body()) }
    }
}
