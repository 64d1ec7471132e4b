@testable import FlipboxCore
import Testing

/// The banner's, the picture-in-picture window's and the multiview's rules, as pure values:
/// nothing renders, decodes or sleeps.
@Suite struct OverlayMachineTests {
    // MARK: Banner

    @Test func theBannerFollowsFlipsForItsAfterFlipTime() {
        var banner = BannerMachine(afterFlip: .seconds(4))
        #expect(banner.flipStarted() == [.takeDown])
        #expect(banner.flipCompleted(channel: 2) == [.present(channel: 2, hold: .seconds(4), long: false)])
        #expect(banner.shown)
        #expect(banner.holdEnded() == [.takeDown])
        #expect(!banner.shown)
    }

    @Test func aHeldBannerComesBackAfterAFlipWhenNoAfterFlipTimeIsSet() {
        var banner = BannerMachine(afterFlip: .zero)
        #expect(banner.flipCompleted(channel: 1) == [], "no banner after flips")
        #expect(banner.show(channel: 1, hold: .zero) == [.present(channel: 1, hold: nil, long: false)], "zero: until dismissed")
        #expect(banner.flipStarted() == [.takeDown])
        #expect(!banner.shown, "it names the old channel: down while the flip runs")
        #expect(banner.flipCompleted(channel: 5) == [.present(channel: 5, hold: nil, long: false)], "back, still held")
        // Dismissed during a flip: it stays down.
        _ = banner.flipStarted()
        #expect(banner.hide() == [.takeDown])
        #expect(banner.flipCompleted(channel: 6) == [])
        // Not up before the flip: it does not come up.
        _ = banner.flipStarted()
        #expect(banner.flipCompleted(channel: 7) == [])
    }

    @Test func theInfoKeyGoesShortLongAndDownAndAFlipBringsItBackShort() {
        var banner = BannerMachine(afterFlip: .zero)
        #expect(banner.cycle(channel: 1, hold: .seconds(4), longHasMore: true) == [.present(channel: 1, hold: .seconds(4), long: false)])
        #expect(banner.cycle(channel: 1, hold: .seconds(4), longHasMore: true) == [.present(channel: 1, hold: .seconds(4), long: true)])
        #expect(banner.long)
        #expect(banner.cycle(channel: 1, hold: .seconds(4), longHasMore: true) == [.takeDown])
        #expect(!banner.shown && !banner.long)
        // Nothing more to show: the second press takes it down.
        _ = banner.cycle(channel: 2, hold: nil, longHasMore: false)
        #expect(banner.cycle(channel: 2, hold: nil, longHasMore: false) == [.takeDown])
        // Long and held, then a flip: it comes back for the new channel, short.
        _ = banner.show(channel: 3, hold: nil, long: true)
        _ = banner.flipStarted()
        #expect(!banner.long)
        #expect(banner.flipCompleted(channel: 4) == [.present(channel: 4, hold: nil, long: false)])
        // Its time ends: down, and the next press starts short again.
        _ = banner.cycle(channel: 4, hold: nil, longHasMore: true)
        #expect(banner.holdEnded() == [.takeDown])
        #expect(banner.cycle(channel: 4, hold: nil, longHasMore: true) == [.present(channel: 4, hold: nil, long: false)])
    }

    @Test func aFailedRenderLeavesTheBannerDown() {
        var banner = BannerMachine(afterFlip: .seconds(3))
        _ = banner.show(channel: 0, hold: nil)
        banner.renderFailed()
        #expect(!banner.shown)
    }

    // MARK: Picture-in-picture

    @Test func theNewestTuneWinsAndTheOldDecoderStops() {
        var pip = PiPMachine()
        let first = pip.tune(3)
        #expect(pip.activated(request: first, feed: 10) == [.show(feed: 10)])
        #expect(pip.isOpen && pip.channel == 3)
        let a = pip.tune(4)
        let b = pip.tune(5)
        // b's decoder starts first: it is shown, 10 stops; a's arrives late and is stopped.
        #expect(pip.activated(request: b, feed: 12) == [.show(feed: 12), .stop(feed: 10)])
        #expect(pip.activated(request: a, feed: 11) == [.show(feed: 12), .stop(feed: 11)])
        #expect(pip.channel == 5 && pip.feed == 12)
    }

