import FlipboxCore
import Testing

/// The screen's rules with a manual clock and strings for frames and pictures: nothing sleeps,
/// no GStreamer.
@Suite struct ScreenMachineTests {
    typealias Screen = ScreenMachine<String, String>
    let t0 = ContinuousClock.now
    func at(_ ms: Int) -> ContinuousClock.Instant { t0 + .milliseconds(ms) }
    func screen() -> Screen { Screen(framePeriod: .milliseconds(40), blank: "black", at: t0) }

    /// What the compositions put on screen, as "picture+overlay+overlay".
    func shown(_ actions: [Screen.Action]) -> [String] {
        actions.compactMap {
            if case .compose(let c) = $0 { ([c.picture] + c.overlays).joined(separator: "+") } else { nil }
        }
    }

    @Test func expectedFeedReplacesThePictureWithItsFirstFrameAndItsLogo() {
        var s = screen()
        #expect(shown(s.videoFrame("a1", feed: FeedID(1), at: at(0))).isEmpty, "frames of an unannounced feed are not shown")
        s.expect(feed: FeedID(1), token: RequestID(1), overlays: ["logoA"])
        #expect(shown(s.videoFrame("a1", feed: FeedID(1), at: at(10))) == ["a1+logoA"])
        s.expect(feed: FeedID(2), token: RequestID(2), overlays: ["logoB"])
        #expect(shown(s.videoFrame("a2", feed: FeedID(1), at: at(50))) == ["a2+logoA"], "the old channel plays until the new one has a frame")
        #expect(shown(s.videoFrame("b1", feed: FeedID(2), at: at(60))) == ["b1+logoB"], "the logo changes in the same frame as the picture")
        #expect(shown(s.videoFrame("a3", feed: FeedID(1), at: at(70))).isEmpty, "the old feed is off screen")
        #expect(s.playsAudio(of: FeedID(2)) && !s.playsAudio(of: FeedID(1)))
    }

