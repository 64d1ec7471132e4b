import FlipboxCore
import Lineup
import Testing

/// The supervision rules with a manual clock: times are made up, nothing sleeps, no sender.
@Suite struct SourceSupervisorTests {
    typealias Action = SourceSupervisor.Action
    let t0 = ContinuousClock.now
    func at(_ ms: Int) -> ContinuousClock.Instant { t0 + .milliseconds(ms) }

    func machine(_ sources: [String] = ["udp://a"]) -> SourceSupervisor {
        SourceSupervisor(settings: .init(sources: sources, stallTimeout: .seconds(2), connectTimeout: .seconds(10)))
    }

    func connects(_ actions: [Action]) -> [(Int, SourceSupervisor.Connection)] {
        actions.compactMap { if case .connect(let s, let c) = $0 { (s, c) } else { nil } }
    }
    func reports(_ actions: [Action]) -> [ChannelState] {
        actions.compactMap { if case .report(let s) = $0 { s } else { nil } }
    }
    /// The last timer request: nil when there is none, `.some(nil)` when the timer is cancelled.
    func wake(_ actions: [Action]) -> ContinuousClock.Instant?? {
        var last: ContinuousClock.Instant?? = nil
        for case .wake(let w) in actions { last = .some(w) }
        return last
    }

    @Test func startConnectsAndReportsWarmOnFirstData() {
        var m = machine()
        let a = m.start(at: at(0))
        #expect(connects(a).count == 1)
        #expect(reports(a) == [.connecting])
        #expect(wake(a) == .some(at(10_000)), "the connect deadline is the only timer")
        #expect(m.start(at: at(5)).isEmpty, "a second start changes nothing")
        let d = m.delivered(m.connection, at: at(300))
        #expect(reports(d) == [.warm])
        #expect(wake(d) == .some(at(2_300)), "from now on the stall deadline")
        #expect(m.delivered(m.connection, at: at(350)).isEmpty, "later deliveries are not news")
        #expect(reports(m.setHot(true)) == [.hot])
        #expect(reports(m.setHot(false)) == [.warm])
    }

    /// New addresses (the lineup read again) never cut the stream open: they are taken at the
    /// next connection, main first; while idle, at once.
    @Test func newAddressesAreTakenAtTheNextConnection() {
        var m = machine(["http://old/main", "http://old/backup"])
        _ = m.start(at: at(0))
        _ = m.delivered(m.connection, at: at(100))
        let open = m.connection
        m.readdress(sources: ["http://new/main"])
        #expect(m.settings.sources == ["http://old/main", "http://old/backup"], "the open stream keeps its address")
        #expect(m.connection == open && m.isDelivering)
        #expect(m.readdressed == ["http://new/main"])
        // The stream fails: the retry connects to the new main address, not the old backup.
        _ = m.failed(m.connection, reason: "the stream ended", at: at(5_000))
        let retry = m.timerFired(at: at(6_000), lastDelivery: nil)
        #expect(connects(retry).map(\.0) == [0])
        #expect(m.settings.sources == ["http://new/main"] && m.readdressed == nil)

        var idle = machine(["http://old/main"])
        idle.readdress(sources: ["http://new/a", "http://new/b"])
        #expect(idle.settings.sources == ["http://new/a", "http://new/b"] && idle.readdressed == nil, "taken at once while idle")
        #expect(connects(idle.start(at: at(0))).map(\.0) == [0])
    }

    @Test func silenceStallsAndReconnectsWithBackoffThenRecovers() {
        var m = machine(["http://a/ch"])
        _ = m.start(at: at(0))
        _ = m.delivered(m.connection, at: at(100))
        // Data kept flowing until 1.9 s: the timer at 2.1 s only moves the deadline.
        let early = m.timerFired(at: at(2_100), lastDelivery: at(1_900))
        #expect(reports(early).isEmpty)
        #expect(wake(early) == .some(at(3_900)))
        let stall = m.timerFired(at: at(3_900), lastDelivery: at(1_900))
        #expect(reports(stall) == [.stalled(reason: "no data from the source for 2 s")])
        #expect(stall.contains(.teardown))
        #expect(stall.contains(.warn("no data for 2 s, reconnecting")))
        #expect(wake(stall) == .some(at(4_400)), "first retry after 0.5 s")
        let retry = m.timerFired(at: at(4_400), lastDelivery: nil)
        #expect(connects(retry).count == 1)
        #expect(reports(retry).isEmpty, "a reconnect keeps saying why the channel is down")
        // Nothing within the connect timeout: failed, next retry after 1 s.
        let timeout = m.timerFired(at: at(14_400), lastDelivery: nil)
        #expect(reports(timeout) == [.failed(error: "nothing received within 10 s (http://a/ch)")])
        #expect(wake(timeout) == .some(at(15_400)))
        let again = m.timerFired(at: at(15_400), lastDelivery: nil)
        let recovered = m.delivered(connects(again)[0].1, at: at(15_500))
        #expect(reports(recovered) == [.warm])
    }

