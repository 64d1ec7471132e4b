import Lineup

/// How the switcher behaves: card timing, tune timeout, what next/previous skip.
public struct SwitcherSettings: Sendable, Hashable {
    /// The card appears only when the target shows no frame within this time.
    public var cardDelay: Duration
    /// A card, once up, stays at least this long (no flicker).
    public var cardMinimum: Duration
    /// A flip that shows no frame within this time fails, and its card turns into "no signal".
    public var tuneTimeout: Duration
    /// next/previous skip channels marked hidden.
    public var skipHidden: Bool
    /// next/previous skip channels whose source failed.
    public var skipFailed: Bool
    public var scope: FlipScope
    /// What next/previous do with locked channels.
    public var lockedFlip: LockedFlip

    public init(cardDelay: Duration = .milliseconds(80), cardMinimum: Duration = .milliseconds(400),
                tuneTimeout: Duration = .seconds(8), skipHidden: Bool = true, skipFailed: Bool = true,
                scope: FlipScope = .all, lockedFlip: LockedFlip = .skip) {
        self.lockedFlip = lockedFlip
        self.cardDelay = cardDelay
        self.cardMinimum = cardMinimum
        self.tuneTimeout = tuneTimeout
        self.skipHidden = skipHidden
        self.skipFailed = skipFailed
        self.scope = scope
    }
}

/// The channel switcher's logic, with no clock, threads or pipelines: inputs (requests, frames,
/// timers) go in with the time they happened, effects come out for a driver (`Player`) to carry
/// out. Tested with a manual clock.
///
/// Rules it keeps:
/// - every request gets an id and exactly one result (`deliver`): completed, failed or superseded;
/// - a request made while another is on its way retargets it (relative requests count from the
///   newest target), so a held key never queues flips;
/// - the card is asked for only when the target has no frame `cardDelay` after the request;
///   once up, it carries over to a retargeted flip at once, and a timeout or a source failure
///   turns it into a "no signal" card naming the reason;
/// - a refused request (unknown number, nothing to flip to) changes nothing and says why on screen;
/// - locked content never plays: whether a channel's content is locked is an input (`setLock`,
///   from the parental rules and the guide); a flip to it ends `failed(locked)` with the lock
///   card up and no decoder started, and a lock that engages on the channel on screen (a
///   programme boundary) stops its feed at once and puts the lock card up. An unlock there
///   plays the channel again (a flip of its own, with its own result).
public struct SwitcherMachine: Sendable {
    public typealias Instant = ContinuousClock.Instant

    public enum Timer: Hashable, Sendable {
        case card(requestID: RequestID)
        case timeout(requestID: RequestID)
    }

    public enum CardKind: Hashable, Sendable {
        /// The channel is loading.
        case tuning
        /// The channel gave no picture; the reason is for the viewer.
        case noSignal(reason: String)
        /// The channel's content is locked; the reason (the rating and the rule) is for the viewer.
        case locked(reason: String)

        /// `tuning`, `no-signal` or `locked`, as events and metrics name it.
        public var name: String {
            switch self {
            case .tuning: "tuning"
            case .noSignal: "no-signal"
            case .locked: "locked"
            }
        }
    }

    /// A card the driver should render and put on screen for `requestID`, if the machine still
    /// wants it when it is ready (`wantsCard`).
    public struct Card: Hashable, Sendable {
        public var requestID: RequestID
        public var channel: Int
        public var kind: CardKind
        /// How long it stays at least.
        public var minimum: Duration

        public init(requestID: RequestID, channel: Int, kind: CardKind, minimum: Duration) {
            self.requestID = requestID
            self.channel = channel
            self.kind = kind
            self.minimum = minimum
        }
    }

