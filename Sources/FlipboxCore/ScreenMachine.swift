/// What the screen shows, decided as a value: no clock, no threads, no pipelines.
///
/// The picture is the shown feed, a full-screen card (an interstitial), or a cover over the feed
/// (the multiview). A feed that is expected replaces the picture with its first frame; a card
/// gives way to it, but not before the card's minimum time (the frame waits, held). Above the
/// picture sit the screen's layers (`ScreenLayer`), in z-order. When no frame went out for two
/// frame periods, the last one is repeated, so the output never stops.
///
/// Inputs go in with their time; what to put on screen comes out as `Action`s, which the shell
/// (`OutputPipeline`) carries out after releasing its lock: blend a composition and push it, or
/// push the last frame again. Each composition carries a sequence number; the shell never pushes
/// one older than the last it pushed.
///
/// Generic over the frame and the picture type so the rules are tested without GStreamer.
public struct ScreenMachine<Frame: Sendable, Picture: Sendable>: Sendable {
    /// A frame to compose: `picture` with `overlays` blended in, in order, tagged with `feed`.
    public struct Composition: Sendable {
        public var picture: Frame
        public var overlays: [Picture]
        public var feed: FeedID
        public var sequence: Int
        /// The picture is the full-screen cover (the multiview), not the feed's own frame.
        public var covered = false
    }

    public enum Action: Sendable {
        case compose(Composition)
        /// Push the last pushed frame again (nothing came for two frame periods).
        case repeatLast
    }

    /// The picture under the layers: a frame as it came (channel, card or cover) and the
    /// channel's own pictures (its logo), kept apart so a layer change can recompose it.
    struct Base: Sendable {
        var picture: Frame
        var overlays: [Picture]
        var feed: FeedID
    }

    private struct Shown: Sendable {
        var feed: FeedID?
        var token: RequestID?
        var overlays: [Picture]
    }

    private struct Pending: Sendable {
        var feed: FeedID
        var token: RequestID?
        var overlays: [Picture]
        /// The feed's newest frame, waiting for the card's minimum time.
        var held: Frame?
    }

    public let framePeriod: Duration
    private var shown = Shown(feed: nil, token: nil, overlays: [])
    private var pending: Pending?
    /// The card on screen instead of a feed, and until when it must stay.
    private var card: (frame: Frame, until: ContinuousClock.Instant)?
    private var cover: Frame?
    private var uncoveredBase: Base?
    private var layers: [ScreenLayer: [Picture]] = [:]
    /// The request and pictures of every feed announced and not cancelled, to go back to one.
    private var feeds: [FeedID: (token: RequestID?, overlays: [Picture])] = [:]
    /// Feeds that were on screen before the one shown now, newest last, while they are known: the
    /// screen goes back to one when the feed shown is cancelled (`cancel`).
    private var shownBefore: [FeedID] = []
    /// The newest feeds whose decoders gave out a frame (their first pictures are stale).
    private var decodedFeeds: [FeedID] = []
    /// The newest request the screen was told to expect a feed for, and the newest the switcher
    /// abandoned (superseded or given up before its picture came). Requests are numbered in the
    /// order they came and only one flip is under way at a time, so an `expect` for a request
    /// older than the newest expected, or not newer than the newest abandoned, comes from a flip
    /// the switcher has moved past: it is refused (see `expect`).
    private var newestExpected: RequestID?
    private var newestAbandoned: RequestID?
    private var lastBase: Base
    private var lastPush: ContinuousClock.Instant
    private var sequence = 0

    /// `blank`: the picture before anything is shown.
    public init(framePeriod: Duration, blank: Frame, at now: ContinuousClock.Instant) {
        self.framePeriod = framePeriod
        lastBase = Base(picture: blank, overlays: [], feed: .none)
        lastPush = now
    }

