import FlipboxCore
import Lineup
import Testing

/// The switcher's rules with a manual clock: times are made up, nothing sleeps.
@Suite struct SwitcherMachineTests {
    typealias Effect = SwitcherMachine.Effect
    let t0 = ContinuousClock.now

    func at(_ ms: Int) -> ContinuousClock.Instant { t0 + .milliseconds(ms) }

    static func lineup(_ count: Int = 6, configure: (inout Channel) -> Void = { _ in }) -> [SwitcherMachine.ChannelInfo] {
        (1...count).map { n in
            var c = Channel(id: "c\(n)", number: ChannelNumber(n), name: "Channel \(n)", sources: ["test://"])
            configure(&c)
            return SwitcherMachine.ChannelInfo(c)
        }
    }

    func results(_ effects: [Effect]) -> [FlipResult] {
        effects.compactMap { if case .deliver(let r) = $0 { r } else { nil } }
    }

    func activations(_ effects: [Effect]) -> [(RequestID, Int)] {
        effects.compactMap { if case .activate(let id, let c, _) = $0 { (id, c) } else { nil } }
    }

    /// The feed the machine named for the flip `effects` started.
    func feed(_ effects: [Effect]) -> FeedID {
        effects.compactMap { if case .activate(_, _, let feed) = $0 { feed } else { nil } }.first ?? .none
    }

    func cards(_ effects: [Effect]) -> [SwitcherMachine.Card] {
        effects.compactMap { if case .showCard(let c) = $0 { c } else { nil } }
    }

    func stops(_ effects: [Effect]) -> [FeedID] {
        effects.compactMap { if case .stop(let f) = $0 { f } else { nil } }
    }

    func timers(_ effects: [Effect]) -> [SwitcherMachine.Timer: ContinuousClock.Instant] {
        var out: [SwitcherMachine.Timer: ContinuousClock.Instant] = [:]
        for e in effects { if case .schedule(let t, let when) = e { out[t] = when } }
        return out
    }

    /// A machine already showing channel `index` + 1 on feed 100.
    func machine(on index: Int = 0, channels: [SwitcherMachine.ChannelInfo] = lineup(),
                 settings: SwitcherSettings = SwitcherSettings()) -> SwitcherMachine {
        var m = SwitcherMachine(channels: channels, settings: settings)
        let (id, _) = m.request(.tune(channels[index].number), at: at(-1000))
        _ = m.firstFrame(requestID: id, feed: 100, path: .warm, at: at(-990))
        return m
    }

    @Test func warmFlipCompletesWithoutACard() {
        var m = machine()
        let (id, effects) = m.request(.next, at: at(0))
        #expect(activations(effects).map(\.1) == [1])
        let t = timers(effects)
        #expect(t[.card(requestID: id)] == at(80), "the card waits 80 ms")
        #expect(t[.timeout(requestID: id)] == at(8000))
        #expect(feed(effects) != .none && feed(effects) != 100, "the flip's feed is named with it")
        let done = m.firstFrame(requestID: id, feed: 101, path: .warm, at: at(18))
        let r = results(done)
        #expect(r.count == 1 && r[0].outcome == .completed && r[0].channel?.number == "2")
        #expect(r[0].latency == .milliseconds(18) && r[0].path == .warm && !r[0].interstitialShown)
        #expect(stops(done) == [100], "the old channel's decoder stops")
        #expect(done.contains(.committed(current: 1, previous: 0, played: true)))
        // The card timer and the timeout fire later and change nothing.
        #expect(m.timerFired(.card(requestID: id), at: at(80)).isEmpty)
        #expect(m.timerFired(.timeout(requestID: id), at: at(8000)).isEmpty)
        #expect(m.current == 1 && m.previous == 0 && m.shownFeed == 101)
    }

    @Test func theChannelOnScreenLosingItsSignalGetsTheNoSignalCardUntilItsNextFrame() {
        var m = machine()
        #expect(m.signalLost(channel: 3, reason: "gone").isEmpty, "another channel's loss is not news")
        let lost = m.signalLost(channel: 0, reason: "no data from the source for 2 s")
        let card = cards(lost)
        #expect(card.count == 1 && card[0].kind == .noSignal(reason: "no data from the source for 2 s") && card[0].channel == 0)
        #expect(m.wantsCard(card[0]))
        _ = m.cardShown(card[0])
        #expect(m.signalLost(channel: 0, reason: "again").isEmpty, "one card at a time")
        let back = m.firstFrame(requestID: card[0].requestID, feed: 100, path: .hot, at: at(5000))
        #expect(back.contains { if case .event(.cardHidden) = $0 { true } else { false } })
        #expect(!m.isShowingCard && m.current == 0 && m.shownFeed == 100)
        // During a flip the flip's own rules decide.
        _ = m.request(.next, at: at(6000))
        #expect(m.signalLost(channel: 0, reason: "gone").isEmpty)
    }

