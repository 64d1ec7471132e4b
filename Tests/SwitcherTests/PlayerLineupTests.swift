import FlipboxCore
import Foundation
import GStreamer
import Lineup
import Output
@testable import Switcher
import TestSupport
import Testing

/// A lineup read again while the box plays, taken in place by a real player (headless output,
/// real synthetic channels), checked by what is on screen and where next/previous go.
@Suite(.serialized, .heavy) struct PlayerLineupTests {
    func channel(_ id: String, _ number: Int, _ name: String, _ rgb: String) -> Channel {
        Channel(id: id, number: ChannelNumber(number), name: name, sources: ["test://color/\(rgb)?size=160x90&gop=15"], group: "Tests")
    }

    let centre = (x: 220, y: 130, width: 200, height: 100)

    func shows(_ player: Player, _ rgb: (Double, Double, Double)) async -> Bool {
        await waitUntil(5) {
            guard let s = try? await overlaySnapshot(player) else { return false }
            return region(s, centre, is: rgb)
        }
    }

    @Test func channelsAddedRemovedRenumberedAndRenamedApplyWhileTheChannelOnScreenPlaysOn() async throws {
        let player = try await overlayPlayer([
            ("Red", "test://color/ff0000?size=160x90&gop=15"),
            ("Green", "test://color/00ff00?size=160x90&gop=15"),
            ("Blue", "test://color/0000ff?size=160x90&gop=15"),
        ], bannerSeconds: 0)
        try await player.start()
        defer { Task { await player.shutdown() } }
        #expect(await waitUntil(15) { await player.status().lastFlip?.ok == true })
        #expect(await waitUntil(10) { await player.channels().allSatisfy { $0.state.tier != .cold } })
        #expect(await shows(player, (255, 0, 0)))
        let feed = await player.shownFeedID

        // The provider's next reading: Red renamed, Green gone, Blue now 5, Yellow new as 2.
        let reading = Lineup(channels: [channel("c1", 1, "Red HD", "ff0000"), channel("c3", 5, "Blue", "0000ff"),
                                        channel("y", 2, "Yellow", "ffff00")])
        let (next, slots) = player.lineup.taking(reading)
        let taking = await player.take(next, slots: slots)
        #expect(taking.stillShown.isEmpty)

        // The channel on screen was not touched: same feed, still red, and it says its new name.
        #expect(await player.shownFeedID == feed)
        #expect(await player.status().channel?.name == "Red HD")
        #expect(await shows(player, (255, 0, 0)))
        let listed = await player.channels().map { "\($0.channel.number) \($0.channel.name)" }
        #expect(listed == ["1 Red HD", "2 Yellow", "5 Blue"])

        // Green's stream stops (no longer in the lineup, nothing shows it); Yellow warms.
        let green = player.headend.sources[1], yellow = player.headend.sources[3]
        #expect(await waitUntil(10) { green.state == .cold }, "\(green.state)")
        #expect(await waitUntil(10) { yellow.state.tier != .cold }, "\(yellow.state)")

        // Next goes by the new numbers: 2 Yellow (new), then 5 Blue, then round to 1.
        let toYellow = await player.flip(.next)
        #expect(toYellow.ok && toYellow.channel?.number == "2" && toYellow.channel?.name == "Yellow", "\(toYellow)")
        #expect(await shows(player, (255, 255, 0)))
        let toBlue = await player.flip(.next)
        #expect(toBlue.ok && toBlue.channel?.number == "5", "\(toBlue)")
        #expect(await shows(player, (0, 0, 255)))
        let gone = await player.flip(.tune(ChannelNumber(3)))
        #expect(!gone.ok && gone.failure == .unknownChannel, "Blue's old number no longer tunes: \(gone)")

        // Blue leaves the lineup while on screen: it plays on until the viewer flips away.
        let without = Lineup(channels: [channel("c1", 1, "Red HD", "ff0000"), channel("y", 2, "Yellow", "ffff00")])
        let (after, removed) = player.lineup.taking(without)
        let kept = await player.take(after, slots: removed)
        #expect(kept.stillShown == [ChannelNumber(5)])
        try await Task.sleep(for: .seconds(1))
        #expect(await shows(player, (0, 0, 255)), "the channel on screen is never cut")
        let blue = player.headend.sources[2]
        #expect(blue.state.tier != .cold)
        let round = await player.flip(.next)
        #expect(round.ok && round.channel?.number == "1", "next from the gone 5 goes round to 1: \(round)")
        #expect(await shows(player, (255, 0, 0)))
        #expect(await waitUntil(10) { blue.state == .cold }, "Blue's stream stops once nothing shows it: \(blue.state)")
        await player.shutdown()
    }
}