    public enum Effect: Hashable, Sendable {
        /// Start decoding `channel` for request `requestID` as `feed` (the machine's id for it:
        /// the output expects it before the head-end makes any frame of it). Report
        /// `activationFailed` if it cannot start, and `firstFrame` when its first frame reaches
        /// the output.
        case activate(requestID: RequestID, channel: Int, feed: FeedID)
        /// Stop the decoder of `feed` and forget it on the output. A feed whose activation is
        /// still on its way (waiting for a stream, connecting) is withdrawn: it opens nothing more.
        case stop(feed: FeedID)
        /// Request `requestID`'s flip was abandoned before its picture came (superseded, or its
        /// caller gave up): the output must not take its feed, even if the decoder announces it
        /// only now (`activate` runs on while the switcher moves on).
        case abandon(requestID: RequestID)
        case showCard(Card)
        /// Show `feed` again: an abandoned flip gives way to the channel still playing (its card,
        /// or a first frame that reached the screen before the flip was abandoned).
        case restore(feed: FeedID)
        case schedule(Timer, at: Instant)
        case deliver(FlipResult)
        /// A short message on screen ("No channel 42").
        case message(String)
        /// The channel on screen changed (or failed and shows "no signal" when `played` is false).
        case committed(current: Int, previous: Int?, played: Bool)
        case event(FlipEvent)
        /// A recall completed on `feed`: the channel goes back to where the viewer left it in
        /// time, when the box is set to (`resume-position`); else it stays live.
        case resumePosition(feed: FeedID)
    }

    /// What the machine needs to know about a channel.
    public struct ChannelInfo: Hashable, Sendable {
        public var summary: ChannelSummary
        public var number: ChannelNumber
        public var group: String?
        public var hidden: Bool
        public var favourite: Bool
        public var locked: Bool

        public init(_ channel: Channel, locked: Bool = false) {
            summary = ChannelSummary(channel)
            number = channel.number
            group = channel.group
            hidden = channel.isHidden
            favourite = channel.isFavourite
            self.locked = locked
        }
    }

    struct Flight: Hashable, Sendable {
        var id: RequestID
        var request: FlipRequest
        var target: Int
        var startedAt: Instant
        /// Known from the request on, so a flip superseded while it connects is stopped at once.
        var feed: FeedID
        var cardShown = false
    }

    /// Every channel by slot (a slot of a channel the lineup no longer has stays, not listed).
    public private(set) var channels: [ChannelInfo]
    /// The slots of the lineup now, in number order: what next, previous and a number reach.
    public private(set) var listed: [Int]
    public var settings: SwitcherSettings
    public private(set) var current: Int?
    public private(set) var previous: Int?
    /// The feed whose picture is on screen (or expected behind a "no signal" card).
    public private(set) var shownFeed: FeedID?
    private(set) var flight: Flight?
    /// The card on screen: for which request and channel, and whether it is "no signal".
    private(set) var card: (requestID: RequestID, channel: Int, noSignal: Bool)?
    /// Channels whose content is locked now, with the reason.
    public private(set) var locks: [Int: String] = [:]
    /// The lock holding the screen on `current`: the id its card goes by.
    private var lock: (requestID: RequestID, channel: Int)?
    private var failedChannels: Set<Int> = []
    /// The request whose failure should show "no signal", until a newer request.
    private var failedRequest: RequestID?
    private var nextID: UInt64 = 1

    /// `listed`: the slots in the lineup, in number order (nil: every slot, in order).
    public init(channels: [ChannelInfo], listed: [Int]? = nil, settings: SwitcherSettings = SwitcherSettings()) {
        self.channels = channels
        self.listed = listed ?? Array(channels.indices)
        self.settings = settings
        for (i, c) in channels.enumerated() where c.locked { locks[i] = "This channel is locked" }
    }

    /// The lineup read again (`Lineup.taking`): `channels` by the same slots and more, `listed`
    /// the slots in it now. Nothing on screen or on its way changes: a flip to a channel no longer
    /// listed goes on, and the channel on screen plays until the viewer flips away.
    public mutating func takeChannels(_ channels: [ChannelInfo], listed: [Int]) {
        precondition(channels.count >= self.channels.count, "a lineup's slots are never taken away")
        for i in self.channels.count..<channels.count where channels[i].locked { locks[i] = "This channel is locked" }
        self.channels = channels
        self.listed = listed.filter { channels.indices.contains($0) }
    }

    /// The channel on screen whose lock card is up (PIN entry applies), with the reason.
    public var lockedOnScreen: (channel: Int, reason: String)? {
        guard let lock, let reason = locks[lock.channel] else { return nil }
        return (lock.channel, reason)
    }

