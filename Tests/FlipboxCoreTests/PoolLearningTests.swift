import FlipboxCore
import Testing

/// How a pool's limit is learned from refusals and from streams the server ends, on a manual clock.
@Suite struct PoolLearningTests {
    let t0 = ContinuousClock.now

    func at(_ seconds: Double) -> ContinuousClock.Instant { t0 + .milliseconds(Int(seconds * 1000)) }

    @Test func aRefusalWithFourOpenMeansFour() {
        var pool = PoolLearning()
        for k in 0..<4 { pool.opening(at: at(Double(k)), open: k) }
        pool.opening(at: at(4), open: 4)
        #expect(pool.refused(at: at(4.1), open: 4) == .learned(4))
        #expect(pool.learned == .init(streams: 4, evidence: .refusal))
        #expect(pool.refused(at: at(5), open: 4) == .confirmed(4))
        // Another device took a tuner: fewer are ours.
        #expect(pool.refused(at: at(9), open: 3) == .learned(3))
    }

    /// A stream opens only when the pool is not full counting the slots of streams the box let
    /// go less than the release time ago: a flip just after a warm plan let one go waits for it.
    @Test func aStreamOpensOnlyOnceTheSlotsLetGoAreFree() {
        var pool = PoolLearning()
        let release = PoolLearning.firstSlotRelease
        #expect(pool.nextSlot(open: 1, limit: 2, at: at(0)) == nil, "nothing let go: at once")
        pool.closed(at: at(1))
        #expect(pool.nextSlot(open: 1, limit: 2, at: at(1.05)) == at(1) + release, "one open, one freeing: full")
        #expect(pool.nextSlot(open: 0, limit: 2, at: at(1.05)) == nil, "a slot free besides the one freeing")
        #expect(pool.nextSlot(open: 1, limit: 2, at: at(1.2)) == nil, "freed")
        pool.closed(at: at(2))
        pool.closed(at: at(2.1))
        #expect(pool.nextSlot(open: 1, limit: 2, at: at(2.12)) == at(2.1) + release, "one open, two freeing: the newer")
        #expect(pool.nextSlot(open: 0, limit: 2, at: at(2.12)) == at(2) + release, "two freeing: the older frees one")
        #expect(pool.nextSlot(open: 2, limit: 2, at: at(2.12)) == nil, "full with open streams: not this one's to wait for")
    }

    /// A server that still held a slot the box had let go (it refused a stream, or ended
    /// another, with the pool below its limit just after a close) is given twice as long from
    /// then on, up to `releaseGrace`; with no close lately, or a full pool, it says nothing.
    @Test func aServerSlowToFreeASlotIsGivenLonger() {
        var pool = PoolLearning()
        var grew = pool.slotStillTaken(at: at(0), open: 1, limit: 2)
        #expect(!grew, "nothing let go lately: another cause")
        pool.closed(at: at(1))
        grew = pool.slotStillTaken(at: at(1.2), open: 2, limit: 2)
        #expect(!grew, "the pool was full: the limit speaks")
        grew = pool.slotStillTaken(at: at(1.2), open: 1, limit: 2)
        #expect(grew)
        #expect(pool.slotRelease == .milliseconds(300))
        pool.closed(at: at(3))
        #expect(pool.nextSlot(open: 1, limit: 2, at: at(3.2)) == at(3) + .milliseconds(300), "waits the longer time")
        for t in [3.4, 3.6, 3.8] { _ = pool.slotStillTaken(at: at(t), open: 0, limit: 1) }
        #expect(pool.slotRelease == PoolLearning.releaseGrace, "never longer than the grace: \(pool.slotRelease)")
        grew = pool.slotStillTaken(at: at(4), open: 0, limit: 1)
        #expect(!grew, "at the grace: no more")
        var fresh = PoolLearning()
        fresh.closed(at: at(1))
        grew = fresh.slotStillTaken(at: at(9), open: 0, limit: 1)
        #expect(!grew, "the close is long past")
    }

    @Test func aRefusalWithNothingOpenSaysNothingOfALimit() {
        var pool = PoolLearning()
        #expect(pool.refused(at: at(0), open: 0) == .notALimit)
        #expect(pool.learned == nil)
    }

    @Test func aStreamEndedJustAfterAnotherOpenedMeansTheServerEndsTheOldest() {
        var pool = PoolLearning()
        pool.opening(at: at(0), open: 0)
        pool.opening(at: at(1), open: 1)
        pool.opening(at: at(5), open: 2)
        #expect(pool.ended(at: at(5.4), open: 2) == .learned(2))
        #expect(pool.learned == .init(streams: 2, evidence: .endedOldest))
    }

