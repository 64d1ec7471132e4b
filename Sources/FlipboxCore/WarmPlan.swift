import Lineup

/// Which channels run, worked out from the warm policy, the budget and what each channel's GOP
/// needs. Pure: no GStreamer, no clock; `Headend` applies it.
///
/// The policy says which channels should be warm; the budget trims that set in priority order
/// (the channel on screen, the last channel, the neighbours by distance with the next one before
/// the previous one, favourites, then the rest by distance), so over budget the least likely
/// channels go cold first. Channels being decoded always run. Then each pool that rations its
/// streams keeps what its limit allows (`PoolAllocation`): what holds a stream for someone, a
/// free stream for an unpredicted flip, then the most valuable warm channels.
public struct WarmPlan: Sendable, Hashable {
    /// Channels to keep running (warm, or hot when shown), by lineup index.
    public var running: Set<Int>
    /// Channels the policy wanted warm that the budget holds cold, with the reason.
    public var heldCold: [Int: String]

    public init(running: Set<Int>, heldCold: [Int: String] = [:]) {
        self.running = running
        self.heldCold = heldCold
    }

    /// What the plan is made from.
    public struct Inputs: Sendable, Hashable {
        public var count: Int
        public var current: Int?
        public var last: Int?
        public var favourites: [Int]
        /// The channels usually watched at this hour (`ViewingHistory`), most watched first.
        public var usual: [Int]
        /// Channels being decoded (on screen, or a flip on its way): they always run.
        public var shown: Set<Int>
        /// The bytes one GOP of each channel takes, where measured (see `GOPCache.gopBytes`).
        public var gopBytes: [Int?]
        /// Each channel's pool (nil: its streams are not rationed), by lineup index.
        public var pools: [StreamPoolID?]
        /// The limit of each pool that has one.
        public var limits: [StreamPoolID: Int]
        /// What claims the streams of shown channels (`shown` without a claim holds for "the screen").
        public var claims: [Int: PoolAllocation.Claim]
        /// Channels with a stream open now (a pool keeps them over newcomers just above them).
        public var running: Set<Int>
        /// The bits a second each channel's ingest takes, where measured (`GOPCache.bitrate`).
        public var bitrates: [Int?]
        /// The most bits a second the warm channels of a pool may take, for pools that say.
        public var poolBandwidths: [StreamPoolID: Int]

        public init(count: Int, current: Int?, last: Int?, favourites: [Int] = [], usual: [Int] = [], shown: Set<Int> = [], gopBytes: [Int?]? = nil,
                    pools: [StreamPoolID?]? = nil, limits: [StreamPoolID: Int] = [:], claims: [Int: PoolAllocation.Claim] = [:],
                    running: Set<Int> = [], bitrates: [Int?]? = nil, poolBandwidths: [StreamPoolID: Int] = [:]) {
            self.count = count
            self.current = current
            self.last = last
            self.favourites = favourites
            self.usual = usual
            self.shown = shown
            self.gopBytes = gopBytes ?? Array(repeating: nil, count: count)
            self.pools = pools ?? Array(repeating: nil, count: count)
            self.limits = limits
            self.claims = claims
            self.running = running
            self.bitrates = bitrates ?? Array(repeating: nil, count: count)
            self.poolBandwidths = poolBandwidths
        }

        /// What a channel not measured yet is taken to need: what the lineup's measured channels
        /// take (their median: channels of one lineup are alike), else `assumedBitrate`.
        var typicalBitrate: Int {
            let known = bitrates.compactMap { $0 }.sorted()
            return known.isEmpty ? WarmBudget.assumedBitrate : known[known.count / 2]
        }

        func pool(_ i: Int) -> StreamPoolID? { i < pools.count ? pools[i] : nil }
    }

