import FlipboxCore
import Foundation
import GStreamer
import Lineup
import Output
import Switcher
import TestSupport
import Testing

/// Picture-in-picture on the real output, checked by the pixels of the snapshot.
@Suite(.serialized, .heavy) struct PiPTests {
    @Test func theWindowShowsTheSecondChannelSwapsAndCloses() async throws {
        let player = try await overlayPlayer([
            ("Red", "test://color/ff0000?size=160x90&gop=15"),
            ("Blue", "test://color/0000ff?size=160x90&gop=15"),
        ], bannerSeconds: 0)
        try await player.start()
        defer { Task { await player.shutdown() } }
        #expect(await waitUntil(15) { await player.status().lastFlip?.ok == true })
        let window = inner(PictureInPicturePlacement(corner: .bottomRight, size: 0.3).rect(width: 640, height: 360), 8)
        let main = (60, 40, 60, 60)

        let opened = try await player.openPiP(number: ChannelNumber(2), corner: .bottomRight, size: 0.3)
        #expect(opened.open && opened.channel?.number == "2")
        #expect(await waitUntil(5) {
            guard let s = try? await overlaySnapshot(player) else { return false }
            return region(s, window, is: (0, 0, 255)) && region(s, main, is: (255, 0, 0))
        }, "blue in the window, red around it")

        let swapped = try await player.swapPiP()
        #expect(swapped.ok && swapped.channel?.number == "2", "\(swapped)")
        #expect(await player.pipStatus().channel?.number == "1")
        #expect(await waitUntil(5) {
            guard let s = try? await overlaySnapshot(player) else { return false }
            return region(s, window, is: (255, 0, 0)) && region(s, main, is: (0, 0, 255))
        }, "after the swap: red in the window, blue around it")

        await player.closePiP()
        #expect(await player.pipStatus().open == false)
        let closed = region(try await overlaySnapshot(player), window, is: (0, 0, 255), tolerance: 20)
        #expect(closed, "the corner shows the main channel again")
        await player.shutdown()
    }

    @Test func theWindowFlipsOnItsOwnAndDefaultsToTheLastChannel() async throws {
        let player = try await overlayPlayer([
            ("Red", "test://color/ff0000?size=160x90&gop=15"),
            ("Blue", "test://color/0000ff?size=160x90&gop=15"),
            ("Green", "test://color/00ff00?size=160x90&gop=15"),
        ], bannerSeconds: 0)
        try await player.start()
        defer { Task { await player.shutdown() } }
        #expect(await waitUntil(15) { await player.status().lastFlip?.ok == true })
        #expect(await player.flip(.tune(ChannelNumber(3))).ok)
        #expect(await player.flip(.tune(ChannelNumber(1))).ok)
        let window = inner(PictureInPicturePlacement(corner: .topLeft, size: 0.25).rect(width: 640, height: 360), 8)

        let opened = try await player.openPiP(corner: .topLeft, size: 0.25)
        #expect(opened.channel?.number == "3", "the last channel by default")
        #expect(await waitUntil(5) { (try? await overlaySnapshot(player)).map { region($0, window, is: (0, 255, 0)) } ?? false },
                "green (channel 3) in the top-left window")
        _ = try await player.tunePiP(number: ChannelNumber(2))
        #expect(await waitUntil(5) { (try? await overlaySnapshot(player)).map { region($0, window, is: (0, 0, 255)) } ?? false },
                "blue after flipping the window to 2")
        #expect(await player.status().channel?.number == ChannelNumber(1), "the main picture did not flip")
        await #expect(throws: OverlayError.self) { try await player.tunePiP(number: ChannelNumber(9)) }
        await player.shutdown()
    }
}