    @Test func slowFlipShowsTheCardUntilTheFirstFrame() {
        var m = machine()
        let (id, _) = m.request(.tune(ChannelNumber(4)), at: at(0))
        let show = m.timerFired(.card(requestID: id), at: at(80))
        let card = cards(show)
        #expect(card.count == 1 && card[0].channel == 3 && card[0].kind == .tuning && card[0].minimum == .milliseconds(400))
        #expect(m.wantsCard(card[0]))
        let shown = m.cardShown(card[0])
        #expect(shown.contains(.event(.cardShown(requestID: id, channel: m.channels[3].summary, kind: "tuning"))))
        let done = m.firstFrame(requestID: id, feed: 101, path: .cold, at: at(900))
        let r = results(done)
        #expect(r.count == 1 && r[0].ok && r[0].interstitialShown && r[0].path == .cold)
        #expect(done.contains(.event(.cardHidden(requestID: id, channel: m.channels[3].summary))))
        #expect(!m.isShowingCard)
    }

    @Test func aCardReadyAfterThePictureCameIsNotShown() {
        var m = machine()
        let (id, _) = m.request(.next, at: at(0))
        let card = cards(m.timerFired(.card(requestID: id), at: at(80)))
        _ = m.firstFrame(requestID: id, feed: 101, path: .warm, at: at(85))
        #expect(!m.wantsCard(card[0]), "the render finished after the first frame: never put it up")
        #expect(m.cardShown(card[0]).isEmpty)
    }