    /// The request on its way, if any: its id and target.
    public var pending: (requestID: RequestID, channel: Int)? { flight.map { ($0.id, $0.target) } }

    /// Whether a card is on screen.
    public var isShowingCard: Bool { card != nil }

    // MARK: Inputs

    /// A new request. Returns its id and the effects.
    public mutating func request(_ request: FlipRequest, at now: Instant) -> (id: RequestID, effects: [Effect]) {
        let id = RequestID(nextID)
        nextID += 1
        var effects: [Effect] = []
        let base = flight?.target ?? current
        let target: Int
        switch resolve(request, from: base) {
        case .failure(let failure, let message):
            effects.append(.event(.flipStarted(requestID: id, request: request, target: nil)))
            effects.append(.deliver(FlipResult(requestID: id, outcome: .failed, channel: refusedChannel(request),
                                               error: message, failure: failure)))
            effects.append(.message(message))
            return (id, effects)
        case .success(let t):
            target = t
        }
        let summary = channels[target].summary
        effects.append(.event(.flipStarted(requestID: id, request: request, target: summary)))

        failedRequest = nil
        var carryCard = card != nil
        if let old = flight {
            flight = nil
            effects.append(.event(.flipRetargeted(requestID: old.id, target: summary)))
            effects.append(.deliver(FlipResult(requestID: old.id, outcome: .superseded, channel: channels[old.target].summary,
                                               interstitialShown: old.cardShown, supersededBy: id)))
            effects.append(.abandon(requestID: old.id))
            effects.append(.stop(feed: old.feed))
            if old.cardShown { carryCard = true }
        }

        if let reason = locks[target] {
            if let c = card, !(c.channel == target && lock != nil) {
                effects.append(.event(.cardHidden(requestID: c.requestID, channel: channels[c.channel].summary)))
                card = nil
            }
            effects += lockOut(target, requestID: id, reason: reason, interstitialShown: true)
            return (id, effects)
        }

        if target == current, let shown = shownFeed, card?.noSignal != true {
            // Back on the channel already decoding (a retarget that returned, or a re-tune).
            effects.append(.restore(feed: shown))
            if let c = card {
                effects.append(.event(.cardHidden(requestID: c.requestID, channel: channels[c.channel].summary)))
                card = nil
            }
            effects.append(.deliver(FlipResult(requestID: id, outcome: .completed, channel: summary,
                                               latency: .zero, path: .hot, interstitialShown: false)))
            return (id, effects)
        }

        let next = Flight(id: id, request: request, target: target, startedAt: now, feed: FeedID.next())
        effects.append(.activate(requestID: id, channel: target, feed: next.feed))
        effects.append(.schedule(.timeout(requestID: id), at: now + settings.tuneTimeout))
        if carryCard {
            // A card is already up: it changes to the new target at once instead of flashing the old channel.
            effects.append(.showCard(Card(requestID: id, channel: target, kind: .tuning, minimum: .zero)))
        } else {
            effects.append(.schedule(.card(requestID: id), at: now + settings.cardDelay))
        }
        flight = next
        return (id, effects)
    }

    /// The decoder of request `requestID` could not start (or its activation gave way).
    public mutating func activationFailed(requestID: RequestID, reason: String) -> [Effect] {
        guard let f = flight, f.id == requestID else {
            // A flip that timed out behind its "no signal" card: its feed will not come back.
            if failedRequest == requestID { shownFeed = nil }
            return []
        }
        return fail(f, failure: .sourceFailed, reason: reason, feedRuns: false)
    }

