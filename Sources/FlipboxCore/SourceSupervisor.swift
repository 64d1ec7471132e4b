import Lineup

/// The rules that keep one channel's ingest alive, as a value: no clock, no threads, no pipelines.
///
/// Inputs go in with the time they happened (start, stop, data flowing, a bus error, the end of
/// the stream, the one timer firing); the actions to carry out come out, in order. The shell
/// (`ChannelSource`) builds and tears down pipelines, arms the timer and reports the state.
///
/// The rules: a source that delivered nothing within `connectTimeout` of connecting has
/// `failed`; one that delivered and then went silent for `stallTimeout` is `stalled`; both are
/// torn down and connected again after a backoff (0.5 s doubling, to at most 1 s during the first
/// minute of an outage so a source that comes back is seen within about a second, then 10 s for
/// a warm channel and 2 s for the channel on screen; 0.5 s for a source the box only listens for; a
/// channel with backup sources moves on to the next one, and tries a fresh backup at once). While it retries, the
/// channel keeps saying why it is down; when data flows again it is warm (or hot) by itself.
/// There is one timer, armed for the next deadline only: no polling.
public struct SourceSupervisor: Sendable {
    /// Names one connection attempt: inputs of an older attempt are stale and ignored.
    public struct Connection: Sendable, Hashable, CustomStringConvertible {
        public let value: Int
        public var description: String { "connection \(value)" }
    }

    public enum Action: Sendable, Equatable {
        /// Build and start the ingest for `sources[source]`; its inputs carry `connection`.
        case connect(source: Int, connection: Connection)
        /// Stop and drop the running ingest, if any (also forget its cached data).
        case teardown
        /// The channel's state changed.
        case report(ChannelState)
        /// Something the person running the box should read.
        case warn(String)
        /// Call `timerFired` at this instant; replaces any earlier request. Nil: no timer.
        case wake(at: ContinuousClock.Instant?)
    }

    public struct Settings: Sendable, Hashable {
        /// The channel's source addresses, main first, then its backups (named in messages).
        public var sources: [String]
        public var stallTimeout: Duration
        public var connectTimeout: Duration
        public init(sources: [String], stallTimeout: Duration = .seconds(2), connectTimeout: Duration = .seconds(10)) {
            self.sources = sources.isEmpty ? [""] : sources
            self.stallTimeout = stallTimeout
            self.connectTimeout = connectTimeout
        }
        var sourceCount: Int { sources.count }
    }

    private enum Phase: Sendable, Equatable {
        /// Not wanted: nothing runs.
        case idle
        /// Connected at `since`, nothing delivered yet.
        case connecting(since: ContinuousClock.Instant)
        /// Delivering; `last` is the newest delivery the machine has heard of.
        case delivering(last: ContinuousClock.Instant)
        /// Torn down after a failure or a stall; connects again at `at`.
        case retrying(at: ContinuousClock.Instant)
    }

    /// What happened to the channel's ingest since it was made, for `/metrics`.
    public struct Counts: Sendable, Hashable {
        /// Times the source went silent for the stall timeout while delivering.
        public var stalls = 0
        /// Connection attempts that failed (an error, nothing received, the stream ended).
        public var failures = 0
        /// Connections made again after a stall or a failure.
        public var reconnects = 0
        /// Retries that moved to another of the channel's sources (a backup, or back to the main one).
        public var failovers = 0
        /// Streams the server refused because all of its streams were in use (a pool event).
        public var refusals = 0
        public init() {}
    }

    public private(set) var settings: Settings
    public private(set) var state: ChannelState = .cold
    public private(set) var counts = Counts()
    /// The source (index into the channel's sources) in use or next.
    public private(set) var source = 0
    public private(set) var connection = Connection(value: 0)
    private var phase: Phase = .idle
    private var failures = 0
    /// When the current run of failures began; nil while the source delivers.
    private var downSince: ContinuousClock.Instant?
    private var hot = false
    /// Refusals since the source last delivered.
    private var refusalsInARow = 0
    /// When a reconnect that its pool postponed was due (nil: none postponed).
    private var postponedFrom: ContinuousClock.Instant?

    public init(settings: Settings) { self.settings = settings }

    /// Takes `sources` instead of the channel's (a provider's archive while a viewer watches the
    /// past, the channel's own again after), from the first, with the failures forgotten. Only
    /// while idle (stopped): false, and nothing changed, otherwise. Counts and connection ids
    /// go on, so no input of an earlier connection is taken for one of the new sources.
    public mutating func follow(sources: [String]) -> Bool {
        guard phase == .idle else { return false }
        readdressed = nil
        settings.sources = sources.isEmpty ? [""] : sources
        source = 0
        failures = 0
        downSince = nil
        refusalsInARow = 0
        postponedFrom = nil
        return true
    }

    /// New addresses for the channel (its lineup was read again): taken at once while idle,
    /// else at the next connection (a reconnect, a failover, a restart), so the stream open now
    /// is never cut. Main first; failures are forgotten when they are taken.
    public mutating func readdress(sources: [String]) {
        guard phase != .idle else {
            _ = follow(sources: sources)
            return
        }
        readdressed = sources
    }