    /// The keyframe a feed starts from, decoded on the side, shows until the decoder's frames
    /// come; arriving after the decoder's first frame (the two race), it is stale and dropped.
    @Test func aFirstPictureAfterTheDecodersFirstFrameIsDropped() {
        var s = screen()
        s.expect(feed: FeedID(1), token: RequestID(1), overlays: [])
        #expect(shown(s.videoFrame("key1", feed: FeedID(1), at: at(0), firstPicture: true)) == ["key1"])
        #expect(shown(s.videoFrame("a1", feed: FeedID(1), at: at(30))) == ["a1"])
        s.expect(feed: FeedID(2), token: RequestID(2), overlays: [])
        #expect(shown(s.videoFrame("b1", feed: FeedID(2), at: at(60))) == ["b1"])
        #expect(shown(s.videoFrame("key2", feed: FeedID(2), at: at(61), firstPicture: true)).isEmpty,
                "the decoder's frame came first: the first picture is stale")
        #expect(shown(s.videoFrame("b2", feed: FeedID(2), at: at(100))) == ["b2"])
    }

    @Test func cardStaysItsMinimumTimeThenGivesWayToTheHeldFrame() {
        var s = screen()
        s.expect(feed: FeedID(1), token: RequestID(1), overlays: [])
        let card = s.showCard("card", token: RequestID(1), minimum: .milliseconds(400), at: at(80))
        #expect(card.shown && shown(card.actions) == ["card"])
        #expect(!s.playsAudio(of: FeedID(1)))
        #expect(shown(s.videoFrame("a1", feed: FeedID(1), at: at(200))).isEmpty, "held: the card's minimum time is not over")
        #expect(s.nextDeadline <= at(480), "the timer is due by the time the card may go")
        #expect(shown(s.tick(at: at(480))) == ["a1"], "the held frame goes on screen at once when the card's time is over")
        #expect(s.shownFeed == FeedID(1))
    }

    /// A radio channel's picture is its card: it replaces the tuning card when it comes (a card
    /// for a card), and the channel's sound plays from then on, not from the card's minimum time.
    @Test func aRadioStillReplacesTheTuningCardAtOnceAndItsSoundPlays() {
        var s = screen()
        s.expect(feed: FeedID(1), token: RequestID(1), overlays: ["logo"])
        _ = s.showCard("card", token: RequestID(1), minimum: .milliseconds(400), at: at(80))
        #expect(!s.playsAudio(of: FeedID(1)))
        #expect(shown(s.videoFrame("radio", feed: FeedID(1), at: at(200), still: true)) == ["radio+logo"])
        #expect(s.shownFeed == FeedID(1))
        #expect(s.playsAudio(of: FeedID(1)), "the sound plays with the radio card, 280 ms before the tuning card's minimum ends")
        #expect(shown(s.tick(at: at(480))).isEmpty, "nothing held: the card is gone")
        // A channel picture is still held behind a card's minimum time.
        s.expect(feed: FeedID(2), token: RequestID(2), overlays: [])
        _ = s.showCard("card", token: RequestID(2), minimum: .milliseconds(400), at: at(600))
        #expect(shown(s.videoFrame("b1", feed: FeedID(2), at: at(700))).isEmpty)
        #expect(!s.playsAudio(of: FeedID(2)))
    }

    @Test func cardNeverCoversThePictureItAnnounces() {
        var s = screen()
        s.expect(feed: FeedID(1), token: RequestID(7), overlays: [])
        _ = s.videoFrame("a1", feed: FeedID(1), at: at(30))
        let late = s.showCard("card", token: RequestID(7), minimum: .milliseconds(400), at: at(80))
        #expect(!late.shown && late.actions.isEmpty)
        #expect(s.shownFeed == FeedID(1))
    }

    @Test func aCardReplacingACardKeepsTheOlderMinimum() {
        var s = screen()
        _ = s.showCard("tuning", token: RequestID(1), minimum: .milliseconds(400), at: at(0))
        _ = s.showCard("no-signal", token: RequestID(1), minimum: .zero, at: at(100))
        s.expect(feed: FeedID(3), token: RequestID(1), overlays: [])
        #expect(shown(s.videoFrame("c1", feed: FeedID(3), at: at(300))).isEmpty)
        #expect(shown(s.videoFrame("c2", feed: FeedID(3), at: at(401))) == ["c2"])
    }

    @Test func restoreGoesBackToTheChannelStillPlaying() {
        var s = screen()
        s.expect(feed: FeedID(1), token: RequestID(1), overlays: ["logoA"])
        _ = s.videoFrame("a1", feed: FeedID(1), at: at(0))
        s.expect(feed: FeedID(2), token: RequestID(2), overlays: ["logoB"])
        _ = s.showCard("card", token: RequestID(2), minimum: .milliseconds(400), at: at(100))
        s.cancel(feed: FeedID(2))
        s.restore(feed: FeedID(1))
        #expect(shown(s.videoFrame("a2", feed: FeedID(1), at: at(150))) == ["a2+logoA"])
        #expect(shown(s.videoFrame("b1", feed: FeedID(2), at: at(160))).isEmpty, "a cancelled feed never shows")
    }

    /// A held channel-up key: the flip to channel 6 is superseded before the switcher heard of
    /// its feed, and the key comes round to channel 3, still playing. Channel 6's first frame,
    /// late, must not take the screen from it (seen in the key-repeat test: the box settled on
    /// channel 3 showing channel 6's last picture, frozen).
    @Test func aRestoreDropsTheAbandonedFlipsFeed() {
        var s = screen()
        s.expect(feed: FeedID(3), token: RequestID(1), overlays: [])
        _ = s.videoFrame("c1", feed: FeedID(3), at: at(0))
        s.expect(feed: FeedID(6), token: RequestID(2), overlays: [])
        s.restore(feed: FeedID(3))
        #expect(shown(s.videoFrame("f1", feed: FeedID(6), at: at(40))).isEmpty, "the abandoned flip's frame stays off screen")
        #expect(shown(s.videoFrame("c2", feed: FeedID(3), at: at(50))) == ["c2"])
        s.cancel(feed: FeedID(6))
        #expect(shown(s.videoFrame("c3", feed: FeedID(3), at: at(80))) == ["c3"])
        #expect(s.playsAudio(of: FeedID(3)))
    }

    /// The race at its root: the decoder of a superseded flip announces its feed only after the
    /// switcher abandoned the flip and restored the channel on screen. That late `expect` is
    /// refused, so the abandoned channel's first frame never flashes over the one playing.
    @Test func aLateExpectOfAnAbandonedRequestIsRefused() {
        var s = screen()
        s.expect(feed: FeedID(3), token: RequestID(1), overlays: ["logo3"])
        _ = s.videoFrame("c1", feed: FeedID(3), at: at(0))
        s.abandon(RequestID(2))
        s.restore(feed: FeedID(3))
        let accepted = s.expect(feed: FeedID(6), token: RequestID(2), overlays: [])
        #expect(!accepted, "refused")
        #expect(shown(s.videoFrame("f1", feed: FeedID(6), at: at(30))).isEmpty, "the abandoned flip's frame stays off screen")
        #expect(shown(s.videoFrame("c2", feed: FeedID(3), at: at(40))) == ["c2+logo3"])
        #expect(s.playsAudio(of: FeedID(3)) && !s.playsAudio(of: FeedID(6)))
        // Abandoned after its `expect`, before its frame: expected no more.
        let seven = s.expect(feed: FeedID(7), token: RequestID(3), overlays: [])
        #expect(seven)
        s.abandon(RequestID(3))
        #expect(shown(s.videoFrame("g1", feed: FeedID(7), at: at(50))).isEmpty)
        // A newer request for the same channel is a new flip, expected as usual.
        let eight = s.expect(feed: FeedID(8), token: RequestID(4), overlays: [])
        #expect(eight)
        #expect(shown(s.videoFrame("f1", feed: FeedID(8), at: at(60))) == ["f1"])
        // A flip that failed while its decoder was still starting (no abandon: its feed would
        // play behind the "no signal" card) announces its feed after a newer flip's: refused, so
        // it cannot take the newer flip's place as the one expected.
        _ = s.expect(feed: FeedID(10), token: RequestID(6), overlays: [])
        let late = s.expect(feed: FeedID(9), token: RequestID(5), overlays: [])
        #expect(!late)
        #expect(shown(s.videoFrame("i1", feed: FeedID(9), at: at(70))).isEmpty)
        #expect(shown(s.videoFrame("j1", feed: FeedID(10), at: at(80))) == ["j1"])
    }

    /// The same race the other way round: the abandoned feed's first frame got on screen before
    /// the restore (or its `expect` came after it). When that feed is cancelled, the channel that
    /// was on screen before it, still playing, takes the screen back with its next frame.
    @Test func cancellingTheFeedOnScreenGoesBackToTheOneBeforeIt() {
        var s = screen()
        s.expect(feed: FeedID(3), token: RequestID(1), overlays: ["logo3"])
        _ = s.videoFrame("c1", feed: FeedID(3), at: at(0))
        s.expect(feed: FeedID(6), token: RequestID(2), overlays: [])
        #expect(shown(s.videoFrame("f1", feed: FeedID(6), at: at(30))) == ["f1"])
        s.cancel(feed: FeedID(6))
        #expect(s.shownFeed == FeedID(3))
        #expect(shown(s.videoFrame("f2", feed: FeedID(6), at: at(40))).isEmpty, "a cancelled feed never shows")
        #expect(shown(s.videoFrame("c2", feed: FeedID(3), at: at(50))) == ["c2+logo3"], "with its own logo")
        // A feed that was stopped itself is not gone back to.
        s.expect(feed: FeedID(7), token: RequestID(3), overlays: [])
        _ = s.videoFrame("g1", feed: FeedID(7), at: at(60))
        s.cancel(feed: FeedID(3))
        s.cancel(feed: FeedID(7))
        #expect(s.shownFeed == nil)
        #expect(shown(s.videoFrame("c3", feed: FeedID(3), at: at(70))).isEmpty)
    }

    @Test func layersSitAboveThePictureInZOrderAndRecomposeAStillPicture() {
        var s = screen()
        s.expect(feed: FeedID(1), token: nil, overlays: ["logo"])
        _ = s.videoFrame("a1", feed: FeedID(1), at: at(0))
        #expect(shown(s.setLayer(.message, ["msg"], at: at(10))) == ["a1+logo+msg"], "a layer shows at once, also on a still picture")
        #expect(shown(s.setLayer(.banner, ["banner"], at: at(20))) == ["a1+logo+banner+msg"])
        let guide = ScreenLayer("guide", z: 25)
        #expect(shown(s.setLayer(guide, ["grid"], at: at(30))) == ["a1+logo+banner+grid+msg"], "a new layer needs no change to the screen")
        #expect(shown(s.setLayer(.banner, [], at: at(40))) == ["a1+logo+grid+msg"])
        #expect(shown(s.updateLayer(.pictureInPicture, ["pip"], at: at(50))).isEmpty, "a per-frame layer waits for the next frame")
        #expect(shown(s.videoFrame("a2", feed: FeedID(1), at: at(60))) == ["a2+logo+pip+grid+msg"])
        #expect(shown(s.updateLayer(.pictureInPicture, ["pip2"], at: at(200))) == ["a2+logo+pip2+grid+msg"], "unless the picture is still")
    }

    @Test func coverHidesChannelFramesButNotTheLayers() {
        var s = screen()
        s.expect(feed: FeedID(1), token: nil, overlays: ["logo"])
        _ = s.videoFrame("a1", feed: FeedID(1), at: at(0))
        _ = s.setLayer(.banner, ["banner"], at: at(5))
        #expect(shown(s.setCover("grid", at: at(10))) == ["grid+banner"])
        #expect(shown(s.videoFrame("a2", feed: FeedID(1), at: at(50))) == ["grid+banner"])
        #expect(s.playsAudio(of: FeedID(1)), "sound plays on under the cover")
        #expect(shown(s.setCover(nil, at: at(60))) == ["a2+logo+banner"], "uncovered: the channel's newest frame")
    }

    @Test func aStillPictureIsRepeatedEveryTwoFramePeriods() {
        var s = screen()
        #expect(s.nextDeadline == at(80))
        #expect(s.tick(at: at(40)).isEmpty)
        guard case .repeatLast = s.tick(at: at(80)).last else { Issue.record("no repeat"); return }
        #expect(s.nextDeadline == at(160))
        s.expect(feed: FeedID(1), token: nil, overlays: [])
        _ = s.videoFrame("a1", feed: FeedID(1), at: at(100))
        #expect(s.nextDeadline == at(180), "a frame moves the deadline")
    }

    /// Random interleavings of every input, with the timer firing on time: compositions come
    /// out in sequence; a cancelled feed, or one refused for an abandoned request, never shows; a frame never replaces a card before the
    /// card's minimum time; the output is never silent for more than two frame periods.
    @Test(arguments: 1...30) func invariantsUnderRandomInterleavings(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var s = screen()
        var now = 0
        var lastSequence = 0
        var cancelled: Set<UInt> = []
        var refused: Set<UInt> = []
        var framesAfterCancel: Set<String> = []
        var nextFeed: UInt = 1
        var live: [UInt] = []
        var cardUntil: Int?
        var lastOut = 0
        func ms(_ t: ContinuousClock.Instant) -> Int {
            Int((t - t0).components.seconds * 1000 + (t - t0).components.attoseconds / 1_000_000_000_000_000)
        }
        func check(_ actions: [Screen.Action], at time: Int, step: Int) {
            for action in actions {
                if case .compose(let c) = action {
                    #expect(c.sequence > lastSequence, "seed \(seed) step \(step): out of order")
                    lastSequence = c.sequence
                    if c.picture.hasPrefix("f") {
                        #expect(!framesAfterCancel.contains(c.picture), "seed \(seed) step \(step): a frame of cancelled \(c.feed) shown")
                        if let until = cardUntil { #expect(time >= until, "seed \(seed) step \(step): the card went before its time") }
                    }
                }
                #expect(time - lastOut <= 80, "seed \(seed) step \(step): silent from \(lastOut) to \(time)")
                lastOut = time
            }
            if !s.isCardShown { cardUntil = nil }
        }
        for step in 0..<500 {
            // The timer fires on time.
            while s.nextDeadline <= at(now) {
                let due = ms(s.nextDeadline)
                check(s.tick(at: at(due)), at: due, step: step)
            }
            var actions: [Screen.Action] = []
            switch Int.random(in: 0..<11, using: &rng) {
            case 0:
                let f = nextFeed; nextFeed += 1
                // Now and then the switcher abandons the request before its decoder announces
                // the feed: that feed is refused and none of its frames may show.
                if Int.random(in: 0..<4, using: &rng) == 0 { s.abandon(RequestID(UInt64(f))) }
                if s.expect(feed: FeedID(f), token: RequestID(UInt64(f)), overlays: ["logo\(f)"]) {
                    live.append(f)
                } else {
                    refused.insert(f)
                }
            case 1:
                if let f = live.randomElement(using: &rng) { s.cancel(feed: FeedID(f)); cancelled.insert(f); live.removeAll { $0 == f } }
            case 2:
                let minimum = Int.random(in: 0..<500, using: &rng)
                let r = s.showCard("card", token: RequestID(UInt64(nextFeed - 1)), minimum: .milliseconds(minimum), at: at(now))
                if r.shown { cardUntil = max(cardUntil ?? now + minimum, now + minimum) }
                actions = r.actions
            case 3:
                // An abandoned flip: the card goes at once, the channel still playing comes back.
                if let f = live.randomElement(using: &rng) { s.restore(feed: FeedID(f)); cardUntil = nil }
            case 4: actions = s.setLayer(.banner, Bool.random(using: &rng) ? ["banner"] : [], at: at(now))
            case 5: actions = s.updateLayer(.pictureInPicture, ["pip\(step)"], at: at(now))
            case 6: actions = s.setCover(Bool.random(using: &rng) ? "grid" : nil, at: at(now))
            default:
                let f = (live + Array(cancelled) + Array(refused)).randomElement(using: &rng) ?? 0
                if cancelled.contains(f) || refused.contains(f) { framesAfterCancel.insert("f\(f)-\(step)") }
                actions = s.videoFrame("f\(f)-\(step)", feed: FeedID(f), at: at(now))
            }
            check(actions, at: now, step: step)
            now += Int.random(in: 0..<60, using: &rng)
        }
    }
}