    @Test func aCloseWhileADecoderStartsStopsItWhenItArrives() {
        var pip = PiPMachine()
        let r = pip.tune(2)
        #expect(pip.close() == [], "nothing on screen yet")
        #expect(pip.activated(request: r, feed: 7) == [.closeWindow, .stop(feed: 7)])
        #expect(!pip.isOpen && pip.channel == nil)
    }

    @Test func aFailedTuneKeepsWhatTheWindowShowed() {
        var pip = PiPMachine()
        _ = pip.activated(request: pip.tune(1), feed: 3)
        let r = pip.tune(9)
        #expect(pip.failed(request: r) == [.show(feed: 3)])
        #expect(pip.channel == 1 && pip.pending == nil)
        #expect(pip.close() == [.closeWindow, .stop(feed: 3)])
        #expect(pip.failed(request: pip.tune(2)) == [.closeWindow])
    }

    /// Random interleavings of tunes, arrivals, failures and closes: every decoder started is
    /// stopped exactly once unless it is the one shown, and the arrival of the newest tune (not
    /// closed or failed since) is the one shown.
    @Test(arguments: 0..<200) func randomInterleavingsNeverLeakOrShowAStaleDecoder(seed: Int) {
        var rng = SplitMix64(seed: UInt64(seed))
        var pip = PiPMachine()
        var underWay: [(request: Int, channel: Int)] = []
        var running: Set<FeedID> = []
        var nextFeed: UInt = 1
        var newestTune = 0
        for _ in 0..<40 {
            switch rng.next() % 5 {
            case 0, 1:
                let channel = Int(rng.next() % 8)
                let request = pip.tune(channel)
                newestTune = request
                underWay.append((request, channel))
            case 2 where !underWay.isEmpty:
                let (request, _) = underWay.remove(at: Int(rng.next() % UInt64(underWay.count)))
                let feed = FeedID(nextFeed)
                nextFeed += 1
                running.insert(feed)
                for case .stop(let f) in pip.activated(request: request, feed: feed) { #expect(running.remove(f) != nil, "stopped twice: \(f)") }
                if request == newestTune { #expect(pip.feed == feed) }
            case 3 where !underWay.isEmpty:
                let (request, _) = underWay.remove(at: Int(rng.next() % UInt64(underWay.count)))
                _ = pip.failed(request: request)
                if request == newestTune { newestTune = 0 }
            case 4:
                for case .stop(let f) in pip.close() { #expect(running.remove(f) != nil) }
                newestTune = 0  // no tune is wanted any more
            default: break
            }
            #expect(running == Set(pip.feed.map { [$0] } ?? []), "only the shown decoder runs: \(running), shown \(String(describing: pip.feed))")
        }
    }

    // MARK: Multiview

    @Test func theGridOpensOnThePageOfTheChannelOnScreenAndDrawsEveryChange() {
        var mv = MultiviewMachine()
        #expect(mv.move(.left) == nil, "not open")
        #expect(mv.open(grid: 3, current: 10, channelCount: 14) == [.startRefreshing])
        let page = mv.page!
        #expect(page.first == 9 && page.count == 5 && page.highlight == 10)
        guard case .draw(let moved)? = mv.move(.right)?.first else { Issue.record("no draw"); return }
        #expect(moved.highlight == 11)
        let tiles = [MultiviewTile(number: "10", name: "Ten", jpeg: nil, note: "cold")]
        guard case .draw(let refreshed)? = mv.refreshed(tiles).first else { Issue.record("no draw"); return }
        #expect(refreshed.tiles == tiles && refreshed.highlight == 11)
        #expect(mv.close() == [.stopRefreshing, .uncover])
        #expect(mv.close() == [], "closing twice does nothing")
        #expect(mv.refreshed(tiles) == [], "a refresh after the close draws nothing")
    }
}