    /// The feed on screen, if a feed is (not a card).
    public var shownFeed: FeedID? { card == nil ? shown.feed : nil }
    public var isCardShown: Bool { card != nil }
    public var isCovered: Bool { cover != nil }

    /// When `tick` next has something to do: the end of a card's minimum time with a frame
    /// waiting, or the moment the picture needs repeating.
    public var nextDeadline: ContinuousClock.Instant {
        let repeatAt = lastPush + framePeriod * 2
        if let pending, pending.held != nil, let card { return min(card.until, repeatAt) }
        return repeatAt
    }

    // MARK: Inputs

    /// Frames of `feed` should replace the picture as soon as the first one arrives, with
    /// `overlays` on them. `token` names the request the feed belongs to (see `showCard`). A newer
    /// `expect` replaces an older pending one. Refused (false, nothing changes) for a request the
    /// switcher has moved past (abandoned, or older than the newest expected): the decoder of a
    /// superseded flip can announce its feed after the switcher moved on, and that feed must not
    /// take the screen from the channel the viewer is on.
    @discardableResult
    public mutating func expect(feed: FeedID, token: RequestID?, overlays: [Picture]) -> Bool {
        if let token {
            if let abandoned = newestAbandoned, token <= abandoned { return false }
            if let newest = newestExpected, token < newest { return false }
            newestExpected = token
        }
        pending = Pending(feed: feed, token: token, overlays: overlays, held: nil)
        feeds[feed] = (token, overlays)
        return true
    }

    /// Request `token` was abandoned (superseded by a newer flip, or its caller gave up) before its
    /// picture came: the feed it expects, now or later, is expected no more. Its feed is cancelled
    /// separately once known (`cancel`).
    public mutating func abandon(_ token: RequestID) {
        if pending?.token == token { pending = nil }
        newestAbandoned = max(newestAbandoned ?? token, token)
    }

    /// Expects `feed` again (its picture was replaced by a card while it stalled): its next frame
    /// replaces the card, with its own pictures. False when the feed is unknown (cancelled).
    public mutating func expectAgain(feed: FeedID) -> Bool {
        guard let known = feeds[feed] else { return false }
        pending = Pending(feed: feed, token: known.token, overlays: known.overlays, held: nil)
        return true
    }

    /// Gives `feed` its own pictures (its logo arrived after its first frame).
    public mutating func setOverlays(_ overlays: [Picture], feed: FeedID) {
        guard let known = feeds[feed] else { return }
        feeds[feed] = (known.token, overlays)
        if pending?.feed == feed { pending?.overlays = overlays }
        if shown.feed == feed { shown.overlays = overlays }
    }

    /// Forgets a feed (its flip failed or was superseded, or it stopped): its frames are never
    /// shown again. If it is on screen, its last picture stays (repeated) until another comes:
    /// the next frame of the feed that was on screen before it, when that one still plays (a
    /// superseded flip whose first frame got on screen before the switcher knew it had one).
    public mutating func cancel(feed: FeedID) {
        if pending?.feed == feed { pending = nil }
        feeds.removeValue(forKey: feed)
        shownBefore.removeAll { $0 == feed }
        guard shown.feed == feed else { return }
        if let back = shownBefore.popLast(), let known = feeds[back] {
            shown = Shown(feed: back, token: known.token, overlays: known.overlays)
        } else {
            shown.feed = nil
        }
    }

    /// Shows `frame` (a full-screen card for request `token`) instead of any channel picture.
    /// Refused (false, nothing changes) when the feed of request `token` is already on screen: a
    /// card never covers the picture it announces. The card gives way to the first frame of the
    /// pending feed, but no earlier than `minimum` from now; a card replacing a card keeps the
    /// older one's minimum time.
    public mutating func showCard(_ frame: Frame, token: RequestID?, minimum: Duration,
                                  at now: ContinuousClock.Instant) -> (shown: Bool, actions: [Action]) {
        if let token, shown.token == token, shown.feed != nil, card == nil { return (false, []) }
        let until = max(card?.until ?? now + minimum, now + minimum)
        card = (frame, until)
        if let covered = shown.feed { remember(covered) }
        shown = Shown(feed: nil, token: token, overlays: [])
        return (true, [show(Base(picture: frame, overlays: [], feed: .none), at: now)])
    }

