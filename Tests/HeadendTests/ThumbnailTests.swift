import Foundation
import GStreamer
@testable import Headend
import Lineup
import Testing

extension HeadendTests {
    /// `Thumbnailer`: a warm channel's cached keyframe decoded to a JPEG, once per keyframe.
    @Suite struct Thumbnails {
        init() throws { try GStreamer.initialize() }

        @Test func aWarmChannelsThumbnailShowsItsPictureAndIsMadeOncePerKeyframe() async throws {
            // A keyframe every 5 s, so the two requests below fall within one GOP.
            let (source, log) = makeSource(["test://color/00c000?size=320x180&fps=30&gop=150"])
            await source.start()
            await expectWarm(source, log: log, audio: false)
            let thumbnailer = Thumbnailer()

            let first = try await thumbnailer.picture(of: source.cache, width: 160)
            #expect(!first.reused)
            #expect(first.width == 160 && first.height == 90, "\(first.width)x\(first.height)")
            #expect(ImageCodec.isJPEG(first.jpeg))
            let image = try ImageCodec.decode(bytes: first.jpeg)
            #expect(image.width == 160 && image.height == 90)
            let mean = image.meanRGB(x: 20, y: 20, width: 120, height: 50)
            #expect(mean.g > 150 && mean.r < 60 && mean.b < 60, "the green channel's picture: \(mean)")

            let second = try await thumbnailer.picture(of: source.cache, width: 160)
            let reused = second.reused, sameBytes = second.jpeg == first.jpeg
            #expect(reused, "the second request within one keyframe is served from memory")
            #expect(sameBytes && second.keyframeTime == first.keyframeTime)

            // Another width is another picture of the same keyframe, at the stream's size when none is given.
            let full = try await thumbnailer.picture(of: source.cache, width: nil)
            #expect(!full.reused && full.width == 320 && full.height == 180 && full.keyframeTime == first.keyframeTime)
            await source.shutdown()
        }

        @Test func aNewKeyframeMakesANewPicture() async throws {
            let (source, log) = makeSource(["test://color/c00000?size=160x90&fps=30&gop=6"])
            await source.start()
            await expectWarm(source, log: log, audio: false)
            let thumbnailer = Thumbnailer()
            let first = try await thumbnailer.picture(of: source.cache, width: nil)
            // Keyframes every 200 ms: a little later, the cache holds a newer one.
            try await Task.sleep(for: .milliseconds(500))
            let later = try await thumbnailer.picture(of: source.cache, width: nil)
            #expect(!later.reused && later.keyframeTime > first.keyframeTime)
            await source.shutdown()
        }

        @Test func aChannelWithoutKeyframeHasNoPicture() async throws {
            let thumbnailer = Thumbnailer()
            await #expect(throws: ThumbnailFailure(.noPicture, "no keyframe cached yet")) {
                _ = try await thumbnailer.picture(of: GOPCache(), width: nil)
            }
        }

        @Test func outputSizeKeepsTheAspectAndIsEven() throws {
            let caps = try Caps("video/x-h264,width=720,height=576,pixel-aspect-ratio=16/15")
            let natural = Thumbnailer.outputSize(caps: caps, width: nil)
            #expect(natural.width == 768 && natural.height == 576, "\(natural)")
            let odd = Thumbnailer.outputSize(caps: caps, width: 101)
            #expect(odd.width == 102 && odd.height == 76, "\(odd)")
        }
    }
}
