import FlipboxCore
import Foundation
import GStreamer
import Headend
import Lineup
import Logging
import Output
import TestSupport
import Testing

/// The picture-in-picture window and the info banner on a real headless output, with a real
/// head-end decoding two test channels; checked by the pixels of the output's snapshot.
@Suite(.serialized, .heavy) struct PictureInPictureWindowTests {
    init() throws { try GStreamer.initialize() }

    /// A headless 640x360 output showing channel 1 (red) and a head-end that also warms
    /// channel 2 (blue).
    final class Rig: @unchecked Sendable {
        let output: OutputPipeline
        let headend: Headend
        let channels: [Channel]

        init() async throws {
            let logger = Logger(label: "flipbox.output-tests")
            output = try OutputPipeline(sink: .headless, width: 640, height: 360, fps: 30, logger: logger)
            channels = [("Red", "ff0000"), ("Blue", "0000ff")].enumerated().map { i, c in
                Channel(id: "c\(i + 1)", number: ChannelNumber(i + 1), name: c.0, sources: ["test://color/\(c.1)?size=320x180&gop=15"])
            }
            headend = Headend(lineup: Lineup(channels: channels), policy: .all, target: DecodeTarget(width: 640, height: 360),
                              logger: logger)
            try await output.start()
            await headend.applyPolicy(current: 0, last: nil)
            let feed = FeedID.next()
            output.expect(feed: feed, overlays: [])
            _ = try await headend.activate(channels[0], feed: feed, sink: output)
        }

        func snapshot() throws -> BGRAImage { try ImageCodec.decode(bytes: try output.snapshotPNG()) }

        func shutdown() async {
            await headend.shutdown()
            await output.shutdown()
        }
    }

    /// Whether the mean colour of a region is within `tolerance` of (r, g, b).
    static func region(_ image: BGRAImage, _ r: (x: Int, y: Int, width: Int, height: Int), is rgb: (Double, Double, Double), tolerance: Double = 30) -> Bool {
        let m = image.meanRGB(x: r.x, y: r.y, width: r.width, height: r.height)
        return abs(m.r - rgb.0) < tolerance && abs(m.g - rgb.1) < tolerance && abs(m.b - rgb.2) < tolerance
    }

    static func inner(_ r: (x: Int, y: Int, width: Int, height: Int), _ inset: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        (r.x + inset, r.y + inset, r.width - 2 * inset, r.height - 2 * inset)
    }

    static func waitUntil(_ seconds: Double, _ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    @Test func theWindowShowsTheOtherChannelAtItsSizeAndFollowsAResize() async throws {
        let rig = try await Rig()
        #expect(await Self.waitUntil(15) { (try? rig.snapshot()).map { Self.region($0, (20, 20, 600, 320), is: (255, 0, 0)) } ?? false },
                "channel 1 (red) on screen")
        let placement = PictureInPicturePlacement(corner: .bottomRight, size: 0.3)
        let window = PictureInPictureWindow(output: rig.output, placement: placement)
        try await window.configure(placement)
        let rect = placement.rect(width: 640, height: 360)
        #expect(window.frameSize! == (rect.width - 4, rect.height - 4), "the decoder is asked for the window's inside")
        let feed = FeedID.next()
        window.show(feed: feed)
        _ = try await rig.headend.activate(rig.channels[1], feed: feed, sink: window)

        #expect(await Self.waitUntil(10) {
            guard let s = try? rig.snapshot() else { return false }
            return Self.region(s, Self.inner(rect, 4), is: (0, 0, 255)) && Self.region(s, (20, 20, 300, 200), is: (255, 0, 0))
        }, "blue in the window, red around it")
        let s = try rig.snapshot()
        // The border: light grey, two pixels around the picture.
        let border = s.rgba(x: rect.x, y: rect.y + rect.height / 2)
        #expect(border.r > 200 && border.g > 200 && border.b > 200, "light border: \(border)")
        #expect(window.frameCount > 0)

        // A larger window: the decoder follows, and the window's new rectangle fills with blue.
        let larger = PictureInPicturePlacement(corner: .topLeft, size: 0.5)
        try await window.configure(larger)
        let big = larger.rect(width: 640, height: 360)
        #expect(await Self.waitUntil(10) {
            guard let s = try? rig.snapshot() else { return false }
            return Self.region(s, Self.inner(big, 4), is: (0, 0, 255)) && Self.region(s, Self.inner(rect, 4), is: (255, 0, 0))
        }, "blue in the larger top-left window, red where the small one was")

        window.close()
        #expect(await Self.waitUntil(5) { (try? rig.snapshot()).map { Self.region($0, Self.inner(big, 4), is: (255, 0, 0)) } ?? false },
                "closed: the main picture again")
        await rig.headend.deactivate(feed: feed)
        await rig.shutdown()
    }

    @Test func theBannerIsDrawnInItsBoxOnly() async throws {
        let rig = try await Rig()
        #expect(await Self.waitUntil(15) { (try? rig.snapshot()).map { Self.region($0, (20, 20, 600, 320), is: (255, 0, 0)) } ?? false })
        let bare = try rig.snapshot()
        let box = InfoBanner.box(width: 640, height: 360)
        let banner = try InfoBanner.overlay(BannerContent(number: "1", name: "Red", group: "Tests", logoPath: nil, clock: "21:05"),
                                           width: 640, height: 360)
        rig.output.setLayer(.banner, [banner])
        let shown = try rig.snapshot()
        // The box is the banner's dark blue over red, not red; above it, the picture is untouched.
        let m = shown.meanRGB(x: box.x + 20, y: box.y + 8, width: box.width - 40, height: box.height - 16)
        #expect(m.r < 120 && m.b > m.g, "the banner's box: \(m)")
        #expect(!Self.region(shown, Self.inner(box, 8), is: (255, 0, 0), tolerance: 60))
        #expect(Self.region(shown, (20, 20, 600, box.y - 30), is: (255, 0, 0)))
        let above = (x: 0, y: 0, width: 640, height: box.y - 2)
        let before = bare.meanRGB(x: above.x, y: above.y, width: above.width, height: above.height)
        let after = shown.meanRGB(x: above.x, y: above.y, width: above.width, height: above.height)
        #expect(abs(before.r - after.r) < 3 && abs(before.g - after.g) < 3 && abs(before.b - after.b) < 3, "nothing drawn above the box")
        rig.output.setLayer(.banner, [])
        #expect(Self.region(try rig.snapshot(), Self.inner(box, 4), is: (255, 0, 0)), "gone with its layer")
        await rig.shutdown()
    }
}