    /// Shows `feed` again (an abandoned flip: the card, or a frame of the abandoned feed that got
    /// on screen first, gives way to the channel still playing). The feed expected for the
    /// abandoned flip is expected no more: its first frame, late, must not take the screen from
    /// the channel that plays. Nothing happens when `feed` is already shown with no card and no
    /// flip pending, or was cancelled.
    public mutating func restore(feed: FeedID) {
        guard shown.feed != feed || card != nil || pending != nil, let known = feeds[feed] else { return }
        card = nil
        pending = nil
        // The feed it replaces (an abandoned flip's) is no screen to go back to.
        shownBefore.removeAll { $0 == feed }
        shown = Shown(feed: feed, token: known.token, overlays: known.overlays)
    }

    /// Sets one layer's pictures (empty removes the layer) and shows the change at once, also on
    /// a still picture.
    public mutating func setLayer(_ layer: ScreenLayer, _ pictures: [Picture], at now: ContinuousClock.Instant) -> [Action] {
        if pictures.isEmpty { layers.removeValue(forKey: layer) } else { layers[layer] = pictures }
        return [compose(lastBase, at: now)]
    }

    /// Sets one layer's pictures like `setLayer`, but shows them with the next channel frame
    /// instead of composing again, unless no frame went out for a frame period (a still
    /// picture). For layers that change every frame (the picture-in-picture window).
    public mutating func updateLayer(_ layer: ScreenLayer, _ pictures: [Picture], at now: ContinuousClock.Instant) -> [Action] {
        if pictures.isEmpty { layers.removeValue(forKey: layer) } else { layers[layer] = pictures }
        return now - lastPush >= framePeriod ? [compose(lastBase, at: now)] : []
    }

    /// Covers the picture with a full-screen `frame` (the multiview), or uncovers it with nil.
    /// While covered, channel frames are not composed (their sound plays on); the layers are
    /// still drawn above the cover.
    public mutating func setCover(_ frame: Frame?, at now: ContinuousClock.Instant) -> [Action] {
        if let frame {
            if cover == nil { uncoveredBase = lastBase }
            cover = frame
            return [compose(Base(picture: frame, overlays: [], feed: lastBase.feed), at: now)]
        }
        guard cover != nil else { return [] }
        cover = nil
        let base = uncoveredBase ?? lastBase
        uncoveredBase = nil
        return [compose(base, at: now)]
    }

    /// A decoded frame of `feed` arrived. A `still` (a radio channel's card, its only picture)
    /// replaces a card before the card's minimum time is over: a card giving way to a card shows
    /// no picture too briefly, and the channel's sound, which plays only with its picture on
    /// screen, starts when it comes instead of when the tuning card's minimum ends.
    ///
    /// A `firstPicture` (the keyframe the feed starts from, decoded on the side while its decoder
    /// starts) is stale once the feed's decoder gave out a frame: it is dropped then.
    public mutating func videoFrame(_ frame: Frame, feed: FeedID, at now: ContinuousClock.Instant, still: Bool = false,
                                    firstPicture: Bool = false) -> [Action] {
        if firstPicture {
            guard !decodedFeeds.contains(feed) else { return [] }
        } else if !decodedFeeds.contains(feed) {
            decodedFeeds.append(feed)
            if decodedFeeds.count > 16 { decodedFeeds.removeFirst() }
        }
        if feed == pending?.feed {
            if !still, let card, now < card.until {
                pending?.held = frame
                return []
            }
            promotePending()
        }
        guard feed == shown.feed, card == nil else { return [] }
        return [show(Base(picture: frame, overlays: shown.overlays, feed: feed), at: now)]
    }

