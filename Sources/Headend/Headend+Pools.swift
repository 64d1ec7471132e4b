import FlipboxCore
import Foundation
import Lineup
import Logging

/// What a feed is for, as the pools rank it: the screen outranks every warm channel (and the
/// screen's previous channel yields to it); a window (picture-in-picture, multiview) holds its
/// stream like a client.
public enum FeedRole: Sendable, Hashable {
    case screen
    case window(String)
}

/// Every stream of a channel whose pool is full and held by what outranks the request.
public enum PoolFailureCode: FailureCode {
    case full
    public var kind: FailureKind { .unavailable }
}
public typealias PoolFailure = Failure<PoolFailureCode>

/// A channel the head-end was asked for that its lineup does not hold.
public enum HeadendFailureCode: String, FailureCode {
    case unknownChannel
    /// A later flip came while this one waited for its stream: only the later one connects.
    case superseded
    public var kind: FailureKind {
        switch self {
        case .unknownChannel: .notFound
        case .superseded: .abandoned
        }
    }
}
public typealias HeadendFailure = Failure<HeadendFailureCode>

// Pools: streams rationed by their source (docs/pools.md). The plan keeps each pool within its
// limit (`WarmPlan`, `PoolAllocation`); a flip or a client in a full pool takes the least
// valuable warm stream first; refusals and streams the server ends teach the limit
// (`PoolLearning`) and park the warm channel instead of retrying it.
extension Headend {
    /// The pool `source`'s stream is in: that of the URL it has open, else of its main source.
    nonisolated func pool(of source: ChannelSource) -> StreamPoolID? {
        poolMap.pool(for: source.openURL ?? source.addresses.first ?? "")
    }

    /// The name of the pool `channel`'s main source is in; nil when it is in none.
    public nonisolated func poolName(of channel: Channel) -> String? {
        channel.sources.first.flatMap { poolMap.pool(for: $0) }?.name
    }

    /// The lineup positions with a stream open in `pool`.
    func openStreams(in pool: StreamPoolID) -> [Int] {
        sources.indices.filter { i in sources[i].openURL.flatMap { poolMap.pool(for: $0) } == pool }
    }

    /// The limits to plan with, for every pool that has one: a learned limit one higher while
    /// a probe may run (`PoolLearning.mayProbe`).
    func planningLimits(at now: ContinuousClock.Instant = .now) -> [StreamPoolID: Int] {
        var limits: [StreamPoolID: Int] = [:]
        for pool in lineupPools {
            guard let limit = poolBook.limit(of: pool) else { continue }
            let probe = limit.origin == .learned && poolBook.learning[pool]?.mayProbe(at: now) == true
            limits[pool] = max(0, limit.streams + (probe ? 1 : 0) - (reservedSlots[pool] ?? 0))
        }
        return limits
    }

    /// What claims each shown channel's stream: the newest screen feed holds it, older screen
    /// feeds (a flip on its way replaces them) yield, windows and pinned taps hold theirs.
    func streamClaims() -> [Int: PoolAllocation.Claim] {
        var claims: [Int: PoolAllocation.Claim] = [:]
        func claim(_ i: Int, _ c: PoolAllocation.Claim) {
            if case .holds = claims[i] { return }
            claims[i] = c
        }
        let newestScreen = decoders.keys.filter { (feedRoles[$0] ?? .screen) == .screen }.max()
        for (feed, entry) in decoders {
            guard let i = index(of: entry.source) else { continue }
            switch feedRoles[feed] ?? .screen {
            case .screen: claim(i, feed == newestScreen ? .holds("the screen") : .yields)
            case .window(let name): claim(i, .holds(name))
            }
        }
        for tap in tapHolders() { claim(tap.index, .holds(tap.holder)) }
        return claims
    }

    nonisolated func index(of source: ChannelSource) -> Int? { sources.firstIndex { $0 === source } }

    /// Who a stream is open for, as people read it: `the screen`, `client 192.168.1.7`, `warm`.
    static func holder(_ claim: PoolAllocation.Claim?) -> String {
        switch claim {
        case .holds(let name): name
        case .yields: "the screen"
        case .warm, nil: "warm"
        }
    }