    /// Addresses `readdress` gave while a connection was open, taken at the next one.
    public private(set) var readdressed: [String]?

    public var isWanted: Bool { phase != .idle }

    /// Whether a stream is open to the source now (connecting or delivering): what a pool counts.
    public var holdsStream: Bool {
        switch phase {
        case .connecting, .delivering: true
        case .idle, .retrying: false
        }
    }

    /// Whether the source delivered on the current connection.
    public var isDelivering: Bool {
        if case .delivering = phase { true } else { false }
    }

    // MARK: Inputs

    /// The channel should run (warm or shown). Nothing happens when it already does.
    public mutating func start(at now: ContinuousClock.Instant) -> [Action] {
        guard phase == .idle else { return [] }
        failures = 0
        downSince = nil
        return connect(at: now)
    }

    /// The channel goes cold; `reason` says why it is held cold (`parked`), nil for plain cold.
    public mutating func stop(reason: String? = nil) -> [Action] {
        let wasRunning = phase != .idle
        phase = .idle
        postponedFrom = nil
        connection = Connection(value: connection.value + 1)
        var actions: [Action] = wasRunning ? [.teardown, .wake(at: nil)] : []
        actions += report(reason.map { .parked(reason: $0) } ?? .cold)
        return actions
    }

    /// The channel is decoded for the screen (`hot`) or no longer.
    public mutating func setHot(_ hot: Bool) -> [Action] {
        self.hot = hot
        // A reconnect its pool held back goes when it was due: the viewer's flip never waits for
        // the pool's allowance (backoff and a server's Retry-After still apply).
        if hot, let due = postponedFrom, case .retrying = phase {
            postponedFrom = nil
            phase = .retrying(at: due)
            return [.wake(at: due)]
        }
        guard case .delivering = phase else { return [] }
        return report(hot ? .hot : .warm)
    }

    /// The ingest of `connection` delivered data at `at` (the first of a connection, or any later
    /// one: only the newest matters).
    public mutating func delivered(_ connection: Connection, at: ContinuousClock.Instant) -> [Action] {
        guard connection == self.connection else { return [] }
        switch phase {
        case .connecting, .delivering:
            let first: Bool
            if case .delivering = phase { first = false } else { first = true }
            phase = .delivering(last: at)
            failures = 0
            refusalsInARow = 0
            downSince = nil
            return first ? report(hot ? .hot : .warm) + [.wake(at: at + settings.stallTimeout)] : []
        case .idle, .retrying:
            return []
        }
    }

    /// The ingest of `connection` failed (a bus error, or the end of a stream that does not loop).
    public mutating func failed(_ connection: Connection, reason: String, at now: ContinuousClock.Instant) -> [Action] {
        guard connection == self.connection, phase != .idle else { return [] }
        if case .retrying = phase { return [] }
        return fail(reason, at: now)
    }

    /// The server refused the stream of `connection` because all its streams are in use (`reason`
    /// says how): a pool event, not a failure of the channel, so the channel is not taken for
    /// broken (next/previous do not skip it). Torn down and tried again after the backoff while
    /// still wanted; the head-end parks a warm channel until its pool has a stream free. A warm
    /// channel asks again after 5 s, doubling to 5 minutes; a server's `retryAfter` is honoured
    /// (to at most 5 minutes) on screen too.
    public mutating func refused(_ connection: Connection, reason: String, retryAfter: Duration? = nil,
                                 at now: ContinuousClock.Instant) -> [Action] {
        guard connection == self.connection, phase != .idle else { return [] }
        if case .retrying = phase { return [] }
        counts.refusals += 1
        refusalsInARow += 1
        var actions = report(.parked(reason: reason)) + retry(at: now)
        var wait = hot ? Duration.zero : min(Self.refusalBackoffCap, .seconds(5) * (1 << min(refusalsInARow - 1, 6)))
        if let retryAfter { wait = max(wait, min(retryAfter, Self.refusalBackoffCap)) }
        if case .retrying(let at) = phase, now + wait > at {
            phase = .retrying(at: now + wait)
            actions = actions.filter { if case .wake = $0 { false } else { true } } + [.wake(at: now + wait)]
        }
        return actions
    }

    /// Whether a reconnect is due now (the source waits to connect again and its time came).
    public func retryDue(at now: ContinuousClock.Instant) -> Bool {
        if case .retrying(let at) = phase { now >= at } else { false }
    }

    /// Whether the channel is decoded for the screen.
    public var isHot: Bool { hot }

    /// A due reconnect waits until `later` (its pool lets no more background connections through
    /// before then). Nothing happens unless a reconnect waits.
    public mutating func postpone(until later: ContinuousClock.Instant) -> [Action] {
        guard case .retrying(let at) = phase, later > at else { return [] }
        postponedFrom = postponedFrom ?? at
        phase = .retrying(at: later)
        return [.wake(at: later)]
    }

    /// The longest a warm channel waits to ask a server that refused it again.
    static let refusalBackoffCap: Duration = .seconds(300)