    /// The first frame of `feed` (request `requestID`) reached the output sink at `at`.
    public mutating func firstFrame(requestID: RequestID, feed: FeedID, path: FlipPath, at: Instant) -> [Effect] {
        if let f = flight, f.id == requestID {
            flight = nil
            var effects: [Effect] = []
            if let old = shownFeed, old != feed { effects.append(.stop(feed: old)) }
            if let c = card {
                effects.append(.event(.cardHidden(requestID: c.requestID, channel: channels[c.channel].summary)))
                card = nil
            }
            effects += liftLock()
            if current != f.target { previous = current }
            current = f.target
            shownFeed = feed
            effects.append(.deliver(FlipResult(requestID: f.id, outcome: .completed, channel: channels[f.target].summary,
                                               latency: at - f.startedAt, path: path, interstitialShown: f.cardShown)))
            effects.append(.committed(current: f.target, previous: previous, played: true))
            if f.request == .recall { effects.append(.resumePosition(feed: feed)) }
            return effects
        }
        if feed == shownFeed, let c = card, c.noSignal {
            // The channel came back behind its "no signal" card.
            card = nil
            return [.event(.cardHidden(requestID: c.requestID, channel: channels[c.channel].summary)),
                    .committed(current: c.channel, previous: previous, played: true)]
        }
        return []
    }

    /// The source of `channel` stalled or failed. When it is the channel on screen and no flip is
    /// on its way, the viewer gets the "no signal" card (with `reason`) instead of a frozen
    /// picture; the channel's next frame takes the card away (`firstFrame` with the shown feed).
    public mutating func signalLost(channel: Int, reason: String) -> [Effect] {
        guard flight == nil, channel == current, shownFeed != nil, card == nil else { return [] }
        let id = RequestID(nextID)
        nextID += 1
        failedRequest = id
        return [.showCard(Card(requestID: id, channel: channel, kind: .noSignal(reason: reason), minimum: settings.cardMinimum))]
    }

    /// A timer set by a `schedule` effect fired. `detail` says what the target's source is doing
    /// (for the "no signal" reason).
    public mutating func timerFired(_ timer: Timer, at now: Instant, detail: String? = nil) -> [Effect] {
        switch timer {
        case .card(let id):
            guard let f = flight, f.id == id, card?.requestID != id else { return [] }
            return [.showCard(Card(requestID: id, channel: f.target, kind: .tuning, minimum: settings.cardMinimum))]
        case .timeout(let id):
            guard let f = flight, f.id == id else { return [] }
            var reason = "no picture within \(settings.tuneTimeout.spoken)"
            if let detail, !detail.isEmpty { reason += ": \(detail)" }
            return fail(f, failure: .timedOut, reason: reason, feedRuns: true)
        }
    }

    /// Whether the card for `requestID` of `kind` should still go on screen (checked by the
    /// driver when the rendered card is ready).
    public func wantsCard(_ c: Card) -> Bool {
        switch c.kind {
        case .tuning: flight?.id == c.requestID
        case .noSignal: flight == nil && failedRequest == c.requestID
        case .locked: lock?.requestID == c.requestID && card?.requestID != c.requestID
        }
    }

    /// The output put the card for `c` on screen.
    public mutating func cardShown(_ c: Card) -> [Effect] {
        guard wantsCard(c) else { return [] }
        if case .tuning = c.kind { flight?.cardShown = true }
        let noSignal: Bool
        if case .noSignal = c.kind { noSignal = true } else { noSignal = false }
        card = (c.requestID, c.channel, noSignal)
        return [.event(.cardShown(requestID: c.requestID, channel: channels[c.channel].summary, kind: c.kind.name))]
    }

    /// The caller of request `requestID` gave up waiting (its task was cancelled).
    public mutating func cancel(requestID: RequestID) -> [Effect] {
        guard let f = flight, f.id == requestID else { return [] }
        flight = nil
        var effects: [Effect] = [.abandon(requestID: f.id), .stop(feed: f.feed)]
        if let shown = shownFeed, card?.noSignal != true {
            effects.append(.restore(feed: shown))
            if let c = card {
                effects.append(.event(.cardHidden(requestID: c.requestID, channel: channels[c.channel].summary)))
                card = nil
            }
        } else if let held = lock, card?.requestID != held.requestID, let reason = locks[held.channel] {
            // The abandoned flip's card covered the lock card: the lock card comes back.
            card = nil
            effects.append(.showCard(Card(requestID: held.requestID, channel: held.channel, kind: .locked(reason: reason), minimum: .zero)))
        }
        effects.append(.deliver(FlipResult(requestID: f.id, outcome: .failed, channel: channels[f.target].summary,
                                           error: "cancelled by the caller", failure: .cancelled,
                                           interstitialShown: f.cardShown)))
        return effects
    }