    /// Makes room in `source`'s pool for a stream that outranks the warm ones (a flip, a
    /// client), before it connects: the plan with it held gives up the least valuable warm
    /// streams (only stops: the caller connects). Throws at once, stopping nothing, when every
    /// stream of the pool is held by what outranks it. Waits until streams the box let go (here
    /// or in a plan just before) are `slotRelease` old when the pool is full with them, so the
    /// server has freed their slots before the new stream opens (else it refuses it, or ends
    /// another).
    func makeRoom(for source: ChannelSource, flipTo: Bool, recording: String? = nil) async throws {
        guard let pool = pool(of: source), let given = poolBook.limit(of: pool)?.streams,
              let index = index(of: source), source.openURL == nil else { return }
        // Streams held for fetches the head-end does not ingest (`holdSlot`) are not there to take.
        let limit = given - (reservedSlots[pool] ?? 0)
        // Until the caller connects it, no plan applied meanwhile (while this waits) may, and a
        // flip or client making room meanwhile counts it as taken.
        roomBeingMade.insert(index)
        defer { roomBeingMade.remove(index) }
        // The pool's streams, open or about to be (`connectingNext`), what claims each, and those
        // held by what outranks the request.
        func held() -> (open: [Int], claims: [Int: PoolAllocation.Claim], holders: [Int]) {
            let claims = streamClaims()
            let open = openStreams(in: pool) + connectingNext(in: pool, except: index, claims: claims)
            return (open, claims, open.filter { i in if case .holds = claims[i] { i != index } else { false } })
        }
        var (open, claims, holders) = held()
        guard open.count >= limit else { return await waitForFreedSlot(in: pool, limit: limit, open: open.count) }
        // A recording outranks served clients: their streams go first.
        if holders.count >= limit, let recording, await endClients(in: holders, for: recording) {
            (open, claims, holders) = held()
            guard open.count >= limit else { return }
        }
        if holders.count >= limit {
            let message = recordingRefusal(holders: holders, limit: given, pool: pool)
                ?? allInUse(pool, limit: given, holders: holders, claims: claims)
            logger.warning("channel \(source.channel.number) \(source.channel.name): \(message)")
            throw PoolFailure(.full, message)
        }
        if flipTo {
            around = (index, around?.current ?? around?.last)
            lastViewerFlip = .now
        }
        await apply(plan(current: around?.current, last: around?.last), starts: false)
        let after = held().open.count
        logger.debug("pool \(pool): \(open.count - after) stream(s) let go for channel \(source.channel.number)")
        await waitForFreedSlot(in: pool, limit: limit, open: after)
    }

    /// How long a cold flip to `source` waits before it connects, when a flip came `flipBefore`:
    /// in a pool with a limit, after a flip less than `keyRepeatGap` before (keys repeating),
    /// one and a half times that gap, at most `keyRepeatSettleMax`, so the next press of the
    /// same cadence supersedes it before it connects; nil (no wait) otherwise.
    func keyRepeatSettle(after flipBefore: ContinuousClock.Instant?, source: ChannelSource) -> Duration? {
        guard let flipBefore, let pool = pool(of: source), poolBook.limit(of: pool) != nil else { return nil }
        return Self.keyRepeatSettle(gap: .now - flipBefore)
    }

    /// The wait of a cold flip into a rationed pool `gap` after the flip before it.
    static func keyRepeatSettle(gap: Duration) -> Duration? {
        guard gap < keyRepeatGap else { return nil }
        return min(gap * 3 / 2, keyRepeatSettleMax)
    }

    /// Flips closer together than this are keys repeating (a remote's repeat, presses in a row).
    static let keyRepeatGap: Duration = .milliseconds(700)
    /// The longest a cold flip into a rationed pool waits for the next press.
    static let keyRepeatSettleMax: Duration = .milliseconds(500)

    /// The channels of `pool`, other than `index`, whose flip or client is making room there now
    /// (`roomBeingMade`): they connect next, so a request meanwhile counts their streams as open
    /// and held (else two requests waiting for one freed slot would both connect). A flip a later
    /// one superseded (its claim yields) gives way instead, and is not counted.
    private func connectingNext(in pool: StreamPoolID, except index: Int?, claims: [Int: PoolAllocation.Claim]) -> [Int] {
        roomBeingMade.slots.filter { i in
            guard i != index, sources[i].openURL == nil, self.pool(of: sources[i]) == pool else { return false }
            if case .yields = claims[i] { return false }
            return true
        }.sorted()
    }