    /// Whether audio of `feed` plays: only the feed on screen's (not under a card).
    public func playsAudio(of feed: FeedID) -> Bool { feed == shown.feed }

    /// Time passed: a held frame whose card's minimum time is over goes on screen; a picture
    /// nothing replaced for two frame periods is repeated.
    public mutating func tick(at now: ContinuousClock.Instant) -> [Action] {
        var actions: [Action] = []
        if let waiting = pending, let held = waiting.held, let card, now >= card.until {
            promotePending()
            actions.append(show(Base(picture: held, overlays: waiting.overlays, feed: waiting.feed), at: now))
        }
        if now - lastPush >= framePeriod * 2 {
            lastPush = now
            actions.append(.repeatLast)
        }
        return actions
    }

    // MARK: Rules

    /// The pending feed becomes the shown one; a card gives way.
    private mutating func promotePending() {
        guard let p = pending else { return }
        if let before = shown.feed, before != p.feed { remember(before) }
        shownBefore.removeAll { $0 == p.feed }
        shown = Shown(feed: p.feed, token: p.token, overlays: p.overlays)
        pending = nil
        card = nil
    }

    /// Notes that `feed` was on screen before the one about to be shown (a few at most: the
    /// switcher stops an old feed once its successor is on screen).
    private mutating func remember(_ feed: FeedID) {
        shownBefore.removeAll { $0 == feed }
        shownBefore.append(feed)
        if shownBefore.count > 8 { shownBefore.removeFirst() }
    }

    /// Puts `base` on screen, or, while the picture is covered, remembers it for when the cover
    /// goes (the cover is composed again, tagged with the base's feed).
    private mutating func show(_ base: Base, at now: ContinuousClock.Instant) -> Action {
        guard let cover else { return compose(base, at: now) }
        uncoveredBase = base
        return compose(Base(picture: cover, overlays: [], feed: base.feed), at: now)
    }

    private mutating func compose(_ base: Base, at now: ContinuousClock.Instant) -> Action {
        lastBase = base
        lastPush = now
        sequence += 1
        let all = base.overlays + ScreenLayer.ordered(layers)
        return .compose(Composition(picture: base.picture, overlays: all, feed: base.feed, sequence: sequence, covered: cover != nil))
    }
}

/// A picture above the channel with a place in the z-order: the info banner, the
/// picture-in-picture window, the channel number being typed, a message. New overlays (a guide
/// grid, a lock card, a timeshift bar, subtitles) declare a layer of their own with a `z`
/// and use `OutputPipeline.setLayer`; nothing else in the output changes.
public struct ScreenLayer: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let name: String
    public let z: Int
    public init(_ name: String, z: Int) {
        self.name = name
        self.z = z
    }

    public var description: String { name }
    public static func < (a: ScreenLayer, b: ScreenLayer) -> Bool { (a.z, a.name) < (b.z, b.name) }

    /// A second channel in a corner window.
    public static let pictureInPicture = ScreenLayer("picture-in-picture", z: 10)
    /// The info banner.
    public static let banner = ScreenLayer("banner", z: 20)
    /// "Up next: TITLE at 20:00".
    public static let upNext = ScreenLayer("up-next", z: 22)
    /// The channel number being typed.
    public static let entry = ScreenLayer("entry", z: 30)
    /// The PIN being typed on the lock card (dots).
    public static let pinEntry = ScreenLayer("pin-entry", z: 35)
    /// "TITLE starts now on 5 — OK to watch".
    public static let proposal = ScreenLayer("proposal", z: 38)
    /// A short message, such as "No channel 42".
    public static let message = ScreenLayer("message", z: 40)

    /// Every layer's pictures, bottom layer first.
    public static func ordered<P>(_ layers: [ScreenLayer: [P]]) -> [P] {
        layers.keys.sorted().flatMap { layers[$0] ?? [] }
    }
}
