import FlipboxCore
import Testing

/// Which channels keep a stream in pools that ration them.
@Suite struct PoolAllocationTests {
    let tuner = StreamPoolID("HDHomeRun")
    let iptv = StreamPoolID("My IPTV")

    func warm(_ i: Int, _ pool: StreamPoolID?, running: Bool = false) -> PoolAllocation.Candidate {
        .init(index: i, pool: pool, claim: .warm, running: running)
    }

    @Test func aFourStreamPoolKeepsTheScreenTwoWarmAndOneFree() {
        let ranked = [PoolAllocation.Candidate(index: 5, pool: tuner, claim: .holds("the screen"), running: true)]
            + [4, 6, 3, 7, 2, 8].map { warm($0, tuner) }
        let result = PoolAllocation.allocate(ranked: ranked, limits: [tuner: 4])
        #expect(result.keep == [5, 4, 6])
        #expect(result.used[tuner] == 3)
        #expect(result.held[3] == "not kept warm: 3 of 4 streams of HDHomeRun in use, 1 kept free for a flip")
        #expect(result.held.keys.sorted() == [2, 3, 7, 8])
    }

    @Test func unlimitedPoolsAndUnpooledChannelsKeepEverything() {
        let ranked = [warm(0, nil), warm(1, iptv), warm(2, tuner), warm(3, iptv)]
        let result = PoolAllocation.allocate(ranked: ranked, limits: [tuner: 1])
        #expect(result.keep == [0, 1, 2, 3])
        #expect(result.held.isEmpty)
    }

    @Test func smallPoolsKeepNoReserveAndHoldersAlwaysKeepTheirStream() {
        #expect(PoolAllocation.reserve(limit: 1) == 0 && PoolAllocation.reserve(limit: 2) == 0 && PoolAllocation.reserve(limit: 3) == 1)
        let ranked: [PoolAllocation.Candidate] = [
            .init(index: 1, pool: iptv, claim: .holds("the screen"), running: true),
            .init(index: 2, pool: iptv, claim: .holds("a served client"), running: true),
            .init(index: 3, pool: iptv, claim: .holds("picture-in-picture"), running: true),
            warm(4, iptv, running: true),
        ]
        let result = PoolAllocation.allocate(ranked: ranked, limits: [iptv: 2])
        #expect(result.keep == [1, 2, 3], "holders keep what they hold even over the limit")
        #expect(result.held[4] == "not kept warm: 3 of 2 streams of My IPTV in use")
    }

    @Test func theOutgoingScreenChannelIsTheFirstToGoInAOneStreamPool() {
        let ranked: [PoolAllocation.Candidate] = [
            .init(index: 7, pool: iptv, claim: .holds("the screen"), running: false),
            .init(index: 6, pool: iptv, claim: .yields, running: true),
        ]
        let one = PoolAllocation.allocate(ranked: ranked, limits: [iptv: 1])
        #expect(one.keep == [7])
        #expect(one.held[6] != nil)
        // With room it stays: the flip is not over until the new channel shows.
        let two = PoolAllocation.allocate(ranked: ranked + [warm(8, iptv)], limits: [iptv: 2])
        #expect(two.keep == [7, 6])
    }

    @Test func aWarmChannelJustBelowTheCutKeepsItsStreamOverANewcomer() {
        // On 5 after surfing: 4 and 6 are warm. The ranking now says 6, 7 (7 a newcomer), 4.
        let ranked = [PoolAllocation.Candidate(index: 5, pool: tuner, claim: .holds("the screen"), running: true),
                      warm(6, tuner, running: true), warm(7, tuner), warm(4, tuner, running: true)]
        let sticky = PoolAllocation.allocate(ranked: ranked, limits: [tuner: 4])
        #expect(sticky.keep == [5, 6, 4], "4 is one place below the cut and warm: it stays, 7 waits")
        let churning = PoolAllocation.allocate(ranked: ranked, limits: [tuner: 4], hysteresis: 0)
        #expect(churning.keep == [5, 6, 7])
        // Two places below the cut is too far.
        let far = PoolAllocation.allocate(ranked: [ranked[0], ranked[1], ranked[2], warm(8, tuner), ranked[3]], limits: [tuner: 4])
        #expect(far.keep == [5, 6, 7])
    }

    /// Random pools, limits and claims: no pool goes over its limit unless its holders alone do,
    /// holders always keep their stream, every channel is kept or has a reason, and a kept warm
    /// channel is never less valuable than a held one by more than the hysteresis allows.
    @Test(arguments: 0..<300 as Range<UInt64>)
    func randomPoolsStayWithinTheirLimits(_ seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let pools = [tuner, iptv, nil]
        var ranked: [PoolAllocation.Candidate] = []
        for i in Array(0..<Int.random(in: 1...20, using: &rng)).shuffled(using: &rng) {
            let claim: PoolAllocation.Claim
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: claim = .holds("client \(i)")
            case 1: claim = .yields
            default: claim = .warm
            }
            ranked.append(.init(index: i, pool: pools.randomElement(using: &rng)!, claim: claim, running: Bool.random(using: &rng)))
        }
        var limits: [StreamPoolID: Int] = [:]
        if Bool.random(using: &rng) { limits[tuner] = Int.random(in: 1...5, using: &rng) }
        if Bool.random(using: &rng) { limits[iptv] = Int.random(in: 1...3, using: &rng) }
        let result = PoolAllocation.allocate(ranked: ranked, limits: limits)
        let context = "seed \(seed)"
        for c in ranked {
            #expect(result.keep.contains(c.index) != (result.held[c.index] != nil), "\(context): \(c.index) kept or held, not both")
            if case .holds = c.claim { #expect(result.keep.contains(c.index), "\(context)") }
            if c.pool == nil || limits[c.pool!] == nil { #expect(result.keep.contains(c.index), "\(context)") }
        }
        for (pool, limit) in limits {
            let members = ranked.filter { $0.pool == pool }
            let holders = members.filter { if case .holds = $0.claim { true } else { false } }.count
            let kept = members.filter { result.keep.contains($0.index) }.count
            #expect(kept <= max(limit, holders), "\(context): \(pool) keeps \(kept) of \(limit)")
            #expect(kept <= max(holders, limit - PoolAllocation.reserve(limit: limit)) , "\(context): the reserve stays free")
            // Nothing more valuable is held while something kept is 2 or more places below it.
            let rest = members.filter { if case .holds = $0.claim { false } else { true } }
            let others = rest.filter { $0.claim == .yields } + rest.filter { $0.claim != .yields }
            for (a, x) in others.enumerated() where result.held[x.index] != nil {
                for y in others[(a + 1)...] where result.keep.contains(y.index) && y.claim != .yields {
                    let gap = others.firstIndex(of: y)! - a
                    #expect(gap <= 1 && y.running, "\(context): \(y.index) kept over \(x.index)")
                }
            }
        }
    }
}
