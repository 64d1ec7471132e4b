/// How one pool's limit is learned from the way its server behaves, without being banned. Pure:
/// events go in with the time they happened and the streams open then; what was learned comes
/// out.
///
/// The rules (most people do not know their limits):
/// - A refusal (HTTP 503, 429, 453, 509; HDHomeRun's `805 All Tuners In Use`) while the pool
///   holds `k` streams sets the limit to `k`. With none open it says nothing of a limit (the
///   server is down, or busy with others): an ordinary failure.
/// - A stream that ends within `endsOldestWindow` of another stream of the pool opening is taken
///   as "the server ends the oldest when a new one opens": the limit is the number open before
///   that opening.
/// - A limit learned from refusals is tried one higher again at most once an hour
///   (`probeInterval`): a probe is only ever a warm stream, which a refusal costs nothing; it
///   becomes the limit once it ran `probeConfirm` without a refusal. A limit learned from ended
///   streams is never probed: the probe would end a stream, maybe the one on screen.
/// - A server refuses a stream, or ends another as one opens, while the box counted a slot it
///   had just let go as free: that server frees slots slower than the box waited
///   (`slotRelease`), which doubles, up to `releaseGrace`.
public struct PoolLearning: Sendable, Equatable {
    public typealias Instant = ContinuousClock.Instant

    /// How the limit was learned.
    public enum Evidence: String, Sendable, Hashable, Codable {
        case refusal
        case endedOldest = "ended the oldest"
    }

    /// A learned limit, as kept in the state directory.
    public struct Learned: Sendable, Hashable, Codable {
        public var streams: Int
        public var evidence: Evidence
        public init(streams: Int, evidence: Evidence) {
            self.streams = streams
            self.evidence = evidence
        }
    }

    /// What an event taught.
    public enum Verdict: Sendable, Hashable {
        /// The limit is now this (it was not, or was another).
        case learned(Int)
        /// It confirms the limit known.
        case confirmed(Int)
        /// Nothing about a limit: the stream failed for another reason.
        case notALimit
    }

    public static let endsOldestWindow: Duration = .milliseconds(1500)
    /// How long after the box closed a stream the server may still hold its slot (a tuner is
    /// released a moment after its client leaves): a refusal then is no news, and a stream
    /// opening then counts that slot as taken.
    public static let releaseGrace: Duration = .milliseconds(1500)
    /// How long the box first gives a server to free the slot of a stream it let go, before it
    /// opens another in a full pool (servers free one within tens of milliseconds of their
    /// client leaving; 54 ms measured on loopback).
    public static let firstSlotRelease: Duration = .milliseconds(150)
    public static let probeInterval: Duration = .seconds(3600)
    public static let probeConfirm: Duration = .seconds(60)

    public private(set) var learned: Learned?
    /// Streams opened lately, with how many were open before each.
    private var openings: [Opening] = []
    private struct Opening: Sendable, Equatable {
        var at: Instant
        var openBefore: Int
    }
    /// When the limit last changed or was last probed: no probe within `probeInterval` of it.
    private var quietSince: Instant?
    /// A probe running since then: the pool is allowed one stream more than learned.
    private var probeSince: Instant?
    /// When the box closed streams of the pool lately (within `releaseGrace`).
    private var closes: [Instant] = []
    /// How long this pool's server is given to free the slot of a stream the box let go, before
    /// the box opens another in its place (`nextSlot`): `firstSlotRelease`, doubled each time
    /// the server showed it still held one (`slotStillTaken`), up to `releaseGrace`.
    public private(set) var slotRelease: Duration = firstSlotRelease

    public init(learned: Learned? = nil, at now: Instant? = nil) {
        self.learned = learned
        quietSince = learned == nil ? nil : now
    }

    // MARK: Inputs

    /// A stream of the pool is opening while `open` others are. Streams the box closed within
    /// `releaseGrace` count as open: the server may not have freed their slots yet.
    public mutating func opening(at now: Instant, open: Int) {
        openings.removeAll { now - $0.at > Self.endsOldestWindow }
        openings.append(Opening(at: now, openBefore: max(0, open) + recentlyClosed(at: now)))
    }

    /// When one more stream may open while `open` streams of the pool are open and the limit
    /// is `limit`, counting each stream the box closed less than `slotRelease` ago as still
    /// taking its slot at the server: nil when it may open now. (A box that closed a stream for
    /// a flip and opens another at once makes a server that ends the oldest end a third.)
    public func nextSlot(open: Int, limit: Int, at now: Instant) -> Instant? {
        let release = slotRelease
        let freeing = closes.filter { now - $0 < release && $0 <= now }.sorted()
        let over = open + freeing.count - limit + 1
        guard over > 0, open < limit else { return nil }
        return freeing[min(over, freeing.count) - 1] + release
    }