    /// A stream that changed under its demuxer (a programme table rewritten without a new
    /// version) is read again at once: no backoff, not a failure, and the channel on screen stays
    /// hot while the new stream's first keyframe comes; a warm one says it is connecting.
    @Test func aChangedStreamIsReadAgainAtOnce() {
        var m = machine(["udp://a"])
        _ = m.start(at: at(0))
        _ = m.setHot(true)
        _ = m.delivered(m.connection, at: at(100))
        let before = m.connection
        let restart = m.restart(before, reason: "the stream changed: its streams changed", at: at(5_000))
        #expect(restart.first == .warn("the stream changed: its streams changed; reading it again"))
        #expect(restart.contains(.teardown))
        #expect(connects(restart).count == 1 && m.connection != before)
        #expect(reports(restart).isEmpty, "stays hot: \(restart)")
        #expect(m.counts.failures == 0 && m.counts.stalls == 0 && m.counts.reconnects == 1)
        #expect(m.restart(before, reason: "old", at: at(5_001)).isEmpty, "a stale connection's change is ignored")
        #expect(m.restart(m.connection, reason: "again", at: at(5_002)).isEmpty, "nothing to read again before data flows")
        #expect(reports(m.delivered(m.connection, at: at(5_300))).isEmpty, "hot again without a word")

        var warm = machine(["udp://a"])
        _ = warm.start(at: at(0))
        _ = warm.delivered(warm.connection, at: at(100))
        let reread = warm.restart(warm.connection, reason: "changed", at: at(1_000))
        #expect(reports(reread) == [.connecting], "a warm channel has no keyframe cached until the new stream sends one")
        #expect(reports(warm.delivered(warm.connection, at: at(1_400))) == [.warm])
    }

    /// The waits between attempts after `count` failures in a row.
    func retryDelays(_ source: String, hot: Bool = false, count: Int = 8) -> [Int] {
        var m = machine([source])
        _ = m.start(at: at(0))
        _ = m.setHot(hot)
        return retryDelays(in: &m, count: count)
    }

    /// The waits between attempts of `m`, started at 0 ms, after `count` failures in a row.
    func retryDelays(in m: inout SourceSupervisor, count: Int) -> [Int] {
        var now = 0
        var delays: [Int] = []
        for _ in 0..<count {
            let f = m.failed(m.connection, reason: "refused", at: at(now))
            guard case .some(.some(let w)) = wake(f) else { Issue.record("no retry timer"); return delays }
            let delay = Int((w - at(now)).components.seconds * 1000 + (w - at(now)).components.attoseconds / 1_000_000_000_000_000)
            delays.append(delay)
            now += delay
            _ = m.timerFired(at: at(now), lastDelivery: nil)
        }
        return delays
    }

    /// The delays that start within the first `ms` of an outage made of `delays`.
    func within(_ ms: Int, of delays: [Int]) -> [Int] {
        var sum = 0
        return delays.filter { d in defer { sum += d }; return sum < ms }
    }

    /// A server is asked every second during the first minute of an outage (a restarted sender
    /// or a dropped connection is back within about a second), then up to every 10 s while the
    /// channel is only warm.
    @Test func aServerIsAskedEverySecondForAMinuteThenUpToEveryTenSecondsWhileWarm() {
        let delays = retryDelays("http://a/ch.m3u8", count: 80)
        #expect(Array(delays.prefix(4)) == [500, 1000, 1000, 1000])
        let firstMinute = within(60_000, of: delays)
        #expect(firstMinute.count > 50 && firstMinute.allSatisfy { $0 <= 1000 }, "\(firstMinute)")
        #expect(delays[firstMinute.count...].allSatisfy { $0 == 10_000 }, "\(delays[firstMinute.count...])")
    }

    @Test func aServerIsAskedAtLeastEveryTwoSecondsWhileOnScreen() {
        let delays = retryDelays("http://a/ch", hot: true, count: 80)
        #expect(within(60_000, of: delays).allSatisfy { $0 <= 1000 })
        #expect(delays.suffix(10).allSatisfy { $0 == 2000 })
    }