    @Test func aStreamEndingLongAfterAnyOpeningIsAnOrdinaryEnd() {
        var pool = PoolLearning()
        pool.opening(at: at(0), open: 0)
        pool.opening(at: at(1), open: 1)
        #expect(pool.ended(at: at(30), open: 1) == .notALimit)
        // Nor one that ended before the opening.
        pool.opening(at: at(40), open: 1)
        #expect(pool.ended(at: at(39.9), open: 1) == .notALimit)
        #expect(pool.learned == nil)
    }

    @Test func aLimitLearnedFromRefusalsIsProbedOnceAnHourAndRaisedWhenTheProbeHolds() {
        var pool = PoolLearning()
        _ = pool.refused(at: at(0), open: 2)
        #expect(!pool.mayProbe(at: at(60)))
        #expect(pool.mayProbe(at: at(3600)))
        pool.probeStarted(at: at(3600))
        #expect(pool.mayProbe(at: at(3601)), "the probe runs")
        #expect(pool.tick(at: at(3630), open: 3) == nil, "not held long enough")
        #expect(pool.tick(at: at(3660), open: 3) == .learned(3))
        #expect(pool.learned?.streams == 3)
        #expect(!pool.mayProbe(at: at(3700)))
    }

    @Test func aRefusedProbeLeavesTheLimitAndWaitsAnotherHour() {
        var pool = PoolLearning(learned: .init(streams: 2, evidence: .refusal), at: at(0))
        #expect(pool.mayProbe(at: at(3600)))
        pool.probeStarted(at: at(3600))
        #expect(pool.refused(at: at(3600.2), open: 2) == .confirmed(2))
        #expect(pool.learned?.streams == 2)
        #expect(!pool.isProbing)
        #expect(!pool.mayProbe(at: at(7000)))
        #expect(pool.mayProbe(at: at(7200.5)))
    }

    @Test func aLimitLearnedFromEndedStreamsIsNeverProbed() {
        // A probe would end a stream, maybe the one on screen.
        let pool = PoolLearning(learned: .init(streams: 2, evidence: .endedOldest), at: at(0))
        #expect(!pool.mayProbe(at: at(100_000)))
    }

    /// A simulated server with a hidden limit that either refuses or ends the oldest, opened and
    /// closed at random: whatever the order, the learned limit is never above the true one, and
    /// once the pool was ever full it is exactly the true one.
    @Test(arguments: 0..<200 as Range<UInt64>)
    func randomTrafficLearnsTheTrueLimit(_ seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let limit = Int.random(in: 1...5, using: &rng)
        let endsOldest = Bool.random(using: &rng)
        var pool = PoolLearning()
        var open: [Int] = []  // stream ids, oldest first
        var next = 0, now = 0.0, wasFull = false
        for _ in 0..<60 {
            now += Double.random(in: 0.05...4, using: &rng)
            if open.isEmpty || Bool.random(using: &rng) {
                pool.opening(at: at(now), open: open.count)
                if open.count < limit {
                    open.append(next)
                } else if endsOldest {
                    wasFull = true
                    open.removeFirst()
                    open.append(next)
                    let endAt = now + Double.random(in: 0.01...0.8, using: &rng)
                    _ = pool.ended(at: at(endAt), open: open.count - 1)
                    now = endAt
                } else {
                    wasFull = true
                    _ = pool.refused(at: at(now + 0.05), open: open.count)
                }
                next += 1
            } else {
                open.remove(at: Int.random(in: 0..<open.count, using: &rng))
            }
            if let learned = pool.learned?.streams { #expect(learned <= limit, "seed \(seed): learned \(learned) of \(limit)") }
        }
        if wasFull { #expect(pool.learned?.streams == limit, "seed \(seed): limit \(limit) endsOldest \(endsOldest)") }
    }
}

extension PoolLearningTests {
    @Test func aRefusalJustAfterTheBoxClosedAStreamIsThatSlotNotFreedYet() {
        var pool = PoolLearning()
        pool.closed(at: at(10))
        #expect(pool.refused(at: at(10.5), open: 3) == .notALimit, "the server may not have freed the slot")
        #expect(pool.refused(at: at(11.6), open: 3) == .learned(3))
        // A refusal at the known limit is no news, grace or not.
        pool.closed(at: at(20))
        #expect(pool.refused(at: at(20.2), open: 3) == .confirmed(3))
    }
}

extension PoolLearningTests {
    @Test func aStreamOpenedJustAfterTheBoxClosedOneCountsThatSlotAsTaken() {
        // Two open, the box lets one go and opens another at once: the server still counts the
        // one let go and ends the oldest. The limit is 2, not 1.
        var pool = PoolLearning()
        pool.closed(at: at(20))
        pool.opening(at: at(20.01), open: 1)
        #expect(pool.ended(at: at(20.3), open: 1) == .learned(2))
        #expect(pool.recentlyClosed(at: at(20.5)) == 1 && pool.recentlyClosed(at: at(21.6)) == 0)
    }
}
