import FlipboxCore
import Testing

/// How many connections the box makes to a pool's server on its own, on a manual clock.
@Suite struct PoolAttemptsTests {
    let t0 = ContinuousClock.now

    func at(_ seconds: Double) -> ContinuousClock.Instant { t0 + .milliseconds(Int(seconds * 1000)) }

    /// Counts the attempts `wanting` (one every `every` seconds for `seconds`) may make.
    func attemptsAllowed(every: Double, for seconds: Double, perWindow: Int = PoolAttempts.perWindow,
                         quiet: (from: Double, until: Double)? = nil) -> [Double] {
        var pool = PoolAttempts()
        var went: [Double] = []
        var now = 0.0
        while now < seconds {
            if let quiet, quiet.from <= now, now < quiet.from + every { pool.quiet(until: at(quiet.until)) }
            if pool.nextBackground(at: at(now), perWindow: perWindow) == nil {
                pool.attempted(at: at(now))
                went.append(now)
            }
            now += every
        }
        return went
    }

    @Test func atMostSixAMinuteInAPoolWithALimit() {
        // Four warm channels reconnecting to a dead server every second for five minutes.
        let went = attemptsAllowed(every: 0.25, for: 300)
        #expect(went.count <= 6 * 5, "\(went.count) attempts in 5 minutes")
        #expect(went.count >= 6 * 4, "the allowance is used: \(went.count)")
        for (i, t) in went.enumerated() where i >= 6 {
            #expect(t - went[i - 6] >= 60, "7 attempts within a minute: \(went[(i - 6)...i])")
        }
    }

    @Test func aWiderAllowanceIsCountedTheSameWay() {
        let went = attemptsAllowed(every: 0.1, for: 60, perWindow: 60)
        #expect(went.count == 60)
        let held = PoolAttempts()
        #expect(held.nextBackground(at: at(0)) == nil, "nothing held before the first attempt")
    }

    @Test func theNextAttemptIsDueWhenTheOldestLeavesTheWindow() {
        var pool = PoolAttempts()
        for k in 0..<6 { pool.attempted(at: at(Double(k))) }
        #expect(pool.nextBackground(at: at(10)) == at(60))
        #expect(pool.nextBackground(at: at(60)) == nil)
        #expect(pool.nextBackground(at: at(10), perWindow: 7) == nil, "a wider allowance has room")
    }

    @Test func retryAfterHoldsEveryAttemptAndOnlyGrows() {
        var pool = PoolAttempts()
        pool.quiet(until: at(30))
        #expect(pool.nextBackground(at: at(1)) == at(30))
        #expect(pool.quietAfter(at(1)) == at(30))
        pool.quiet(until: at(10))
        #expect(pool.quietAfter(at(1)) == at(30), "a shorter Retry-After does not shorten the quiet")
        #expect(pool.quietAfter(at(30)) == nil)
        let went = attemptsAllowed(every: 1, for: 40, quiet: (from: 5, until: 25))
        #expect(!went.contains { $0 >= 5 && $0 < 25 }, "nothing asked while the server asked for quiet: \(went)")
    }
}
