import FlipboxCore
import Foundation
import GStreamer
import Lineup
import Output
import Switcher
import TestSupport
import Testing

/// The info banner on the real output, checked by the pixels of the snapshot.
@Suite(.serialized, .heavy) struct BannerTests {
    /// Two channels of the same red, so only the banner's text tells them apart.
    static let channels = [
        ("Red One", "test://color/ff0000?size=160x90&gop=15"),
        ("Crimson Channel Two", "test://color/ff0000?size=160x90&gop=15"),
    ]
    let box = InfoBanner.box(width: 640, height: 360)

    /// The red picture shows above the banner's box, and the box is not plain red: a banner.
    func bannerOverRed(_ player: Player) async -> Bool {
        guard let s = try? await overlaySnapshot(player) else { return false }
        return region(s, (300, 40, 40, 40), is: (255, 0, 0)) && !region(s, inner(box, 4), is: (255, 0, 0))
    }

    /// The banner's box shows the bare red picture.
    func bareRed(_ player: Player) async -> Bool {
        guard let s = try? await overlaySnapshot(player) else { return false }
        return region(s, inner(box, 4), is: (255, 0, 0), tolerance: 20)
    }

    @Test func theBannerFollowsEveryFlipWithTheNewChannelAndGoesOnDelete() async throws {
        let player = try await overlayPlayer(Self.channels, bannerSeconds: 60)
        try await player.start()
        defer { Task { await player.shutdown() } }
        let box = self.box
        // After the start flip, the banner covers the bottom of the red picture.
        #expect(await waitUntil(15) { await player.status().lastFlip?.ok == true })
        #expect(await waitUntil(5) { await bannerOverRed(player) }, "the banner is drawn over the red picture after the first flip")
        #expect(await player.bannerStatus().channel?.number == "1")
        let first = try await overlaySnapshot(player)

        let result = await player.flip(.tune(ChannelNumber(2)))
        #expect(result.ok, "\(result)")
        // The banner comes back naming channel 2: its text differs from channel 1's.
        let text = (box.x + 20, box.y + 10, box.width - 40, box.height - 20)
        #expect(await waitUntil(5) {
            guard let now = try? await overlaySnapshot(player) else { return false }
            return !region(now, inner(box, 4), is: (255, 0, 0)) && difference(now, first, text) > 4
        }, "channel 2's banner differs from channel 1's")
        #expect(await player.bannerStatus() == BannerStatus(shown: true, channel: ChannelSummary(number: "2", name: "Crimson Channel Two", id: "c2")))

        await player.hideBanner()
        #expect(await bareRed(player), "no banner after a hide: the bare red picture")
        #expect(await player.bannerStatus().shown == false)
        await player.shutdown()
    }

    @Test func noBannerAfterFlipsWithZeroSecondsButTheInfoKeyTogglesIt() async throws {
        let player = try await overlayPlayer(Self.channels, bannerSeconds: 0)
        try await player.start()
        defer { Task { await player.shutdown() } }
        let box = self.box
        #expect(await waitUntil(15) { await player.status().lastFlip?.ok == true })
        try await Task.sleep(for: .milliseconds(300))
        #expect(await bareRed(player), "no banner after the flip")
        #expect(await player.toggleBanner().shown)
        #expect(await waitUntil(5) { (try? await overlaySnapshot(player)).map { !region($0, inner(box, 4), is: (255, 0, 0)) } ?? false },
                "i shows it")
        #expect(await player.toggleBanner().shown == false)
        #expect(await bareRed(player), "i again hides it")
        await player.shutdown()
    }

    @Test func theBannerTimesOut() async throws {
        let player = try await overlayPlayer(Self.channels, bannerSeconds: 0.6)
        try await player.start()
        defer { Task { await player.shutdown() } }
        #expect(await waitUntil(15) { await player.status().lastFlip?.ok == true })
        #expect(await waitUntil(5) { await bannerOverRed(player) }, "shown after the flip")
        #expect(await waitUntil(5) { await bareRed(player) }, "gone after its time")
        #expect(await player.bannerStatus().shown == false)
        await player.shutdown()
    }

    @Test func aFlipTakesTheOldChannelsBannerDownBeforeTheNewPictureComes() async throws {
        let port = Int.random(in: 41000...45000)
        let player = try await overlayPlayer([
            ("Red One", "test://color/ff0000?size=160x90&gop=15"),
            ("Silent Two", "udp://127.0.0.1:\(port)"),
        ], bannerSeconds: 60)
        try await player.start()
        defer { Task { await player.shutdown() } }
        #expect(await waitUntil(15) { await player.status().lastFlip?.ok == true })
        #expect(await waitUntil(5) { await player.bannerStatus().shown })
        // Channel 2 sends nothing: its flip stays pending, and channel 1's banner must not stay up meanwhile.
        let flip = Task { await player.flip(.tune(ChannelNumber(2))) }
        #expect(await waitUntil(2) { await player.bannerStatus().shown == false }, "the old channel's banner goes as the flip starts")
        flip.cancel()
        _ = await flip.value
        await player.shutdown()
    }

    /// One programme on channel c1 from a minute ago for an hour, with a rating and a description.
    struct OneProgramme: ProgrammeGuide {
        let programme: ProgrammeSummary
        func nowNext(channelID: String, at instant: Date) -> NowNext {
            channelID == "c1" ? NowNext(now: programme, next: nil) : .unknown
        }
    }

    @Test func theInfoKeyShowsTheShortFormThenTheLongFormThenNothing() async throws {
        let start = Date().addingTimeInterval(-60)
        let guide = OneProgramme(programme: ProgrammeSummary(
            title: "The Late Film", start: start, end: start.addingTimeInterval(3600),
            description: "Two strangers share a night train across the Alps and swap their luggage by mistake.", rating: "TV-14"))
        let player = try await overlayPlayer(Self.channels, bannerSeconds: 0, programmes: guide)
        try await player.start()
        defer { Task { await player.shutdown() } }
        #expect(await waitUntil(15) { await player.status().lastFlip?.ok == true })
        let short = InfoBanner.box(width: 640, height: 360, withGuide: true)
        let long = InfoBanner.box(width: 640, height: 360, withGuide: true, lines: 2)
        // The band the long form adds above the short one: red until the long form is up.
        let band = (x: long.x + 20, y: long.y + 6, width: long.width - 40, height: short.y - long.y - 12)
        #expect(band.height > 20)

        #expect(await player.toggleBanner() == BannerStatus(shown: true, channel: ChannelSummary(number: "1", name: "Red One", id: "c1"), form: .short))
        #expect(await waitUntil(5) { (try? await overlaySnapshot(player)).map { !region($0, inner(short, 4), is: (255, 0, 0)) } ?? false }, "i: the banner")
        #expect(region(try await overlaySnapshot(player), band, is: (255, 0, 0)), "the short form leaves the band above it red")

        #expect(await player.toggleBanner().form == .long)
        #expect(await waitUntil(5) { (try? await overlaySnapshot(player)).map { !region($0, band, is: (255, 0, 0), tolerance: 60) } ?? false },
                "i again: the long form covers the band too")

        #expect(await player.toggleBanner().shown == false)
        #expect(await bareRed(player), "a third time: gone")
        #expect(await player.bannerStatus().form == nil)

        // Channel 2 has no programme: nothing more to show, so the second press takes it down.
        #expect(await player.flip(.tune(ChannelNumber(2))).ok)
        #expect(await player.toggleBanner().form == .short)
        #expect(await player.toggleBanner().shown == false)
        await player.shutdown()
    }
}