    /// Data ends the outage: the next one starts again at half a second, fast for a minute.
    @Test func dataEndsTheOutage() {
        var m = machine(["http://a/ch"])
        _ = m.start(at: at(0))
        let now = retryDelays(in: &m, count: 70).reduce(0, +)  // more than a minute: the slow phase
        _ = m.delivered(m.connection, at: at(now + 100))
        let again = m.failed(m.connection, reason: "refused", at: at(now + 5_000))
        #expect(wake(again) == .some(at(now + 5_500)))
        _ = m.timerFired(at: at(now + 5_500), lastDelivery: nil)
        let second = m.failed(m.connection, reason: "refused", at: at(now + 5_600))
        #expect(wake(second) == .some(at(now + 6_600)))
    }

    @Test func aSourceTheBoxListensForIsTriedEveryHalfSecond() {
        #expect(retryDelays("udp://239.1.1.1:1234") == Array(repeating: 500, count: 8))
        #expect(retryDelays("rtp://@239.1.1.1:5004") == Array(repeating: 500, count: 8))
    }

    @Test func countsStallsFailuresReconnectsAndFailovers() {
        var m = machine(["udp://main", "udp://backup"])
        _ = m.start(at: at(0))
        _ = m.delivered(m.connection, at: at(100))
        _ = m.timerFired(at: at(2_100), lastDelivery: at(100))
        #expect(m.counts.stalls == 1)
        #expect(m.counts.failovers == 1, "the stall moved on to the backup")
        _ = m.timerFired(at: at(2_200), lastDelivery: nil)
        #expect(m.counts.reconnects == 1)
        _ = m.failed(m.connection, reason: "refused", at: at(2_300))
        #expect(m.counts.failures == 1)
        #expect(m.counts.failovers == 2, "back to the main source")
        #expect(m.counts.stalls == 1)
    }

    @Test func errorsMoveOnToTheBackupAtOnce() {
        var m = machine(["udp://main", "udp://backup"])
        let start = m.start(at: at(0))
        #expect(connects(start).map(\.0) == [0])
        let f = m.failed(m.connection, reason: "refused", at: at(50))
        #expect(reports(f) == [.failed(error: "refused (udp://main)")])
        #expect(wake(f) == .some(at(150)), "a fresh backup is tried after 0.1 s")
        let next = m.timerFired(at: at(150), lastDelivery: nil)
        #expect(connects(next).map(\.0) == [1])
    }

    /// A primary that is silent (a UDP source never errors) fails at the connect deadline,
    /// named in the state; the backup takes over at once and the channel is warm on its data.
    /// When the backup stalls later, the primary is tried again after the backoff.
    @Test func aSilentPrimaryTimesOutAndTheBackupTakesOver() {
        var m = machine(["udp://dead", "udp://live"])
        #expect(connects(m.start(at: at(0))).map(\.0) == [0])
        #expect(reports(m.timerFired(at: at(4_000), lastDelivery: nil)).isEmpty, "an early wake-up only re-arms")
        let timeout = m.timerFired(at: at(10_000), lastDelivery: nil)
        #expect(reports(timeout) == [.failed(error: "nothing received within 10 s (udp://dead)")])
        #expect(timeout.contains(.warn("udp://dead: nothing received within 10 s")))
        #expect(timeout.contains(.teardown))
        #expect(wake(timeout) == .some(at(10_100)), "a fresh backup is tried after 0.1 s")
        let backup = m.timerFired(at: at(10_100), lastDelivery: nil)
        #expect(connects(backup).map(\.0) == [1])
        #expect(reports(backup).isEmpty, "still failed, with the primary's reason, until data flows")
        #expect(m.state.reason?.contains("udp://dead") == true)
        #expect(reports(m.delivered(connects(backup)[0].1, at: at(10_300))) == [.warm])
        let stall = m.timerFired(at: at(12_300), lastDelivery: at(10_300))
        #expect(reports(stall) == [.stalled(reason: "no data from the source for 2 s")])
        #expect(wake(stall) == .some(at(12_800)), "back to the primary after the backoff, not at once")
        #expect(connects(m.timerFired(at: at(12_800), lastDelivery: nil)).map(\.0) == [0])
    }