    public static func make(policy: WarmPolicy, budget: WarmBudget, inputs: Inputs) -> WarmPlan {
        let wanted = policy.warmSet(count: inputs.count, current: inputs.current, last: inputs.last, favourites: inputs.favourites)
            .union(inputs.shown)
        var plan = WarmPlan(running: [])
        var bytes = 0
        var bits = 0
        var poolBits: [StreamPoolID: Int] = [:]
        let typical = inputs.typicalBitrate
        func rateOf(_ i: Int) -> Int { (i < inputs.bitrates.count ? inputs.bitrates[i] : nil) ?? typical }
        let limit = budget.cacheLimit
        func must(_ i: Int) -> Bool { inputs.shown.contains(i) || i == inputs.current }
        let ranked = priority(count: inputs.count, current: inputs.current, last: inputs.last, favourites: inputs.favourites,
                              usual: inputs.usual, radius: policy.neighbourRadius).filter { wanted.contains($0) }
        // Channels that must run take their share of the budget first.
        for i in ranked.filter(must) + ranked.filter({ !must($0) }) {
            let measured = i < inputs.gopBytes.count ? inputs.gopBytes[i] : nil
            let need = min(measured ?? WarmBudget.assumedGOPBytes, limit)
            let required = must(i)
            if !required {
                if let measured, measured > limit {
                    plan.heldCold[i] = "keyframe interval too long: one GOP needs \(WarmBudget.format(bytes: measured)), "
                        + "more than the \(WarmBudget.format(bytes: limit)) a channel may cache"
                    continue
                }
                if let max = budget.openFileChannels, plan.running.count >= max {
                    plan.heldCold[i] = "the limit on open files leaves room for \(max) running channel\(max == 1 ? "" : "s")"
                    continue
                }
                if let max = budget.maxChannels, plan.running.count >= max {
                    plan.heldCold[i] = "over the warm budget of \(max) channel\(max == 1 ? "" : "s")"
                    continue
                }
                if let memory = budget.memoryBytes, bytes + need > memory {
                    plan.heldCold[i] = "over the warm memory budget of \(WarmBudget.format(bytes: memory)) "
                        + "(its GOP needs \(WarmBudget.format(bytes: need)), \(WarmBudget.format(bytes: bytes)) in use)"
                    continue
                }
                let rate = rateOf(i)
                if let cap = budget.bandwidth, bits + rate > cap {
                    plan.heldCold[i] = "over the warm bandwidth of \(BitRate.format(bitsPerSecond: cap)) "
                        + "(its stream takes \(BitRate.format(bitsPerSecond: rate)), \(BitRate.format(bitsPerSecond: bits)) in use)"
                    continue
                }
                if let pool = inputs.pool(i), let cap = inputs.poolBandwidths[pool], poolBits[pool, default: 0] + rate > cap {
                    plan.heldCold[i] = "over the bandwidth of \(pool) of \(BitRate.format(bitsPerSecond: cap)) "
                        + "(its stream takes \(BitRate.format(bitsPerSecond: rate)), \(BitRate.format(bitsPerSecond: poolBits[pool, default: 0])) in use)"
                    continue
                }
            }
            plan.running.insert(i)
            bytes += need
            bits += rateOf(i)
            if let pool = inputs.pool(i) { poolBits[pool, default: 0] += rateOf(i) }
        }
        guard !inputs.limits.isEmpty else { return plan }
        let candidates = ranked.filter { plan.running.contains($0) }.map { i in
            PoolAllocation.Candidate(index: i, pool: inputs.pool(i),
                                     claim: inputs.claims[i] ?? (inputs.shown.contains(i) ? .holds("the screen") : .warm),
                                     running: inputs.running.contains(i))
        }
        let pooled = PoolAllocation.allocate(ranked: candidates, limits: inputs.limits)
        for (i, reason) in pooled.held {
            plan.running.remove(i)
            plan.heldCold[i] = reason
        }
        return plan
    }

    /// Every channel index once, most likely next first: `current`; after a flip up or down the
    /// next channel in that direction (the viewer goes on the way they flip); `last`; the
    /// neighbours within `radius` by distance (next before previous, or previous first when the
    /// last flip went down), favourites in lineup order, the channels usually watched at this
    /// hour (`usual`, most watched first), then the rest by distance.
    public static func priority(count: Int, current: Int?, last: Int?, favourites: [Int], usual: [Int] = [], radius: Int) -> [Int] {
        guard count > 0 else { return [] }
        var order: [Int] = []
        var seen = Set<Int>()
        func add(_ i: Int) {
            guard (0..<count).contains(i), seen.insert(i).inserted else { return }
            order.append(i)
        }
        // Surfing (the last channel is a neighbour): the next one in the same direction first,
        // then the way back; after a jump, the way back (recall) first.
        let surfing = current.flatMap { c in last.map { count > 2 && ($0 == (c + 1) % count || $0 == (c - 1 + count) % count) } } ?? false
        if let current { add(current) }
        if surfing, let current, let last { add(last == (current + 1) % count ? (current - 1 + count) % count : (current + 1) % count) }
        if let last { add(last) }
        let byDistance: [Int]
        if let current {
            let down = last.map { count > 2 && $0 == (current + 1) % count } ?? false
            byDistance = (1..<max(1, count)).flatMap { d in
                let next = (current + d) % count, previous = ((current - d) % count + count) % count
                return down ? [previous, next] : [next, previous]
            }
        } else {
            byDistance = Array(0..<count)
        }
        if current != nil { for i in byDistance.prefix(2 * max(0, radius)) { add(i) } }
        for f in favourites.sorted() { add(f) }
        for u in usual { add(u) }
        for i in byDistance { add(i) }
        return order
    }
}