    /// Makes room in `pool` for the stream that channel `index` is about to open there while its
    /// present stream is in another pool (an archive on another server, and back): the plan,
    /// planning with that slot taken, gives up the least valuable warm stream of `pool`; then the
    /// server is given its slot release. Throws at once, stopping nothing, when every stream of
    /// `pool` is held by what outranks warm channels.
    func makeRoom(in pool: StreamPoolID, for index: Int) async throws(PoolFailure) {
        try await takeSlot(in: pool, except: index, keep: false)
    }

    /// Holds a stream of `url`'s pool for a fetch the head-end does not ingest itself (the part
    /// of a programme a recording missed, from the channel's archive), until `releaseSlot`:
    /// flips, clients and warm channels count it as taken. Nil when the URL is in no pool.
    /// Throws at once, holding nothing, when every stream of the pool is held by what outranks
    /// warm channels (the screen, a recording, a client).
    func holdSlot(for url: String) async throws(PoolFailure) -> StreamPoolID? {
        guard let pool = poolMap.pool(for: url) else { return nil }
        try await takeSlot(in: pool, except: nil, keep: true)
        return pool
    }

    /// Takes a slot of `pool` for a stream the plan does not count (channel `except`'s stream
    /// there, or a fetch): the plan, planning with it taken, gives up the least valuable warm
    /// stream, and the server is given its slot release. `keep`: the slot stays reserved until
    /// `releaseSlot`; else until the server has freed it (the caller opens its stream next).
    private func takeSlot(in pool: StreamPoolID, except index: Int?, keep: Bool) async throws(PoolFailure) {
        let held = reservedSlots[pool] ?? 0
        guard let limit = poolBook.limit(of: pool)?.streams else {
            if keep { reservedSlots[pool] = held + 1 }
            return
        }
        // The pool's streams but `index`'s, open or about to be (`connectingNext`).
        func taken(_ claims: [Int: PoolAllocation.Claim]) -> [Int] {
            openStreams(in: pool).filter { $0 != index } + connectingNext(in: pool, except: index, claims: claims)
        }
        let claims = streamClaims()
        let open = taken(claims)
        let holders = open.filter { i in if case .holds = claims[i] { true } else { false } }
        if holders.count + held >= limit {
            throw PoolFailure(.full, held > 0 && holders.isEmpty
                ? "all \(limit) stream\(limit == 1 ? "" : "s") of \(pool) in use: held for archives"
                : allInUse(pool, limit: limit, holders: holders, claims: claims))
        }
        reservedSlots[pool] = held + 1
        if keep || open.count + held >= limit {
            await apply(plan(current: around?.current, last: around?.last), starts: false)
            logger.debug("pool \(pool): \(open.count - openStreams(in: pool).filter { $0 != index }.count) stream(s) let go for a stream the plan does not count")
        }
        await waitForFreedSlot(in: pool, limit: limit - held, open: taken(streamClaims()).count)
        // Not kept: reserved until the stream may open (a flip or client asking meanwhile
        // counts it as taken), then the caller opens it.
        if !keep, let reserved = reservedSlots[pool] { reservedSlots[pool] = reserved > 1 ? reserved - 1 : nil }
        refreshPoolView()
    }

    /// Lets go of a stream `holdSlot` held; the warm plan may take it again.
    func releaseSlot(_ pool: StreamPoolID?) {
        guard let pool, let held = reservedSlots[pool] else { return }
        reservedSlots[pool] = held > 1 ? held - 1 : nil
        poolBook.learning[pool, default: PoolLearning()].closed(at: .now)
        replanSoon()
    }

    /// `all 2 streams of POOL in use: the screen on 3, client 192.168.1.7 on 5`.
    private func allInUse(_ pool: StreamPoolID, limit: Int, holders: [Int], claims: [Int: PoolAllocation.Claim]) -> String {
        let held = holders.map { "\(Self.holder(claims[$0])) on \(lineup.channels[$0].number)" }
        return "all \(limit) stream\(limit == 1 ? "" : "s") of \(pool) in use: \(held.joined(separator: ", "))"
    }