    @Test func staleInputsAreIgnored() {
        var m = machine()
        _ = m.start(at: at(0))
        let old = m.connection
        _ = m.failed(old, reason: "refused", at: at(10))
        #expect(m.failed(old, reason: "refused again", at: at(20)).isEmpty, "one failure per connection")
        _ = m.timerFired(at: at(510), lastDelivery: nil)
        #expect(m.delivered(old, at: at(600)).isEmpty, "data of a torn-down connection")
        #expect(m.state == .failed(error: "refused (udp://a)"))
    }

    @Test func stopTearsDownAndSaysWhy() {
        var m = machine()
        _ = m.start(at: at(0))
        let stop = m.stop(reason: "over the warm budget")
        #expect(stop.contains(.teardown))
        #expect(stop.contains(.wake(at: nil)))
        #expect(reports(stop) == [.parked(reason: "over the warm budget")])
        #expect(m.timerFired(at: at(20_000), lastDelivery: nil).isEmpty)
        #expect(!m.isWanted)
    }

    /// Random interleavings of every input: the machine never reports warm without data on the
    /// current connection, always has exactly one deadline while it runs, never connects while
    /// stopped, and reconnects within the longest backoff.
    @Test(arguments: 1...30) func invariantsUnderRandomInterleavings(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var m = machine(seed % 2 == 0 ? ["udp://a"] : ["udp://a", "udp://b", "udp://c"])
        var now = 0
        var timer: ContinuousClock.Instant?
        var lastDelivery: ContinuousClock.Instant?
        var running = false
        for step in 0..<400 {
            var actions: [Action] = []
            let connectionBefore = m.connection
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: actions = m.start(at: at(now)); running = true
            case 1 where Int.random(in: 0..<4, using: &rng) == 0: actions = m.stop(); running = false
            case 2: actions = m.failed(m.connection, reason: "error", at: at(now))
            case 3, 4:
                if running { lastDelivery = at(now); actions = m.delivered(m.connection, at: at(now)) }
            case 5: actions = m.setHot(Bool.random(using: &rng))
            case 6 where Int.random(in: 0..<3, using: &rng) == 0: actions = m.restart(m.connection, reason: "changed", at: at(now))
            default:
                if let t = timer { now = max(now, Int((t - t0).components.seconds * 1000 + (t - t0).components.attoseconds / 1_000_000_000_000_000)) }
                timer = nil
                actions = m.timerFired(at: at(now), lastDelivery: lastDelivery)
            }
            now += Int.random(in: 0..<400, using: &rng)
            if let w = wake(actions) { timer = w }
            if m.connection != connectionBefore { lastDelivery = nil }
            if reports(actions).contains(.warm) || reports(actions).contains(.hot) {
                #expect(lastDelivery != nil, "seed \(seed) step \(step): warm without data")
            }
            #expect(!(!running && !connects(actions).isEmpty), "seed \(seed) step \(step): connects while stopped")
            #expect(m.isWanted == running, "seed \(seed) step \(step)")
            if running { #expect(timer != nil, "seed \(seed) step \(step): running without a deadline") }
            if case .some(.none) = wake(actions) { #expect(!running) }
        }
    }

    /// A warm channel's reconnect its pool held back waits; a flip to it reconnects when it was
    /// due, and a server's Retry-After holds the refused channel on screen too.
    @Test func aPostponedReconnectGoesWhenTheChannelIsFlippedTo() {
        var m = machine(["http://a/ch"])
        _ = m.start(at: at(0))
        _ = m.failed(m.connection, reason: "500", at: at(100))
        #expect(m.retryDue(at: at(5_000)))
        #expect(wake(m.postpone(until: at(60_000))) == .some(at(60_000)))
        #expect(!m.retryDue(at: at(5_000)), "held back by the pool")
        #expect(m.postpone(until: at(30_000)).isEmpty, "a postponement never brings a reconnect forward")
        let flipped = m.setHot(true)
        let due = try? #require(wake(flipped) ?? nil)
        #expect(due.map { $0 <= at(1_100) } == true, "the flip reconnects when the retry was due: \(String(describing: due))")
        #expect(connects(m.timerFired(at: at(5_000), lastDelivery: nil)).count == 1)

        var refused = machine(["http://a/ch"])
        _ = refused.start(at: at(0))
        _ = refused.setHot(true)
        let r = refused.refused(refused.connection, reason: "busy", retryAfter: .seconds(20), at: at(100))
        #expect(wake(r) == .some(at(20_100)), "on screen, the Retry-After is honoured")
        #expect(!refused.retryDue(at: at(10_000)))
    }
}