    /// A channel's source failed (or recovered): next/previous skip failed channels when set to.
    public mutating func channelFailed(_ channel: Int, _ failed: Bool) {
        if failed { failedChannels.insert(channel) } else { failedChannels.remove(channel) }
    }

    /// Whether `channel`'s content is locked now (`reason`, for the viewer) or not (nil): the
    /// parental rules applied to the programme on it, a locked channel, an unlock with the PIN.
    ///
    /// Locking the target of the flip on its way ends that flip `failed(locked)`. Locking the
    /// channel on screen stops its feed at once (no frame, no sound after this) and puts the lock
    /// card up. Unlocking the channel on screen behind its lock card flips to it again: a new
    /// request whose result is delivered like any other.
    public mutating func setLock(channel: Int, reason: String?, at now: Instant) -> [Effect] {
        guard channels.indices.contains(channel), locks[channel] != reason else { return [] }
        locks[channel] = reason
        guard let reason else {
            guard lock?.channel == channel, current == channel, flight == nil else { return [] }
            let lifted = liftLock()
            return lifted + request(.tuneID(channels[channel].summary.id), at: now).effects
        }
        if let f = flight, f.target == channel {
            flight = nil
            // Its decoder may still announce its feed: locked content must not reach the screen.
            var effects: [Effect] = [.abandon(requestID: f.id), .stop(feed: f.feed)]
            if let c = card, c.requestID == f.id {
                effects.append(.event(.cardHidden(requestID: c.requestID, channel: channels[c.channel].summary)))
                card = nil
            }
            return effects + lockOut(channel, requestID: f.id, reason: reason, interstitialShown: f.cardShown)
        }
        guard current == channel else { return [] }
        if let held = lock, held.channel == channel {
            // Still locked, for a new reason: the card says so.
            card = nil
            return [.showCard(Card(requestID: held.requestID, channel: channel, kind: .locked(reason: reason), minimum: .zero))]
        }
        // A programme boundary into locked content on the channel on screen.
        let id = RequestID(nextID)
        nextID += 1
        failedRequest = nil
        var effects: [Effect] = []
        if let c = card, flight == nil {
            effects.append(.event(.cardHidden(requestID: c.requestID, channel: channels[c.channel].summary)))
            card = nil
        }
        if let shown = shownFeed {
            effects.append(.stop(feed: shown))
            shownFeed = nil
        }
        lock = (id, channel)
        effects.append(.showCard(Card(requestID: id, channel: channel, kind: .locked(reason: reason), minimum: .zero)))
        effects.append(.event(.lockShown(channel: channels[channel].summary, reason: reason)))
        return effects
    }

    // MARK: Rules

    /// Request `id` reached locked `target`: no decoder, the old channel's feed stops, the lock
    /// card goes up, and the request ends `failed(locked)`; the viewer is on `target`.
    private mutating func lockOut(_ target: Int, requestID id: RequestID, reason: String, interstitialShown: Bool) -> [Effect] {
        var effects: [Effect] = []
        let summary = channels[target].summary
        if let old = shownFeed {
            effects.append(.stop(feed: old))
            shownFeed = nil
        }
        failedRequest = nil
        if current != target { previous = current }
        current = target
        let shownBefore = lock?.channel == target
        lock = (id, target)
        effects.append(.showCard(Card(requestID: id, channel: target, kind: .locked(reason: reason), minimum: .zero)))
        if !shownBefore { effects.append(.event(.lockShown(channel: summary, reason: reason))) }
        effects.append(.deliver(FlipResult(requestID: id, outcome: .failed, channel: summary,
                                           error: "channel \(summary.number) \(summary.name) is locked: \(reason)",
                                           failure: .locked, interstitialShown: interstitialShown)))
        effects.append(.committed(current: target, previous: previous, played: false))
        return effects
    }