    /// The box closed a stream of the pool.
    public mutating func closed(at now: Instant) {
        closes.removeAll { now - $0 >= Self.releaseGrace }
        closes.append(now)
    }

    /// Streams the box closed within `releaseGrace` before `now`: their slots may still be taken.
    public func recentlyClosed(at now: Instant, within window: Duration = releaseGrace) -> Int {
        closes.filter { now - $0 < window && $0 <= now }.count
    }

    /// The server refused a stream, or ended one as another opened, while `open` streams of the
    /// pool were open, fewer than its limit `limit`, and the box had let one go within
    /// `releaseGrace`: the server still held that slot, so the box waits longer for the next
    /// one (`slotRelease` doubles, up to `releaseGrace`). True when it grew.
    public mutating func slotStillTaken(at now: Instant, open: Int, limit: Int) -> Bool {
        guard open < limit, recentlyClosed(at: now) > 0, slotRelease < Self.releaseGrace else { return false }
        slotRelease = min(slotRelease * 2, Self.releaseGrace)
        return true
    }

    /// The server refused a stream while `open` others of the pool were open. Within
    /// `releaseGrace` of the box closing one, a refusal says nothing: the server may not have
    /// freed that slot yet.
    public mutating func refused(at now: Instant, open: Int) -> Verdict {
        guard open >= 1 else { return .notALimit }
        if recentlyClosed(at: now) > 0, learned.map({ open < $0.streams }) ?? true { return .notALimit }
        if probeSince != nil, let learned, open >= learned.streams {
            // The probe was refused: the limit stands, and is not tried again for an hour.
            probeSince = nil
            quietSince = now
            return .confirmed(learned.streams)
        }
        return learn(open, .refusal, at: now)
    }

    /// The server ended a stream of the pool (its end, or its connection closed) while `open`
    /// others were open.
    public mutating func ended(at now: Instant, open: Int) -> Verdict {
        openings.removeAll { now - $0.at > Self.endsOldestWindow }
        // The newest opening before the end that left some other stream open before it.
        guard let cause = openings.last(where: { $0.at <= now && $0.openBefore >= 1 }) else { return .notALimit }
        openings.removeAll { $0.at == cause.at }
        probeSince = nil
        // An ending never raises a limit: slots the box had just let go count as taken at the
        // opening, so its count is at most the true one, and may be more.
        if let learned, cause.openBefore >= learned.streams { return .confirmed(learned.streams) }
        return learn(cause.openBefore, .endedOldest, at: now)
    }

    /// Time passed with `open` streams of the pool open: a probe that held its extra stream for
    /// `probeConfirm` raises the limit.
    public mutating func tick(at now: Instant, open: Int) -> Verdict? {
        guard let since = probeSince, let learned else { return nil }
        guard open > learned.streams else { return nil }
        guard now - since >= Self.probeConfirm else { return nil }
        probeSince = nil
        quietSince = now
        self.learned = Learned(streams: learned.streams + 1, evidence: .refusal)
        return .learned(learned.streams + 1)
    }

    // MARK: Outputs

    /// Whether a warm stream may try one more than the learned limit now.
    public func mayProbe(at now: Instant) -> Bool {
        guard let learned, learned.evidence == .refusal, probeSince == nil else { return probeSince != nil }
        guard let quietSince else { return true }
        return now - quietSince >= Self.probeInterval
    }

    /// A warm stream beyond the learned limit opened (a probe).
    public mutating func probeStarted(at now: Instant) {
        guard probeSince == nil else { return }
        probeSince = now
        quietSince = now
    }

    /// A probe ended without a verdict (its stream was let go).
    public mutating func probeAbandoned() { probeSince = nil }

    public var isProbing: Bool { probeSince != nil }

    private mutating func learn(_ streams: Int, _ evidence: Evidence, at now: Instant) -> Verdict {
        let streams = min(streams, PoolLimit.maxStreams)
        if learned?.streams == streams {
            if evidence == .endedOldest { learned?.evidence = .endedOldest }
            return .confirmed(streams)
        }
        learned = Learned(streams: streams, evidence: evidence)
        quietSince = now
        return .learned(streams)
    }
}