    /// The stream of `connection` changed in a way its ingest cannot follow (`reason` says how):
    /// it is read again at once. Not a failure: the source delivers, so no backoff applies and
    /// the channel on screen stays hot (its picture comes back at the new stream's first keyframe).
    public mutating func restart(_ connection: Connection, reason: String, at now: ContinuousClock.Instant) -> [Action] {
        guard connection == self.connection else { return [] }
        guard case .delivering = phase else { return [] }
        counts.reconnects += 1
        return [.warn("\(reason); reading it again")] + connect(at: now)
    }

    /// The timer asked for by `.wake` fired. `lastDelivery`: when the ingest last delivered
    /// anything (the cache knows; the machine is not told of every buffer).
    public mutating func timerFired(at now: ContinuousClock.Instant, lastDelivery: ContinuousClock.Instant?) -> [Action] {
        switch phase {
        case .idle:
            return []
        case .connecting(let since):
            if let lastDelivery, lastDelivery >= since { return delivered(connection, at: lastDelivery) }
            guard now - since >= settings.connectTimeout else { return [.wake(at: since + settings.connectTimeout)] }
            return fail("nothing received within \(settings.connectTimeout.spoken)", at: now)
        case .delivering(let last):
            let newest = max(last, lastDelivery ?? last)
            phase = .delivering(last: newest)
            guard now - newest >= settings.stallTimeout else { return [.wake(at: newest + settings.stallTimeout)] }
            var actions: [Action] = []
            if case .stalled = state {} else {
                actions.append(.warn("no data for \(settings.stallTimeout.spoken), reconnecting"))
            }
            actions += report(.stalled(reason: "no data from the source for \(settings.stallTimeout.spoken)"))
            counts.stalls += 1
            return actions + retry(at: now)
        case .retrying(let at):
            guard now >= at else { return [.wake(at: at)] }
            counts.reconnects += 1
            return connect(at: now)
        }
    }

    // MARK: Rules

    /// The longest wait before connecting again, `down` into an outage. A source the box listens
    /// for (UDP, RTP: no server is asked anything) is tried again every half second. A server is
    /// asked every second during the first minute of an outage (most outages are a restart of
    /// the sender or a dropped connection, and a viewer or the warm pool should have the channel
    /// back within about a second of its return), then no more than every 2 s while the channel
    /// is on screen (a viewer waits) and every 10 s while it is only kept warm.
    func retryCap(down: Duration) -> Duration {
        if SourceSupervisor.listens(settings.sources[source]) { return .milliseconds(500) }
        if down < Self.fastRetryWindow { return .seconds(1) }
        return hot ? .seconds(2) : .seconds(10)
    }

    /// How long into an outage a server is still retried every second.
    static let fastRetryWindow: Duration = .seconds(60)

    /// Whether the box only listens for `url` (data pushed to it), asking no server to connect.
    static func listens(_ url: String) -> Bool {
        let lower = url.lowercased()
        return lower.hasPrefix("udp://") || lower.hasPrefix("rtp://")
    }

    private mutating func connect(at now: ContinuousClock.Instant) -> [Action] {
        if let readdressed {
            settings.sources = readdressed.isEmpty ? [""] : readdressed
            source = 0
            self.readdressed = nil
        }
        postponedFrom = nil
        connection = Connection(value: connection.value + 1)
        phase = .connecting(since: now)
        var actions: [Action] = [.teardown, .connect(source: source, connection: connection)]
        // A reconnect keeps saying why the channel is down until data flows again; the channel
        // on screen read again while it delivers (its stream changed) stays hot, its last
        // picture held until the new stream's first keyframe.
        switch state {
        case .stalled, .failed, .hot: break
        default: actions += report(.connecting)
        }
        return actions + [.wake(at: now + settings.connectTimeout)]
    }

    private mutating func fail(_ reason: String, at now: ContinuousClock.Instant) -> [Action] {
        // Stream URLs and GStreamer's words can carry an account's password: never shown.
        let url = SourceText.shown(settings.sources[source]), reason = SourceText.shown(reason)
        counts.failures += 1
        return [.warn("\(url): \(reason)")] + report(.failed(error: "\(reason) (\(url))")) + retry(at: now)
    }

    /// Tears down and plans the next attempt: the next source when there are backups.
    private mutating func retry(at now: ContinuousClock.Instant) -> [Action] {
        failures += 1
        if downSince == nil { downSince = now }
        if settings.sourceCount > 1 {
            source = (source + 1) % settings.sourceCount
            counts.failovers += 1
        }
        let freshBackup = settings.sourceCount > 1 && source != 0
        let delay: Duration = freshBackup ? .milliseconds(100) : min(retryCap(down: now - (downSince ?? now)), .milliseconds(250 << min(failures, 6)))
        phase = .retrying(at: now + delay)
        connection = Connection(value: connection.value + 1)
        return [.teardown, .wake(at: now + delay)]
    }

    private mutating func report(_ new: ChannelState) -> [Action] {
        guard new != state else { return [] }
        state = new
        return [.report(new)]
    }
}