    /// The lock card no longer holds the screen (another picture or card replaces it).
    private mutating func liftLock() -> [Effect] {
        guard let held = lock else { return [] }
        lock = nil
        return [.event(.lockHidden(channel: channels[held.channel].summary))]
    }

    /// `feedRuns`: the flip's feed goes on behind the card (it timed out); false when it never
    /// started.
    private mutating func fail(_ f: Flight, failure: FlipFailure, reason: String, feedRuns: Bool) -> [Effect] {
        flight = nil
        failedRequest = f.id
        var effects: [Effect] = []
        let summary = channels[f.target].summary
        let card = Card(requestID: f.id, channel: f.target, kind: .noSignal(reason: reason), minimum: .zero)
        if let old = shownFeed, old != f.feed { effects.append(.stop(feed: old)) }
        effects += liftLock()
        if current != f.target { previous = current }
        current = f.target
        // A feed that timed out keeps running behind the card: if its source comes back, so does the picture.
        shownFeed = feedRuns ? f.feed : nil
        effects.append(.showCard(card))
        effects.append(.deliver(FlipResult(requestID: f.id, outcome: .failed, channel: summary,
                                           error: "channel \(summary.number) \(summary.name): \(reason)",
                                           failure: failure, interstitialShown: true)))
        effects.append(.committed(current: f.target, previous: previous, played: false))
        return effects
    }

    enum Resolution { case success(Int), failure(FlipFailure, String) }

    func resolve(_ request: FlipRequest, from base: Int?) -> Resolution {
        guard !listed.isEmpty else { return .failure(.nothingToFlipTo, "The lineup has no channels") }
        switch request {
        case .next, .previous:
            let step = request == .next ? 1 : -1
            let count = listed.count
            let group = (current ?? base).flatMap { channels[$0].group }
            let start = base.map { position(of: $0, step: step) } ?? (step == 1 ? count - 1 : 0)
            for k in 1...count {
                let i = listed[((start + step * k) % count + count) % count]
                if i != base || base == nil, eligible(i, group: group) { return .success(i) }
            }
            switch settings.scope {
            case .favourites: return .failure(.nothingToFlipTo, "No other favourite channel")
            case .group: return .failure(.nothingToFlipTo, "No other channel in \(group ?? "this group")")
            case .all: return .failure(.nothingToFlipTo, "No other channel to flip to")
            }
        case .tune(let n):
            guard let i = listed.first(where: { channels[$0].number == n }) else { return .failure(.unknownChannel, "No channel \(n)") }
            return .success(i)
        case .tuneID(let id):
            guard let i = listed.first(where: { channels[$0].summary.id == id }) else { return .failure(.unknownChannel, "No channel with id \(id)") }
            return .success(i)
        case .recall:
            guard let p = previous else { return .failure(.nothingToFlipTo, "No previous channel") }
            guard listed.contains(p) else {
                return .failure(.unknownChannel, "Channel \(channels[p].number) \(channels[p].summary.name) is no longer in the lineup")
            }
            return .success(p)
        }
    }

    /// Where the walk of next/previous starts from `slot`: its place in `listed`; for a channel
    /// no longer listed (still on screen), the place it had by number, so next goes to the
    /// channel numbered after it and previous to the one before.
    private func position(of slot: Int, step: Int) -> Int {
        if let p = listed.firstIndex(of: slot) { return p }
        let below = listed.filter { channels[$0].number < channels[slot].number }.count
        return step == 1 ? below - 1 : below
    }

    private func eligible(_ i: Int, group: String?) -> Bool {
        let c = channels[i]
        if settings.lockedFlip == .skip && locks[i] != nil { return false }
        if settings.skipHidden && c.hidden { return false }
        if settings.skipFailed && failedChannels.contains(i) { return false }
        switch settings.scope {
        case .all: return true
        case .favourites: return c.favourite
        case .group: return group == nil || c.group == group
        }
    }

    private func refusedChannel(_ request: FlipRequest) -> ChannelSummary? {
        switch request {
        case .tune(let n): listed.first { channels[$0].number == n }.map { channels[$0].summary }
        case .tuneID(let id): listed.first { channels[$0].summary.id == id }.map { channels[$0].summary }
        default: nil
        }
    }
}
