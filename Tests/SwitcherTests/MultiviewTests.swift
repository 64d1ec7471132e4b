import FlipboxCore
import Foundation
import GStreamer
import Lineup
import Output
@testable import Switcher
import TestSupport
import Testing

/// The multiview mosaic on the real output, checked by the pixels of the snapshot.
@Suite(.serialized, .heavy) struct MultiviewTests {
    static let colours: [(String, (Double, Double, Double))] = [
        ("ff0000", (255, 0, 0)), ("00ff00", (0, 255, 0)), ("0000ff", (0, 0, 255)), ("ffff00", (255, 255, 0)),
    ]

    @Test func aTwoByTwoGridShowsFourChannelsAndEnterTunesTheHighlight() async throws {
        let player = try await overlayPlayer(Self.colours.enumerated().map { i, c in
            ("Colour \(i + 1)", "test://color/\(c.0)?size=160x90&gop=15")
        }, bannerSeconds: 0)
        try await player.start()
        defer { Task { await player.shutdown() } }
        #expect(await waitUntil(15) { await player.status().lastFlip?.ok == true })
        #expect(await waitUntil(10) { await player.channels().allSatisfy { $0.state == .warm || $0.state == .hot } }, "all channels warm")

        let opened = try await player.openMultiview(grid: 2)
        #expect(opened.open && opened.channels.map(\.number) == ["1", "2", "3", "4"] && opened.highlight?.number == "1")
        // Each cell's picture (above its label strip) shows its channel's colour.
        func cellPicture(_ i: Int) -> (x: Int, y: Int, width: Int, height: Int) {
            let c = MultiviewGrid.cell(i, grid: 2, width: 640, height: 360)
            return (c.x + c.width / 4, c.y + c.height / 6, c.width / 2, c.height / 3)
        }
        #expect(await waitUntil(8) {
            guard let s = try? await overlaySnapshot(player) else { return false }
            return Self.colours.indices.allSatisfy { region(s, cellPicture($0), is: Self.colours[$0].1) }
        }, "four distinct channel pictures in their cells")

        // Right, then down: the highlight is on channel 4; Enter tunes it and closes the grid.
        _ = try await player.moveMultiview(.right)
        #expect(try await player.moveMultiview(.down).highlight?.number == "4")
        let result = try await player.selectMultiview()
        #expect(result.ok && result.channel?.number == "4", "\(result)")
        #expect(await player.multiviewStatus().open == false)
        let after = region(try await overlaySnapshot(player), (200, 100, 200, 150), is: (255, 255, 0), tolerance: 20)
        #expect(after, "full-screen channel 4, no grid")
        await #expect(throws: OverlayError.self) { try await player.openMultiview(grid: 5) }
        await player.shutdown()
    }

    @Test func highlightMovesWrapInsideTheGrid() {
        // 3x3 with 7 channels: rows 0..2, the last row holds one cell.
        #expect(MultiviewMachine.moved(0, .left, grid: 3, count: 7) == 2)
        #expect(MultiviewMachine.moved(0, .up, grid: 3, count: 7) == 6)
        #expect(MultiviewMachine.moved(2, .down, grid: 3, count: 7) == 5)
        #expect(MultiviewMachine.moved(5, .down, grid: 3, count: 7) == 6, "no cell below: the last one")
        #expect(MultiviewMachine.moved(4, .right, grid: 3, count: 7) == 5)
    }
}