    @Test func heldKeyRetargetsAndEveryRequestGetsExactlyOneResult() {
        var m = machine(channels: Self.lineup(12))
        var delivered: [RequestID: [FlipResult]] = [:]
        var ids: [RequestID] = []
        var feeds: [FeedID] = []
        var stopped: [FeedID] = []
        func take(_ effects: [Effect]) {
            for r in results(effects) { delivered[r.requestID, default: []].append(r) }
            stopped += stops(effects)
        }
        // Key repeat every 50 ms; each request gets its decoder, but no frame comes in time.
        for k in 0..<8 {
            let (id, effects) = m.request(.next, at: at(50 * k))
            ids.append(id)
            feeds.append(feed(effects))
            take(effects)
        }
        #expect(m.pending?.channel == 8, "eight nexts from channel 1 aim at channel 9")
        take(m.firstFrame(requestID: ids.last!, feed: feeds.last!, path: .warm, at: at(400)))
        for id in ids { #expect(delivered[id]?.count == 1, "request \(id) has exactly one result") }
        for (i, id) in ids.dropLast().enumerated() {
            #expect(delivered[id]?.first?.outcome == .superseded)
            #expect(delivered[id]?.first?.supersededBy == ids[i + 1])
        }
        #expect(delivered[ids.last!]?.first?.outcome == .completed)
        #expect(delivered[ids.last!]?.first?.channel?.number == "9")
        #expect(Set(stopped) == Set(feeds.dropLast() + [100]), "every superseded decoder and the old channel stop")
        #expect(stopped.count == 8, "each once")
    }

    /// The feed is named with the request, so a flip superseded while it connects is stopped at
    /// once (its activation is withdrawn), not when its decoder is set up.
    @Test func aFlipSupersededOnItsWayIsStoppedAtOnce() {
        var m = machine()
        let (first, started) = m.request(.next, at: at(0))
        let (_, superseding) = m.request(.next, at: at(30))
        #expect(stops(superseding) == [feed(started)])
        #expect(feed(superseding) != feed(started))
        #expect(m.activationFailed(requestID: first, reason: "gave way").isEmpty, "its activation giving way changes nothing")
    }

    /// A flip abandoned before its decoder was set up (superseded, or its caller gone) is given up
    /// on the output too: the decoder may announce its feed after the switcher moved on.
    @Test func anAbandonedFlipIsAbandonedOnTheOutputBeforeItsFeedIsKnown() {
        var m = machine(on: 2)
        let (first, _) = m.request(.next, at: at(0))
        let (second, superseding) = m.request(.previous, at: at(20))
        #expect(superseding.contains(.abandon(requestID: first)))
        #expect(!superseding.contains(.abandon(requestID: second)), "the hot restore is not abandoned")
        let (third, _) = m.request(.next, at: at(40))
        let cancelled = m.cancel(requestID: third)
        #expect(cancelled.contains(.abandon(requestID: third)), "a caller that gave up abandons its flip")
        let (fourth, _) = m.request(.next, at: at(60))
        let done = m.firstFrame(requestID: fourth, feed: 104, path: .warm, at: at(70))
        #expect(!done.contains { if case .abandon = $0 { true } else { false } }, "a completed flip is not abandoned")
        let (fifth, _) = m.request(.tune(ChannelNumber(6)), at: at(100))
        let locked = m.setLock(channel: 5, reason: Self.rated, at: at(110))
        #expect(locked.contains(.abandon(requestID: fifth)), "a flip whose target locks on its way is abandoned: its picture must not come")
    }

    @Test func aCardOnScreenFollowsTheRetargetAtOnce() {
        var m = machine()
        let (first, _) = m.request(.next, at: at(0))
        let card = cards(m.timerFired(.card(requestID: first), at: at(80)))[0]
        _ = m.cardShown(card)
        let (second, effects) = m.request(.next, at: at(200))
        let next = cards(effects)
        #expect(next.count == 1 && next[0].requestID == second && next[0].channel == 2, "no second delay: the card just changes")
        #expect(timers(effects)[.card(requestID: second)] == nil)
        #expect(results(effects).first?.interstitialShown == true, "the superseded flip had its card shown")
    }

    @Test func retargetingBackToTheShownChannelRestoresItsPicture() {
        var m = machine(on: 2)
        let (first, started) = m.request(.next, at: at(0))
        _ = m.cardShown(cards(m.timerFired(.card(requestID: first), at: at(80)))[0])
        let (back, effects) = m.request(.previous, at: at(150))
        #expect(effects.contains(.restore(feed: 100)))
        #expect(stops(effects) == [feed(started)])
        let r = results(effects)
        #expect(r.map(\.requestID) == [first, back])
        #expect(r[1].outcome == .completed && r[1].path == .hot && r[1].channel?.number == "3")
        #expect(!m.isShowingCard && m.current == 2)
    }

    @Test func aQuickReturnRestoresTheShownFeedEvenWithoutACard() {
        // next, then previous 20 ms later: the first flip's frame may already be on screen
        // (its report not yet in), so the output is told to show the playing channel again.
        var m = machine(on: 2)
        let (first, started) = m.request(.next, at: at(0))
        let (_, effects) = m.request(.previous, at: at(20))
        #expect(effects.contains(.restore(feed: 100)))
        #expect(stops(effects) == [feed(started)])
        #expect(m.firstFrame(requestID: first, feed: feed(started), path: .warm, at: at(22)).isEmpty, "a late report of the abandoned flip changes nothing")
        #expect(m.current == 2 && m.shownFeed == 100)
    }

    @Test func timeoutTurnsTheCardIntoNoSignalAndTheChannelCanComeBack() {
        var m = machine()
        let (id, started) = m.request(.tune(ChannelNumber(5)), at: at(0))
        _ = m.cardShown(cards(m.timerFired(.card(requestID: id), at: at(80)))[0])
        let fail = m.timerFired(.timeout(requestID: id), at: at(8000), detail: "connection refused")
        let r = results(fail)
        #expect(r.count == 1 && r[0].outcome == .failed && r[0].failure == .timedOut)
        #expect(r[0].error?.contains("Channel 5") == true && r[0].error?.contains("connection refused") == true)
        let noSignal = cards(fail)
        #expect(noSignal.count == 1 && noSignal[0].kind == .noSignal(reason: "no picture within 8 s: connection refused"))
        #expect(fail.contains(.committed(current: 4, previous: 0, played: false)))
        #expect(stops(fail) == [100], "the old channel stops; the viewer is on channel 5 now")
        #expect(m.shownFeed == feed(started), "the flip's feed runs on behind the card")
        #expect(m.wantsCard(noSignal[0]))
        _ = m.cardShown(noSignal[0])
        // Later the source recovers: its picture replaces the card without a new flip.
        let back = m.firstFrame(requestID: id, feed: feed(started), path: .cold, at: at(20000))
        #expect(results(back).isEmpty, "the request already had its one result")
        #expect(back.contains(.committed(current: 4, previous: 0, played: true)))
        #expect(!m.isShowingCard)
        // And next goes on from channel 5.
        #expect(activations(m.request(.next, at: at(21000)).effects).map(\.1) == [5])
    }

    @Test func aFlipThatTimedOutAndThenCannotStartLeavesNoFeedBehindItsCard() {
        var m = machine()
        let (id, started) = m.request(.next, at: at(0))
        _ = m.timerFired(.timeout(requestID: id), at: at(8000))
        #expect(m.shownFeed == feed(started))
        #expect(m.activationFailed(requestID: id, reason: "refused").isEmpty, "the request had its one result")
        #expect(m.shownFeed == nil, "no picture will come from it")
        #expect(m.current == 1)
    }

    @Test func aSourceThatCannotStartFailsWithNoSignal() {
        var m = machine()
        let (id, _) = m.request(.next, at: at(0))
        let fail = m.activationFailed(requestID: id, reason: "no decoder for HEVC")
        #expect(results(fail).first?.failure == .sourceFailed)
        #expect(cards(fail).first?.kind == .noSignal(reason: "no decoder for HEVC"))
        #expect(m.shownFeed == nil)
        // A flip away from the failed channel shows the next card at once (the no-signal card is up).
        _ = m.cardShown(cards(fail)[0])
        let (_, effects) = m.request(.next, at: at(500))
        #expect(cards(effects).first?.kind == .tuning)
    }

    @Test func unknownNumbersAreRefusedOnScreenAndChangeNothing() {
        var m = machine(on: 1)
        let (id, effects) = m.request(.tune(ChannelNumber(42)), at: at(0))
        let r = results(effects)
        #expect(r.count == 1 && r[0].requestID == id && r[0].failure == .unknownChannel)
        #expect(effects.contains(.message("No channel 42")))
        #expect(activations(effects).isEmpty && cards(effects).isEmpty)
        #expect(m.current == 1 && m.pending == nil)
        let (_, byID) = m.request(.tuneID("nope"), at: at(10))
        #expect(results(byID).first?.failure == .unknownChannel)
    }

    @Test func anUnknownNumberDoesNotDisturbAFlipOnItsWay() {
        var m = machine()
        let (id, _) = m.request(.next, at: at(0))
        _ = m.request(.tune(ChannelNumber(99)), at: at(10))
        #expect(m.pending?.requestID == id)
        #expect(results(m.firstFrame(requestID: id, feed: 101, path: .warm, at: at(20))).first?.ok == true)
    }

    func events(_ effects: [Effect]) -> [FlipEvent] {
        effects.compactMap { if case .event(let e) = $0 { e } else { nil } }
    }

    static let rated = "Rated TV-MA, over VCHIP TV-PG"

    @Test func aFlipToLockedContentEndsFailedLockedWithTheLockCardAndNoDecoder() {
        var m = machine()
        #expect(m.setLock(channel: 2, reason: Self.rated, at: at(0)).isEmpty, "a lock elsewhere changes nothing on screen")
        let (id, effects) = m.request(.tune(ChannelNumber(3)), at: at(10))
        let r = results(effects)
        #expect(r.count == 1 && r[0].requestID == id && r[0].outcome == .failed && r[0].failure == .locked)
        #expect(r[0].error == "channel 3 Channel 3 is locked: \(Self.rated)")
        #expect(activations(effects).isEmpty, "locked content never starts a decoder")
        #expect(stops(effects) == [100], "the old channel stops: the viewer is on the locked one")
        #expect(timers(effects).isEmpty)
        let card = cards(effects)
        #expect(card.count == 1 && card[0].kind == .locked(reason: Self.rated) && card[0].channel == 2)
        #expect(events(effects).contains(.lockShown(channel: m.channels[2].summary, reason: Self.rated)))
        #expect(effects.contains(.committed(current: 2, previous: 0, played: false)))
        #expect(m.current == 2 && m.previous == 0 && m.shownFeed == nil && m.pending == nil)
        #expect(m.lockedOnScreen?.channel == 2 && m.lockedOnScreen?.reason == Self.rated)
        #expect(m.wantsCard(card[0]))
        #expect(events(m.cardShown(card[0])) == [.cardShown(requestID: id, channel: m.channels[2].summary, kind: "locked")])
        #expect(!m.wantsCard(card[0]), "shown once")
        // The locked channel losing its signal shows nothing over the lock card.
        #expect(m.signalLost(channel: 2, reason: "gone").isEmpty)
        // Recall leaves it and plays the old channel again.
        let (back, leave) = m.request(.recall, at: at(500))
        #expect(activations(leave).map(\.1) == [0])
        let done = m.firstFrame(requestID: back, feed: 101, path: .warm, at: at(520))
        #expect(results(done).first?.ok == true)
        #expect(events(done).contains(.lockHidden(channel: m.channels[2].summary)))
        #expect(m.lockedOnScreen == nil)
    }

    @Test func staticallyLockedChannelsAreSkippedByNextUnlessLockedFlipIsCard() {
        let channels = Self.lineup(4).enumerated().map { i, c in
            var c = c
            c.locked = i == 1
            return c
        }
        var m = machine(channels: channels)
        let (_, effects) = m.request(.tune(ChannelNumber(2)), at: at(0))
        #expect(results(effects).first?.failure == .locked, "tuned by number: the lock card")
        #expect(m.lockedOnScreen?.channel == 1)
        var skip = machine(channels: channels)
        #expect(activations(skip.request(.next, at: at(10)).effects).map(\.1) == [2], "next skips the locked channel 2")
        var stop = machine(channels: channels, settings: SwitcherSettings(lockedFlip: .card))
        let (_, onLocked) = stop.request(.next, at: at(10))
        #expect(activations(onLocked).isEmpty && results(onLocked).first?.failure == .locked, "locked-flip: card stops on it")
        #expect(activations(stop.request(.next, at: at(20)).effects).map(\.1) == [2], "and next goes on from there")
    }

    @Test func aProgrammeBoundaryIntoLockedContentEngagesTheLockOnTheLiveChannel() {
        var m = machine()
        let engaged = m.setLock(channel: 0, reason: Self.rated, at: at(1000))
        #expect(stops(engaged) == [100], "the feed stops at the boundary: no frame, no sound after it")
        #expect(results(engaged).isEmpty, "no request, no result")
        let card = cards(engaged)
        #expect(card.count == 1 && card[0].kind == .locked(reason: Self.rated) && card[0].channel == 0)
        #expect(events(engaged).contains(.lockShown(channel: m.channels[0].summary, reason: Self.rated)))
        #expect(m.shownFeed == nil && m.current == 0 && m.lockedOnScreen?.channel == 0)
        _ = m.cardShown(card[0])
        // The same lock again changes nothing; a new reason updates the card.
        #expect(m.setLock(channel: 0, reason: Self.rated, at: at(1100)).isEmpty)
        let renewed = cards(m.setLock(channel: 0, reason: "Not rated", at: at(1200)))
        #expect(renewed.map(\.kind) == [.locked(reason: "Not rated")])
        // Unlocked (the PIN, or the next programme is allowed): the channel plays again, a flip of its own.
        let unlocked = m.setLock(channel: 0, reason: nil, at: at(2000))
        #expect(events(unlocked).contains(.lockHidden(channel: m.channels[0].summary)))
        let started = events(unlocked).compactMap { if case .flipStarted(let id, _, _) = $0 { id } else { nil } }
        #expect(started.count == 1)
        #expect(activations(unlocked).map(\.1) == [0])
        #expect(m.lockedOnScreen == nil)
        let done = m.firstFrame(requestID: started[0], feed: 102, path: .warm, at: at(2020))
        #expect(results(done).map(\.requestID) == started && results(done)[0].ok)
        #expect(m.shownFeed == 102)
    }

    @Test func aFlipWhoseTargetTurnsLockedOnItsWayEndsLockedExactlyOnce() {
        var m = machine()
        let (id, started) = m.request(.next, at: at(0))
        let locked = m.setLock(channel: 1, reason: Self.rated, at: at(30))
        #expect(results(locked).map(\.failure) == [.locked] && results(locked)[0].requestID == id)
        #expect(Set(stops(locked)) == [100, feed(started)], "neither the old channel nor the target plays")
        #expect(m.pending == nil && m.current == 1 && m.lockedOnScreen?.channel == 1)
        // Whatever was on its way for it later changes nothing.
        #expect(results(m.firstFrame(requestID: id, feed: 101, path: .warm, at: at(40))).isEmpty)
        #expect(m.timerFired(.card(requestID: id), at: at(80)).isEmpty)
        #expect(m.timerFired(.timeout(requestID: id), at: at(8000)).isEmpty)
        #expect(m.shownFeed == nil)
    }

    @Test func cancellingAFlipAwayFromALockedChannelBringsTheLockCardBack() throws {
        var m = machine()
        let lockCard = cards(m.setLock(channel: 0, reason: Self.rated, at: at(0)))
        _ = m.cardShown(lockCard[0])
        let (id, effects) = m.request(.next, at: at(100))
        let tuning = cards(effects)
        try #require(tuning.map(\.kind) == [.tuning], "the card already up carries over to the target")
        _ = m.cardShown(tuning[0])
        let cancelled = m.cancel(requestID: id)
        #expect(results(cancelled).first?.failure == .cancelled)
        #expect(cards(cancelled).map(\.kind) == [.locked(reason: Self.rated)], "the lock card, not the other channel's card")
        #expect(m.current == 0 && m.lockedOnScreen?.channel == 0)
    }

    @Test func nextAndPreviousSkipHiddenAndFailedChannels() {
        let channels = Self.lineup(5) { c in c.isHidden = c.number == ChannelNumber(2) }
        var m = machine(channels: channels)
        m.channelFailed(2, true)
        #expect(activations(m.request(.next, at: at(0)).effects).map(\.1) == [3], "2 is hidden, 3 failed")
        var keep = machine(channels: channels, settings: SwitcherSettings(skipHidden: false, skipFailed: false))
        keep.channelFailed(2, true)
        #expect(activations(keep.request(.next, at: at(0)).effects).map(\.1) == [1])
        // Wrap-around backwards from channel 1 goes to 5.
        var back = machine(channels: channels)
        #expect(activations(back.request(.previous, at: at(0)).effects).map(\.1) == [4])
        // A hidden channel can still be tuned by number.
        var tune = machine(channels: channels)
        #expect(activations(tune.request(.tune(ChannelNumber(2)), at: at(0)).effects).map(\.1) == [1])
    }

    @Test func favouritesAndGroupScopes() {
        let channels = Self.lineup(6) { c in
            c.isFavourite = [1, 4, 6].contains(c.number.major)
            c.group = c.number.major <= 3 ? "News" : "Sport"
        }
        var fav = machine(channels: channels, settings: SwitcherSettings(scope: .favourites))
        var seen: [Int] = []
        for k in 0..<3 {
            let (id, effects) = fav.request(.next, at: at(k * 100))
            let target = activations(effects)[0].1
            seen.append(target)
            _ = fav.firstFrame(requestID: id, feed: FeedID(UInt(300 + k)), path: .warm, at: at(k * 100 + 20))
        }
        #expect(seen == [3, 5, 0], "favourites 4, 6, then around to 1")

        var group = machine(on: 3, channels: channels, settings: SwitcherSettings(scope: .group))
        seen = []
        for k in 0..<3 {
            let (id, effects) = group.request(.next, at: at(k * 100))
            seen.append(activations(effects)[0].1)
            _ = group.firstFrame(requestID: id, feed: FeedID(UInt(300 + k)), path: .warm, at: at(k * 100 + 20))
        }
        #expect(seen == [4, 5, 3], "Sport only: 5, 6, back to 4")

        var none = machine(channels: Self.lineup(3), settings: SwitcherSettings(scope: .favourites))
        let (_, effects) = none.request(.next, at: at(0))
        #expect(results(effects).first?.failure == .nothingToFlipTo)
        #expect(effects.contains(.message("No other favourite channel")))
    }

    @Test func recallGoesBackAndForth() {
        var m = machine(on: 0)
        let (a, _) = m.request(.tune(ChannelNumber(5)), at: at(0))
        let tuned = m.firstFrame(requestID: a, feed: 101, path: .warm, at: at(20))
        #expect(!tuned.contains { if case .resumePosition = $0 { true } else { false } }, "a tune does not resume a position")
        let (b, effects) = m.request(.recall, at: at(100))
        #expect(activations(effects).map(\.1) == [0])
        let recalled = m.firstFrame(requestID: b, feed: 102, path: .warm, at: at(120))
        #expect(recalled.last == .resumePosition(feed: 102), "a completed recall asks for the position it was left at, after its result")
        #expect(activations(m.request(.recall, at: at(200)).effects).map(\.1) == [4])
        var fresh = SwitcherMachine(channels: Self.lineup())
        #expect(results(fresh.request(.recall, at: at(0)).effects).first?.failure == .nothingToFlipTo)
    }

    @Test func cancellingAFlipRestoresThePictureTheCardCovered() {
        var m = machine()
        let (id, started) = m.request(.next, at: at(0))
        _ = m.cardShown(cards(m.timerFired(.card(requestID: id), at: at(80)))[0])
        let effects = m.cancel(requestID: id)
        #expect(results(effects).first?.failure == .cancelled)
        #expect(stops(effects) == [feed(started)])
        #expect(effects.contains(.restore(feed: 100)))
        #expect(m.current == 0 && m.pending == nil && !m.isShowingCard)
        #expect(m.cancel(requestID: id).isEmpty, "a second cancel changes nothing")
    }

    @Test func digitEntryCommitsAfterItsTimeoutAndAnUnknownNumberIsRefused() {
        var entry = ChannelNumberEntry(timeout: .milliseconds(1500))
        var m = machine(channels: Self.lineup(12))
        #expect(entry.type(digit: 1, now: at(0)) == .show("1"))
        #expect(entry.type(digit: 2, now: at(300)) == .show("12"))
        #expect(entry.expire(now: at(1500)) == .ignore, "not yet: 1.5 s after the last digit")
        guard case .commit(let number) = entry.expire(now: at(1800)) else {
            Issue.record("the entry should commit 1.5 s after the last digit")
            return
        }
        #expect(activations(m.request(.tune(number), at: at(1800)).effects).map(\.1) == [11])
        _ = entry.type(digit: 4, now: at(3000))
        _ = entry.type(digit: 2, now: at(3100))
        guard case .commit(let unknown) = entry.commit() else { Issue.record("Enter commits"); return }
        let (_, effects) = m.request(.tune(unknown), at: at(3200))
        #expect(effects.contains(.message("No channel 42")))
        #expect(m.pending?.channel == 11, "the refused number leaves the flip to 12 alone")
    }

    /// Random interleavings of requests, decoders, frames, timers and cancels: every request
    /// still ends with exactly one result.
    @Test(arguments: 1...20) func exactlyOnceUnderRandomInterleavings(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var m = SwitcherMachine(channels: Self.lineup(8))
        var delivered: [RequestID: Int] = [:]
        var requested: [RequestID] = []
        var open: [(id: RequestID, feed: FeedID)] = []
        var timersDue: [(SwitcherMachine.Timer, ContinuousClock.Instant)] = []
        var cardsWanted: [SwitcherMachine.Card] = []
        var started: [FeedID] = []
        var stopCount: [FeedID: Int] = [:]
        var failed: Set<FeedID> = []
        var now = 0
        func take(_ effects: [Effect]) {
            for f in stops(effects) { stopCount[f, default: 0] += 1 }
            for e in events(effects) { if case .flipStarted(let id, _, _) = e, !requested.contains(id) { requested.append(id) } }
            for (_, channel) in activations(effects) { #expect(m.locks[channel] == nil, "seed \(seed): a decoder for locked channel \(channel)") }
            for r in results(effects) { delivered[r.requestID, default: 0] += 1 }
            for (t, when) in timers(effects) { timersDue.append((t, when)) }
            cardsWanted += cards(effects)
            for case .activate(let id, _, let f) in effects {
                #expect(!started.contains(f), "seed \(seed): \(f) named twice")
                started.append(f)
                open.append((id, f))
            }
        }
        let requests: [FlipRequest] = [.next, .previous, .recall, .tune(ChannelNumber(3)), .tune(ChannelNumber(77)), .tuneID("c5")]
        for _ in 0..<200 {
            now += Int(rng.next() % 120)
            switch rng.next() % 8 {
            case 0, 1:
                let (_, effects) = m.request(requests[Int(rng.next() % UInt64(requests.count))], at: at(now))
                take(effects)
            case 2 where !open.isEmpty:
                // An activation fails (or gives way); the others start and say nothing.
                let (id, f) = open.removeFirst()
                if rng.next() % 5 == 0 {
                    failed.insert(f)
                    take(m.activationFailed(requestID: id, reason: "broken"))
                } else {
                    open.append((id, f))
                }
            case 3 where !open.isEmpty:
                let (id, f) = open.remove(at: Int(rng.next() % UInt64(open.count)))
                take(m.firstFrame(requestID: id, feed: f, path: .warm, at: at(now)))
            case 4 where !timersDue.isEmpty:
                let (t, when) = timersDue.removeFirst()
                now = max(now, Int((when - t0).components.seconds * 1000))
                take(m.timerFired(t, at: when))
            case 5 where !cardsWanted.isEmpty:
                let c = cardsWanted.removeFirst()
                if m.wantsCard(c) { take(m.cardShown(c)) }
            case 6 where !requested.isEmpty:
                take(m.cancel(requestID: requested[Int(rng.next() % UInt64(requested.count))]))
            case 7:
                take(m.setLock(channel: Int(rng.next() % 8), reason: rng.next() % 2 == 0 ? nil : "rated", at: at(now)))
            default: break
            }
            if m.shownFeed != nil, let c = m.current {
                #expect(m.locks[c] == nil, "seed \(seed): locked channel \(c) plays")
            }
            if let shown = m.shownFeed { #expect(stopCount[shown] == nil, "seed \(seed): \(shown) is on screen but was stopped") }
        }
        // Let every timer fire: whatever is still on its way times out.
        for (t, when) in timersDue { take(m.timerFired(t, at: when)) }
        for id in requested { #expect(delivered[id] == 1, "seed \(seed): request \(id) got \(delivered[id] ?? 0) results") }
        #expect(m.pending == nil)
        // Every feed a flip started is stopped exactly once, but the one on screen and those that never started.
        for f in started where f != m.shownFeed && !failed.contains(f) {
            #expect(stopCount[f] == 1, "seed \(seed): \(f) stopped \(stopCount[f] ?? 0) times")
        }
        #expect(stopCount.values.allSatisfy { $0 == 1 }, "seed \(seed): a feed stopped twice")
    }
}

/// The switcher taking a lineup read again: slots stay, next and previous walk the channels in
/// it now by number, the channel on screen plays on even when the lineup no longer has it.
@Suite struct SwitcherMachineLineupTests {
    let t0 = ContinuousClock.now

    func info(_ id: String, _ number: Int) -> SwitcherMachine.ChannelInfo {
        SwitcherMachine.ChannelInfo(Channel(id: id, number: ChannelNumber(number), name: "Channel \(number)", sources: ["test://"]))
    }

    func target(_ effects: [SwitcherMachine.Effect]) -> Int? {
        effects.compactMap { if case .activate(_, let c, _) = $0 { c } else { nil } }.first
    }

    /// A machine over slots a1 b2 c3 d4, showing `slot` on feed 100.
    func machine(showing slot: Int) -> SwitcherMachine {
        var m = SwitcherMachine(channels: [info("a", 1), info("b", 2), info("c", 3), info("d", 4)])
        let (id, _) = m.request(.tune(ChannelNumber(slot + 1)), at: t0)
        _ = m.firstFrame(requestID: id, feed: 100, path: .warm, at: t0)
        return m
    }

    @Test func nextAndPreviousWalkTheNewOrderAndReachAppendedChannels() {
        var m = machine(showing: 0)
        // c renumbered to 9, e appended as 5: by number a1 b2 d4 e5 c9.
        m.takeChannels([info("a", 1), info("b", 2), info("c", 9), info("d", 4), info("e", 5)], listed: [0, 1, 3, 4, 2])
        #expect(m.current == 0 && m.shownFeed == 100, "the channel on screen is untouched")
        var walk: [Int] = []
        for _ in 0..<5 {
            let (id, effects) = m.request(.next, at: t0)
            let slot = try! #require(target(effects))
            walk.append(slot)
            _ = m.firstFrame(requestID: id, feed: FeedID(200 + UInt(walk.count)), path: .warm, at: t0)
        }
        #expect(walk == [1, 3, 4, 2, 0], "by number: 2, 4, 5, 9, then round to 1")
        let (_, back) = m.request(.previous, at: t0)
        #expect(target(back) == 2)
        let (_, byNumber) = m.request(.tune(ChannelNumber(5)), at: t0)
        #expect(target(byNumber) == 4)
    }

    @Test func theChannelOnScreenPlaysOnWhenRetiredAndNextLeavesItByNumber() {
        var m = machine(showing: 1)
        m.takeChannels([info("a", 1), info("b", 2), info("c", 3), info("d", 4)], listed: [0, 2, 3])
        #expect(m.current == 1 && m.shownFeed == 100)
        let (_, up) = m.request(.next, at: t0)
        #expect(target(up) == 2, "next from the retired 2 is 3")
        var down = machine(showing: 1)
        down.takeChannels([info("a", 1), info("b", 2), info("c", 3), info("d", 4)], listed: [0, 2, 3])
        let (_, effects) = down.request(.previous, at: t0)
        #expect(target(effects) == 0, "previous from the retired 2 is 1")
        // Its number no longer tunes, and recall to it says why.
        let (_, gone) = down.request(.tune(ChannelNumber(2)), at: t0)
        #expect(target(gone) == nil && gone.contains(.message("No channel 2")))
    }

    @Test func recallToAChannelNoLongerInTheLineupIsRefusedWithTheReason() throws {
        var m = machine(showing: 1)
        let (id, _) = m.request(.tune(ChannelNumber(3)), at: t0)
        _ = m.firstFrame(requestID: id, feed: 101, path: .warm, at: t0)
        m.takeChannels([info("a", 1), info("b", 2), info("c", 3), info("d", 4)], listed: [0, 2, 3])
        let (_, effects) = m.request(.recall, at: t0)
        #expect(target(effects) == nil)
        #expect(effects.contains(.message("Channel 2 Channel 2 is no longer in the lineup")))
    }
}