    /// Waits until a stream of `pool` may open: while the slots of streams the box let go less
    /// than `slotRelease` ago may still be taken at the server (a flip just after a plan let
    /// one go, or after `makeRoom` did), and the pool would be full with them.
    /// `open`: the streams of the pool open or about to be (default: those open).
    private func waitForFreedSlot(in pool: StreamPoolID, limit: Int, open: Int? = nil) async {
        let now = ContinuousClock.now
        guard let at = poolBook.learning[pool]?.nextSlot(open: open ?? openStreams(in: pool).count, limit: limit, at: now) else { return }
        logger.debug("pool \(pool): waiting \((at - now).spoken) for the server to free a slot")
        try? await Task.sleep(until: at, clock: .continuous)
    }

    /// How long a warm channel waits to take the last slot of a pool after the box let a stream
    /// of it go (servers free a slot within tens of milliseconds of its client leaving; 54 ms
    /// measured on loopback): taken too early, a server that ends the oldest ends another.
    static let warmReopenDelay: Duration = .milliseconds(500)

    /// How long `pool`'s server is given to free the slot of a stream the box let go for a flip
    /// or a client, before the box opens another in its place (learned: `PoolLearning.slotRelease`).
    func slotRelease(of pool: StreamPoolID) -> Duration {
        poolBook.learning[pool]?.slotRelease ?? PoolLearning.firstSlotRelease
    }

    /// Whether a warm start in `pool` waits: while its limit is unknown, one stream connects at
    /// a time, so a server that refuses the fifth is asked for it once, not for every channel;
    /// and while the slots of streams the box just closed may still be taken at the server, a
    /// warm channel does not take the last one (a server that ends the oldest would end another,
    /// maybe the channel on screen).
    func warmStartWaits(in pool: StreamPoolID?) -> Bool {
        guard let pool else { return false }
        guard let limit = poolBook.limit(of: pool) else {
            return sources.contains { source in
                source.state == .connecting && source.openURL.flatMap { poolMap.pool(for: $0) } == pool
            }
        }
        let closing = poolBook.learning[pool]?.recentlyClosed(at: .now, within: max(Self.warmReopenDelay, slotRelease(of: pool))) ?? 0
        return closing > 0 && openStreams(in: pool).count + closing + (reservedSlots[pool] ?? 0) >= limit.streams
    }

    /// How long after a viewer's flip the warm channels its plan starts count as the flip's.
    static let flipGrace: Duration = .seconds(10)

    /// Whether a warm channel of `pool` may start now: never while the server asked to be left
    /// alone; soon after a viewer's flip, yes (the plan follows the viewer); else as a background
    /// attempt, within the pool's allowance (`PoolAttempts`), counted.
    func mayStartWarm(in pool: StreamPoolID?, at now: ContinuousClock.Instant = .now) -> Bool {
        guard let pool else { return true }
        if poolBook.attempts[pool]?.quietAfter(now) != nil { return false }
        if let flip = lastViewerFlip, now - flip < Self.flipGrace { return true }
        return backgroundAttempt(pool: pool, at: now) == nil
    }

    /// Whether a background connection to `url`'s pool may go now (a warm channel's reconnect,
    /// asked by its ingest): nil when it goes (counted), else when to ask again.
    func backgroundAttempt(url: String, at now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        guard let pool = poolMap.pool(for: url) else { return nil }
        return backgroundAttempt(pool: pool, at: now)
    }

    private func backgroundAttempt(pool: StreamPoolID, at now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        var attempts = poolBook.attempts[pool] ?? PoolAttempts()
        // A pool with no limit known is held only by its server's Retry-After: its channels
        // back off one by one (`SourceSupervisor.retryCap`), and a server that rations streams
        // teaches its limit with its first refusal.
        guard poolBook.limit(of: pool) != nil else {
            guard let quiet = attempts.quietAfter(now) else { return nil }
            poolBook.counts[pool, default: .init()].heldBack += 1
            return quiet
        }
        let allowance = PoolAttempts.perWindow
        if let later = attempts.nextBackground(at: now, perWindow: allowance) {
            poolBook.counts[pool, default: .init()].heldBack += 1
            if poolBook.heldBackSaid[pool].map({ now - $0 >= PoolAttempts.window }) ?? true {
                poolBook.heldBackSaid[pool] = now
                let quiet = attempts.quietAfter(now) != nil
                logger.info("pool \(pool): \(quiet ? "the server asked for no new stream until \((later - now).spoken) from now" : "at most \(allowance) connections a minute in the background"); warm channels wait")
            }
            return later
        }
        attempts.attempted(at: now)
        poolBook.attempts[pool] = attempts
        return nil
    }

