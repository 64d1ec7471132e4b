/// Which channels keep a stream, pool by pool, when pools ration them. Pure: the channels in
/// order of value with what claims them, the limits; the channels kept and why the others are
/// not.
///
/// In each limited pool, what holds a stream for someone (the screen, a served client, a
/// recording, the picture-in-picture) keeps it, whatever the limit says. A pool of 3 or more
/// streams keeps `reserve` free for a flip nobody predicted. The rest go to warm channels in
/// order of value, the screen's outgoing channel first among them; with hysteresis: a channel
/// already warm that falls up to `hysteresis` places below the cut keeps its stream in place of
/// a newcomer just above it (never in place of the most valuable one), so channels swapping
/// places in the ranking do not churn streams.
public enum PoolAllocation {
    /// What claims a channel's stream.
    public enum Claim: Sendable, Hashable {
        /// Held for someone who outranks every warm plan (`"the screen"`, `"client 192.168.1.7"`):
        /// kept, and named when a flip finds the pool full.
        case holds(String)
        /// The screen's channel while a flip to another is on its way: kept when there is room,
        /// and the first stream to go when the flip needs it.
        case yields
        /// Kept warm for its predicted value only.
        case warm
    }

    public struct Candidate: Sendable, Hashable {
        /// The channel, by lineup position.
        public var index: Int
        /// Its pool; nil: not rationed.
        public var pool: StreamPoolID?
        public var claim: Claim
        /// Whether it has its stream now.
        public var running: Bool

        public init(index: Int, pool: StreamPoolID?, claim: Claim, running: Bool) {
            self.index = index
            self.pool = pool
            self.claim = claim
            self.running = running
        }

        var holds: Bool { if case .holds = claim { true } else { false } }
    }

    public struct Result: Sendable, Hashable {
        public var keep: Set<Int>
        /// The candidates a pool left without a stream, with the reason.
        public var held: [Int: String]
        /// Streams each limited pool is planned to use.
        public var used: [StreamPoolID: Int]
    }

    /// The streams of a pool of `limit` kept free for an unpredicted flip: one from 3 up.
    public static func reserve(limit: Int) -> Int { limit >= 3 ? 1 : 0 }

    /// `ranked`: most valuable first (each channel once). `limits`: the pools with a limit (a
    /// pool not listed is unlimited).
    public static func allocate(ranked: [Candidate], limits: [StreamPoolID: Int], hysteresis: Int = 1) -> Result {
        var result = Result(keep: [], held: [:], used: [:])
        var byPool: [StreamPoolID: [Candidate]] = [:]
        for c in ranked {
            guard let pool = c.pool, limits[pool] != nil else {
                result.keep.insert(c.index)
                continue
            }
            byPool[pool, default: []].append(c)
        }
        for (pool, candidates) in byPool {
            let limit = max(0, limits[pool] ?? 0)
            let holders = candidates.filter(\.holds)
            let others = candidates.filter { !$0.holds }
            // The outgoing screen channel ranks first among the rest.
            let ordered = others.filter { $0.claim == .yields } + others.filter { $0.claim != .yields }
            let reserve = Self.reserve(limit: limit)
            let slots = max(0, limit - reserve - holders.count)
            var chosen = Array(ordered.prefix(slots))
            if hysteresis > 0, slots < ordered.count {
                // A newcomer gives way to a channel already warm at most `hysteresis` places below it.
                var swapped = Set<Int>()
                for position in slots..<min(ordered.count, slots + hysteresis) where ordered[position].running {
                    // The most valuable warm channel (the next one in the direction of the
                    // flips, say) is never given up for hysteresis.
                    let lowest = max(1, position - hysteresis)
                    guard lowest < slots else { continue }
                    guard let newcomer = (lowest..<slots).reversed().first(where: { p in
                        !swapped.contains(p) && !chosen[p].running && chosen[p].claim != .yields
                    }) else { continue }
                    swapped.insert(newcomer)
                    chosen[newcomer] = ordered[position]
                }
            }
            let kept = Set(chosen.map(\.index))
            let used = holders.count + kept.count
            result.used[pool] = used
            for h in holders { result.keep.insert(h.index) }
            result.keep.formUnion(kept)
            let free = reserve > 0 && used < limit ? ", \(limit - used) kept free for a flip" : ""
            for c in others where !kept.contains(c.index) {
                result.held[c.index] = "not kept warm: \(used) of \(limit) stream\(limit == 1 ? "" : "s") of \(pool) in use\(free)"
            }
        }
        return result
    }
}