    /// A warm stream opened beyond a learned limit: the pool's probe.
    func notePoolStart(_ index: Int) {
        guard let pool = pool(of: sources[index]), let learned = poolBook.learning[pool]?.learned,
              poolBook.settings.map.givenLimit(of: pool) == nil,
              openStreams(in: pool).count > learned.streams else { return }
        if poolBook.learning[pool]?.isProbing == false {
            logger.info("pool \(pool): trying \(learned.streams + 1) streams (the limit learned is \(learned.streams); tried at most once an hour)")
        }
        poolBook.learning[pool]?.probeStarted(at: .now)
    }

    /// Stops `source` (cold, or parked with `reason`), and notes at once that its pool's server
    /// may hold the slot a moment longer, before anything else of the pool is started. Returns
    /// the pool its stream was in.
    @discardableResult
    func stopSource(_ source: ChannelSource, reason: String?) async -> StreamPoolID? {
        let pool = noteClosing(source)
        await source.stop(reason: reason)
        return pool
    }

    /// Notes in its pool that `source`'s open stream is being let go (its slot frees a moment
    /// later at the server); returns the pool.
    @discardableResult
    func noteClosing(_ source: ChannelSource) -> StreamPoolID? {
        guard let pool = source.openURL.flatMap({ poolMap.pool(for: $0) }) else { return nil }
        poolBook.learning[pool, default: PoolLearning()].closed(at: .now)
        return pool
    }

    /// Counts a flip to `source` for its pool's warm hit ratio.
    func countFlip(to source: ChannelSource, path: Path) {
        guard let pool = pool(of: source) else { return }
        poolBook.counts[pool, default: .init()].flips += 1
        if path != .cold { poolBook.counts[pool, default: .init()].warmFlips += 1 }
    }

    /// A source's pool event (media thread, in order).
    func poolEvent(_ event: SourcePoolEvent, from index: Int) {
        defer { refreshPoolView() }
        let now = ContinuousClock.now
        let channel = lineup.channels[index]
        switch event {
        case .opening(let url):
            guard let pool = poolMap.pool(for: url) else { return }
            poolBook.counts[pool, default: .init()].attempts += 1
            let open = openStreams(in: pool).filter { $0 != index }.count
            poolBook.learning[pool, default: PoolLearning()].opening(at: now, open: open)
        case .refused(let url, let reason, let retryAfter):
            guard let pool = poolMap.pool(for: url) else { return }
            poolBook.counts[pool, default: .init()].refusals += 1
            if let retryAfter, retryAfter > .zero { poolBook.attempts[pool, default: PoolAttempts()].quiet(until: now + retryAfter) }
            let open = openStreams(in: pool).filter { $0 != index }.count
            slotStillTaken(in: pool, open: open, at: now)
            let verdict = poolBook.learning[pool, default: PoolLearning()].refused(at: now, open: open)
            logger.info("channel \(channel.number) \(channel.name): \(reason) (\(open) open)")
            learned(verdict, pool: pool, how: "refused a stream with \(open) open")
            replanSoon()
        case .ended(let url):
            guard let pool = poolMap.pool(for: url) else { return }
            poolBook.counts[pool, default: .init()].endedByServer += 1
            let open = openStreams(in: pool).filter { $0 != index }.count
            slotStillTaken(in: pool, open: open, at: now)
            let verdict = poolBook.learning[pool, default: PoolLearning()].ended(at: now, open: open)
            learned(verdict, pool: pool, how: "ended the stream of channel \(channel.number) as another opened")
            // A warm channel whose stream the server ended does not reconnect by itself (its
            // reconnect would end another stream, round and round): the plan decides when.
            if poolBook.limit(of: pool) != nil {
                if case .holds = streamClaims()[index] {} else { endedWarm.insert(index) }
            }
            replanSoon()
        case .closed(let url):
            guard let pool = poolMap.pool(for: url) else { return }
            poolBook.learning[pool, default: PoolLearning()].closed(at: now)
            // A slot freed: a channel waiting for one may connect.
            replanSoon()
        case .delivering(let url):
            guard let pool = poolMap.pool(for: url) else { return }
            if let verdict = poolBook.learning[pool]?.tick(at: now, open: openStreams(in: pool).count) {
                learned(verdict, pool: pool, how: "held one more stream for \(PoolLearning.probeConfirm.spoken)")
            }
            // The next warm channel of a pool whose limit is unknown may connect now.
            if poolBook.limit(of: pool) == nil { replanSoon() }
        }
    }

    /// A refusal or an ending with `pool` below its known limit just after the box let a
    /// stream of it go: its server frees slots slower than the box waited; it waits longer.
    private func slotStillTaken(in pool: StreamPoolID, open: Int, at now: ContinuousClock.Instant) {
        guard let limit = poolBook.limit(of: pool)?.streams else { return }
        let before = slotRelease(of: pool)
        guard poolBook.learning[pool, default: PoolLearning()].slotStillTaken(at: now, open: open, limit: limit) else { return }
        logger.notice("pool \(pool): its server still held a stream's slot \(before.spoken) after the box let it go; the box now gives it \(slotRelease(of: pool).spoken)")
    }

    private func learned(_ verdict: PoolLearning.Verdict, pool: StreamPoolID, how: String) {
        guard case .learned(let streams) = verdict else { return }
        if let given = poolMap.givenLimit(of: pool) {
            logger.warning("pool \(pool): the source \(how), fewer than the \(given.streams) it was given (\(given.origin.rawValue)); another device may be using its streams")
            return
        }
        logger.notice("pool \(pool): its limit is \(streams) stream\(streams == 1 ? "" : "s") (learned: the source \(how))")
        do { try poolBook.saveLearned() } catch {
            logger.warning("pool \(pool): cannot keep the learned limit in \(poolBook.settings.learnedFile?.path ?? "the state directory"): \(error)")
        }
    }

    /// Plans again soon (after a pool event), once however many events come.
    func replanSoon() {
        guard !replanQueued, !isShutDown else { return }
        replanQueued = true
        chore(.replan)
    }

    func runQueuedReplan() async {
        replanQueued = false
        guard !isShutDown else { return }
        let ended = endedWarm
        endedWarm = []
        for i in ended.sorted() {
            if case .holds = streamClaims()[i] { continue }
            await stopSource(sources[i], reason: "its stream was ended by the server; connected again when its pool has room")
        }
        // The plan changed nothing, yet the channels stopped must be looked at again.
        if !ended.isEmpty { startsWaiting = true }
        await replan()
    }

    /// The pools as last refreshed, by name (any thread; the status and `/metrics`).
    public nonisolated func pools() -> [PoolStatus] { poolView.pools }

    /// Refreshes what `pools()` says; when the lineup's sources are in no pool, nothing.
    func refreshPoolView() {
        guard !lineupPools.isEmpty || !poolView.pools.isEmpty else { return }
        poolView.set(poolStatus())
    }

    /// The pools as the status shows them, by name.
    public func poolStatus() -> [PoolStatus] {
        let claims = streamClaims()
        var seen = Set(lineupPools)
        for source in sources { if let p = source.openURL.flatMap({ poolMap.pool(for: $0) }) { seen.insert(p) } }
        return seen.sorted().map { pool in
            let limit = poolBook.limit(of: pool)
            let open = openStreams(in: pool)
            let counts = poolBook.counts[pool] ?? .init()
            let holders = open.map { "\(lineup.channels[$0].number) (\(Self.holder(claims[$0])))" }
            return PoolStatus(name: pool.name, limit: limit?.streams, limitOrigin: limit?.origin.rawValue, open: open.count,
                              holders: holders, attempts: counts.attempts, refusals: counts.refusals,
                              endedByServer: counts.endedByServer, heldBack: counts.heldBack, warmFlips: counts.warmFlips, flips: counts.flips)
        }
    }
}

/// The channels flips and clients are making room for, each counted once per request: two
/// requests for one channel at once (a flip and a client of it) keep its mark until both end.
struct RoomMarks {
    private var counts: [Int: Int] = [:]

    mutating func insert(_ slot: Int) { counts[slot, default: 0] += 1 }

    mutating func remove(_ slot: Int) {
        guard let count = counts[slot] else { return }
        counts[slot] = count > 1 ? count - 1 : nil
    }

    func contains(_ slot: Int) -> Bool { counts[slot] != nil }

    /// The channels marked, each once.
    var slots: [Int] { Array(counts.keys) }
}
