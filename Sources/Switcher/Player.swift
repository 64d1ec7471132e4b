import FlipboxCore
import Foundation
import GStreamer
import Headend
import Lineup
import Logging
import Synchronization
import Output
import Parental

/// Settings of a player.
public struct PlayerOptions: Sendable {
    public var sink: OutputSink
    public var width: Int
    public var height: Int
    public var fps: Int
    public var warm: WarmPolicy
    /// At most how many channels run and how much GOP cache they hold.
    public var warmBudget = WarmBudget()
    /// The pools of streams, their given limits and where learned limits are kept.
    public var pools = PoolSettings()
    public var logo: LogoPlacement
    /// Card timing, tune timeout, skips and flip scope.
    public var switcher: SwitcherSettings
    public var startChannel: ChannelNumber?
    /// The directory of the card templates (`Interstitials/`); nil uses the built-in cards.
    public var interstitials: String?
    /// Where the last channel is remembered; nil remembers nothing.
    public var stateFile: String?
    /// Channels that are always locked (the lock card, until unlocked with the PIN).
    public var locked: Set<ChannelNumber>
    /// The parental rules (`parental:` settings): content rated above them is locked.
    public var parental = ParentalRules()
    /// Where the PIN and the wrong-PIN count are kept; nil: beside `stateFile`.
    public var pinDirectory: String? = nil
    /// How long a message ("No channel 42") stays on screen.
    public var messageDuration: Duration
    /// How long the info banner stays after a flip, in seconds (0: not after flips); the
    /// executable resolves it from `--banner-seconds` and the lineup's `banner-seconds`.
    public var bannerSeconds: Double = 4
    /// Pause and rewind on the channel shown; nil: off.
    public var timeshift: TimeshiftSettings? = nil

    /// How long before a programme ends "Up next" shows (0: never).
    public var upNextSeconds: Double = 60

    /// The device, connector and mode for the kms sink (found by probing the display); nil
    /// leaves them to kmssink.
    public var kms: KMSTarget? = nil
    /// The ALSA device the sound goes to; nil: the default one.
    public var audioDevice: AudioDevice? = nil
    /// The window output covers the screen with no cursor (`--fullscreen`).
    public var fullscreen = false
    /// Every channel's sound brought to one loudness (`--normalize-audio`, `normalize-audio`).
    public var normalizeAudio = false
    /// Sound sent on undecoded, in IEC 61937 bursts, for the receiver behind HDMI to decode
    /// (`--audio-passthrough`, `audio-passthrough`).
    public var audioPassthrough = AudioPassthrough.off

    /// A flip that shows no frame within this time fails.
    public var tuneTimeout: Duration {
        get { switcher.tuneTimeout }
        set { switcher.tuneTimeout = newValue }
    }

    public init(sink: OutputSink = .headless, width: Int = 1280, height: Int = 720, fps: Int = 30,
                warm: WarmPolicy = .all, logo: LogoPlacement = LogoPlacement(),
                tuneTimeout: Duration = .seconds(8), startChannel: ChannelNumber? = nil,
                switcher: SwitcherSettings? = nil, interstitials: String? = nil, stateFile: String? = nil,
                locked: Set<ChannelNumber> = [], messageDuration: Duration = .milliseconds(2500)) {
        self.sink = sink
        self.width = width
        self.height = height
        self.fps = fps
        self.warm = warm
        self.logo = logo
        self.switcher = switcher ?? SwitcherSettings(tuneTimeout: tuneTimeout)
        self.startChannel = startChannel
        self.interstitials = interstitials
        self.stateFile = stateFile
        self.locked = locked
        self.messageDuration = messageDuration
    }
}

/// The channel-flipping player: lineup in, one output out.
///
/// Every flip gets a request id and exactly one `FlipResult`: `completed` when the target's
/// first frame reached the output sink, `failed` with a reason, or `superseded` when a newer
/// request retargeted it (a held key). Requests are relative to the newest target, so ten
/// quick "next" presses land ten channels on.
///
/// The rules live in `SwitcherMachine` (pure, tested with a manual clock); the player carries
/// out its effects: decoders, the output, cards, timers, events and the remembered channel.
public actor Player {
    /// The lineup as the box plays it now (read at start, and each later reading taken in place:
    /// `take(_:slots:)`); channel indices everywhere are its slots.
    public nonisolated var lineup: Lineup { lineupBox.withLock { $0 } }
    nonisolated let lineupBox: Mutex<Lineup>
    public nonisolated let options: PlayerOptions
    nonisolated let output: OutputPipeline
    nonisolated let headend: Headend
    nonisolated let cards: InterstitialCards
    nonisolated let hub = EventHub<PlayerEvent>()
    let logoCache: LogoCache
    /// The banner's, the picture-in-picture window's and the multiview's rules (Player+Overlays.swift).
    var banner: BannerMachine
    var pip = PiPMachine()
    var multiview = MultiviewMachine()
    /// The picture-in-picture window, made when first opened.
    var pipWindow: PictureInPictureWindow?
    private let store: LastChannelStore?
    /// The media side's reports (source states, activations, first frames, timeshift disks),
    /// drained in order by one loop (`take`).
    private let reports: MediaReports
    /// The request each expected feed's first frame completes, and the path its activation
    /// reported (Player.swift: `activate`, `take`).
    private var flipFeeds: [FeedID: RequestID] = [:]
    private var feedPaths: [FeedID: FlipPath] = [:]
    nonisolated let programmes: (any ProgrammeGuide)?
    nonisolated let reminders: (any ReminderBook)?
    /// The guide's record keys (`setGuideRecording`); nil: the box keeps no recordings.
    var guideRecording: (any GuideRecording)?
    /// The box's recordings to play back (`setRecordingShelf`); nil: none kept.
    var recordingShelf: (any RecordingShelf)?
    /// Flips that put a recording on screen, until their activation (Player+RecordingPlayback.swift).
    var recordingFlips: [RequestID: (playback: RecordingPlayback, from: Date)] = [:]
    /// Where the on-screen list of recordings is, while it is open (Player+RecordingList.swift).
    var recordingList: RecordingListNavigator?
    /// Programme changes, up next and proposals on screen (Player+Programmes.swift).
    var watch: ProgrammeWatch
    /// Where the on-screen guide is, while it is open (Player+GuideGrid.swift).
    var guideNavigator: GuideNavigator?
    let logger: Logger
    private let startedAt = ContinuousClock.now

    var machine: SwitcherMachine
    /// The channel of each recent feed on screen, to name them in the output's records.
    var feedChannels = FeedChannels()
    private var waiters: [RequestID: CheckedContinuation<FlipResult, Never>] = [:]
    private var lastFlip: FlipResult?
    /// In TV standby (Player+Standby.swift): every channel cold, the output black.
    var standingBy = false
    /// Asynchronous work under its purpose (see `PlayerJob`).
    private var jobs = Jobs<PlayerJob>()
    /// Which channels' content is locked now, and until when (Player+Parental.swift).
    var contentLocks: ContentLocks
    /// Checks PINs under the wrong-PIN rule; nil without a state directory.
    nonisolated let pinGate: PINGate?

    /// A player that drives `parts` (built by the executable's composition root, or by
    /// `PlayerParts.make`). `programmes`: what is on (the XMLTV guide), for the banner, the cards
    /// and the status; `reminders`: the viewer's reminders, proposed when their programme starts.
    public init(lineup: Lineup, options: PlayerOptions, parts: PlayerParts,
                programmes: (any ProgrammeGuide)? = nil, reminders: (any ReminderBook)? = nil, logger: Logger) {
        lineupBox = Mutex(lineup)
        self.programmes = programmes
        self.reminders = reminders
        watch = ProgrammeWatch(upNextLead: options.upNextSeconds > 0 ? options.upNextSeconds : -1)
        self.options = options
        self.logger = logger
        output = parts.output
        headend = parts.headend
        cards = parts.cards
        logoCache = parts.logoCache
        store = parts.store
        pinGate = parts.pinGate
        banner = BannerMachine(afterFlip: Self.bannerDuration(options: options))
        machine = SwitcherMachine(channels: lineup.channels.map { SwitcherMachine.ChannelInfo($0) }, listed: lineup.listed, settings: options.switcher)
        contentLocks = ContentLocks(rules: options.parental, channels: lineup.channels, locked: options.locked)
        reports = parts.reports
        // One loop takes the reports in the order they were sent: a first frame never overtakes
        // its feed's activation or a later state change. It ends with the stream (shutdown).
        Task { [weak self, stream = parts.reports.stream] in
            for await report in stream {
                guard let self else { return }
                await self.take(report)
            }
        }
    }

    /// A player with the standard parts for `lineup` and `options` (`PlayerParts.make`).
    public init(lineup: Lineup, options: PlayerOptions, logoCache: LogoCache = LogoCache(),
                programmes: (any ProgrammeGuide)? = nil, reminders: (any ReminderBook)? = nil, logger: Logger) throws {
        self.init(lineup: lineup, options: options, parts: try PlayerParts.make(lineup: lineup, options: options, logoCache: logoCache, logger: logger),
                  programmes: programmes, reminders: reminders, logger: logger)
    }

    /// The channel to start on: the option, else the remembered channel, else the first.
    public nonisolated func startIndex() -> Int {
        if let n = options.startChannel, let i = lineup.index(of: n) { return i }
        if let i = store?.storedIndex(in: lineup) { return i }
        return 0
    }

    /// Starts the output and the warm channels, then tunes the start channel (not awaited).
    public func start() async throws {
        guard !lineup.channels.isEmpty else { throw Failure<FlipFailure>(.nothingToFlipTo, "the lineup has no channels: nothing to play") }
        try await output.start()
        await headend.setTimeshift(options.timeshift)
        let start = startIndex()
        await headend.applyPolicy(current: start, last: nil)
        let number = lineup.channels[start].number
        startParental()
        remindersChanged()
        Task { _ = await self.flip(.tune(number)) }
        // Then, without holding up the first picture: every channel's logo (decoded once, so no
        // later flip waits for one), and the SVG renderer with its fonts (so the first card
        // that counts does not pay for loading them).
        let output = self.output, channels = lineup.channels, cards = self.cards
        Task.detached(priority: .background) {
            await output.makeLogos(of: channels)
            _ = await cards.render(template: nil, fields: CardFields(number: "0", name: "warm-up"))
        }
    }

    public func shutdown() async {
        guideNavigator = nil
        // A recording playing now is left where it stands: the next play resumes there.
        for (id, at) in await headend.recordingsPlaying() { recordingShelf?.setResumePosition(of: id, at) }
        jobs.cancelAll()
        await shutdownOverlays()
        await headend.shutdown()
        await output.shutdown()
        await store?.flush()
        reports.finish()
        hub.finish()
    }

    // MARK: Flipping

    /// Flips and returns the single result of this request. If the calling task is cancelled,
    /// the flip is abandoned and its result is `failed` with `cancelled`.
    public func flip(_ request: FlipRequest) async -> FlipResult {
        await flip(request, recording: nil)
    }

    /// A flip; with `recording`, to a recording of the channel played back from a moment.
    func flip(_ request: FlipRequest, recording: (playback: RecordingPlayback, from: Date)?) async -> FlipResult {
        syncFailedChannels()
        let (id, effects) = machine.request(request, at: .now)
        logger.debug("flip \(id) \(request)")
        if let recording { recordingFlips[id] = recording }
        defer { recordingFlips[id] = nil }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<FlipResult, Never>) in
                waiters[id] = continuation
                perform(effects)
            }
        } onCancel: {
            Task { await self.cancel(requestID: id) }
        }
        return result
    }

    /// The same flip, for callers outside Swift concurrency: `completion` runs exactly once.
    public nonisolated func flip(_ request: FlipRequest, completion: @escaping @Sendable (FlipResult) -> Void) {
        Task { completion(await self.flip(request)) }
    }

    public func next() async -> FlipResult { await flip(.next) }
    public func previous() async -> FlipResult { await flip(.previous) }
    public func tune(number: ChannelNumber) async -> FlipResult { await flip(.tune(number)) }
    public func tune(id: String) async -> FlipResult { await flip(.tuneID(id)) }
    public func recall() async -> FlipResult { await flip(.recall) }

    private func cancel(requestID: RequestID) {
        perform(machine.cancel(requestID: requestID))
    }

    /// Lets next/previous skip channels whose source failed.
    private func syncFailedChannels() {
        for (i, state) in headend.states().enumerated() {
            if case .failed = state { machine.channelFailed(i, true) } else { machine.channelFailed(i, false) }
        }
    }

    /// Carries out the machine's effects, in order, on the actor. Work that has to wait (a
    /// decoder starting, a card rendering, a timer) runs as a job under its purpose and reports
    /// back to the machine; nothing is fired and forgotten.
    func perform(_ effects: [SwitcherMachine.Effect]) {
        for effect in effects {
            switch effect {
            case .activate(let id, let channel, let feed):
                bannerFlipStarted()
                flipFeeds[feed] = id
                // The feeds stopped before it (a superseded flip's) are let go at the head-end
                // before it asks for its channel: their streams are free for it in a full pool.
                let stopping = jobs.tasks(where: { if case .deactivation = $0 { true } else { false } })
                startJob(.activation(id)) { player in
                    for task in stopping { await task.value }
                    await player.activate(requestID: id, channel: channel, feed: feed)
                }
                switch headend.sources[channel].state {
                case .warm, .hot: break
                default:
                    // A channel that is not warm will need its card: render it now, so it is ready at the delay.
                    let card = SwitcherMachine.Card(requestID: id, channel: channel, kind: .tuning, minimum: .zero)
                    startJob(.prerender(id)) { _ = await $0.cardFrame(card) }
                }
            case .abandon(let id):
                output.abandon(request: id)
            case .stop(let feed):
                // A flip's activation still on its way is withdrawn: one waiting for a stream
                // gives way (it opens nothing), and the deactivation stops what it started.
                if let id = flipFeeds[feed] { jobs.cancel(.activation(id)) }
                forget(feed: feed)
                output.cancel(feed: feed)
                startJob(.deactivation(feed)) { await $0.headend.deactivate(feed: feed) }
            case .showCard(let card):
                startJob(.card) { await $0.renderAndShow(card) }
            case .restore(let feed):
                output.restore(feed: feed)
            case .schedule(let timer, let deadline):
                startJob(.timer(timer)) { player in
                    try? await Task.sleep(until: deadline, clock: .continuous)
                    await player.fire(timer)
                }
            case .deliver(let result):
                jobs.cancel(.timer(.card(requestID: result.requestID)))
                jobs.cancel(.timer(.timeout(requestID: result.requestID)))
                deliver(result)
            case .message(let text):
                showMessage(text)
            case .committed(let current, _, let played):
                // A newer plan replaces one still being applied: each applies the newest state.
                startJob(.warmPolicy) { await $0.applyWarmPolicy() }
                watchProgrammes()
                if played, let store {
                    let channel = lineup.channels[current]
                    let logger = self.logger
                    store.save(.init(id: channel.id, number: channel.number.description, lineup: lineup.file)) { logger.warning("\($0)") }
                }
            case .resumePosition(let feed):
                if options.timeshift?.resumePosition == true {
                    startJob(.resumePosition) { await $0.resumeLeftPosition(feed: feed) }
                }
            case .event(let event):
                hub.publish(PlayerEvent(event))
                switch event {
                case .cardShown(let id, let channel, let kind):
                    logger.info("flip \(id): \(kind) card shown for \(channel.number) \(channel.name)")
                case .cardHidden(let id, let channel):
                    logger.debug("flip \(id): card for \(channel.number) hidden")
                case .flipRetargeted(let id, let target):
                    logger.debug("flip \(id) retargeted to \(target.number)")
                case .lockShown(let channel, let reason):
                    logger.info("\(channel.number) \(channel.name) is locked: \(reason)")
                case .lockHidden:
                    showPINEntry(nil)
                default: break
                }
            }
        }
    }

    /// Starts `body` as the job for `purpose` (cancelling the one before it); it forgets itself
    /// when it ends.
    func startJob(_ purpose: PlayerJob, _ body: @escaping @Sendable (Player) async -> Void) {
        jobs.start(purpose) { [weak self] serial in
            guard let self else { return }
            await body(self)
            await self.jobFinished(purpose, serial: serial)
        }
    }

    /// Cancels the job for `purpose`, if any.
    func cancelJob(_ purpose: PlayerJob) {
        jobs.cancel(purpose)
    }

    private func jobFinished(_ purpose: PlayerJob, serial: Int) {
        jobs.finished(purpose, serial: serial)
    }

    /// Jobs running now (for the leak checks).
    var runningJobs: Int { jobs.count }

    /// A channel's source changed state (from the headend): the channel on screen that stalls
    /// or fails shows "no signal" instead of a frozen picture.
    fileprivate func sourceStateChanged(_ channel: Channel, _ state: ChannelState) {
        guard let index = lineup.channels.firstIndex(where: { $0.id == channel.id }) else { return }
        switch state {
        case .stalled(let reason): perform(machine.signalLost(channel: index, reason: reason))
        case .failed(let error): perform(machine.signalLost(channel: index, reason: error))
        default: break
        }
    }

    /// The slot of the channel at `position` in the lineup as it reads now, in number order
    /// (`Lineup.listed`; wrapping, as channel up and down do): what the guide's rows, the
    /// multiview's tiles and the window's next channel count in.
    nonisolated func listedSlot(_ position: Int) -> Int {
        let listed = lineup.listed
        guard !listed.isEmpty else { return 0 }
        return listed[(position % listed.count + listed.count) % listed.count]
    }

    /// Where the channel in `slot` is in the lineup as it reads now; nil when it is no longer in it.
    nonisolated func listedPosition(_ slot: Int) -> Int? {
        let lineup = self.lineup
        return lineup.isListed(slot) ? lineup.listed.firstIndex(of: slot) : nil
    }

    /// What is on `channel` now and next (nothing without a guide).
    nonisolated func nowNext(_ channel: Channel, at instant: Date = Date()) -> NowNext {
        programmes?.nowNext(channelID: channel.id, at: instant) ?? .unknown
    }

    private func applyWarmPolicy() async {
        await headend.applyPolicy(current: machine.current, last: machine.previous)
    }

    private func activate(requestID id: RequestID, channel index: Int, feed: FeedID) async {
        // Superseded while the feeds stopped before it were let go.
        guard machine.pending?.requestID == id else { return }
        let channel = lineup.channels[index]
        prepareRadioCard(index)
        logger.info("flip \(id) -> \(channel.number) \(channel.name)")
        // The feed is the flip's (the machine named it): the output expects it (with the
        // channel's logo) before the head-end can make a frame of it.
        output.expect(feed: feed, token: id, channel: channel)
        do {
            _ = try await headend.activate(channel, feed: feed, sink: output, recording: recordingFlips.removeValue(forKey: id))
            feedChannels.record(feed: feed, channel: channel.number)
        } catch {
            forget(feed: feed)
            output.cancel(feed: feed)
            perform(machine.activationFailed(requestID: id, reason: "\(error)"))
        }
    }

    /// Waits until the feeds being stopped are (a recording's playback is left, its place kept).
    /// (An activation waits only for those stopped before it: `perform(.activate)`.)
    func deactivationsDone() async {
        for task in jobs.tasks(where: { if case .deactivation = $0 { true } else { false } }) { await task.value }
    }

    /// Takes one report of the media side (in the order they were sent).
    private func take(_ report: MediaReport) async {
        switch report {
        case .sourceState(let channel, let state):
            hub.publish(.channelState(channel: ChannelSummary(channel), state: state))
            sourceStateChanged(channel, state)
        case .activated(let feed, let path):
            if flipFeeds[feed] != nil { feedPaths[feed] = path }
        case .firstFrame(let feed, let at):
            guard let id = flipFeeds.removeValue(forKey: feed) else { return }
            firstFrame(requestID: id, feed: feed, path: feedPaths.removeValue(forKey: feed) ?? .hot, at: at)
        case .timeshiftDisk(let channel):
            await timeshiftDiskChanged(channel)
        case .recordingEnded(let feed, let title, let failure):
            await recordingEnded(feed: feed, title: title, failure: failure)
        case .recordingLeft(let id, let at):
            recordingShelf?.setResumePosition(of: id, at)
        }
    }

    /// Forgets what was kept for `feed`'s first frame (it stopped, or never started).
    private func forget(feed: FeedID) {
        flipFeeds[feed] = nil
        feedPaths[feed] = nil
    }

    fileprivate func firstFrame(requestID: RequestID, feed: FeedID, path: FlipPath, at: ContinuousClock.Instant) {
        perform(machine.firstFrame(requestID: requestID, feed: feed, path: path, at: at))
        // A cold radio channel is known as radio only once its streams are: its card now.
        if let current = machine.current { prepareRadioCard(current) }
    }

    private func fire(_ timer: SwitcherMachine.Timer) {
        // Cancelled while it slept: the request it was for has its result.
        guard !Task.isCancelled else { return }
        var detail: String?
        if case .timeout = timer, let target = machine.pending?.channel {
            let state = headend.sources[target].state
            detail = state.reason ?? (state == .connecting ? "still connecting" : nil)
        }
        perform(machine.timerFired(timer, at: .now, detail: detail))
    }

    private func renderAndShow(_ card: SwitcherMachine.Card) async {
        let t0 = ContinuousClock.now
        let frame = await cardFrame(card)
        logger.debug("flip \(card.requestID): card for \(lineup.channels[card.channel].number) ready in \(String(format: "%.1f", (ContinuousClock.now - t0).milliseconds)) ms")
        // Still wanted? (The picture may have come, or a newer flip may have taken over.)
        guard !Task.isCancelled, machine.wantsCard(card) else { return }
        if output.showCard(frame, token: card.requestID, minimum: card.minimum) {
            perform(machine.cardShown(card))
            if case .noSignal = card.kind, machine.pending == nil, let shown = machine.shownFeed {
                // The channel on screen lost its signal: its next frame takes the card away.
                flipFeeds[shown] = card.requestID
                feedPaths[shown] = .hot
                output.expectAgain(feed: shown)
            }
        }
    }

    /// The rendered card (cached by its text, so a pre-rendered one comes back at once), with
    /// what is on at `instant`.
    func cardFrame(_ card: SwitcherMachine.Card, at instant: Date = Date()) async -> Buffer {
        let channel = lineup.channels[card.channel]
        let logoPath: String? = if let logo = channel.logo { try? await logoCache.localPath(for: logo) } else { nil }
        let template: String?
        let status: String
        switch card.kind {
        case .tuning:
            template = channel.interstitial ?? channel.group.flatMap { lineup.settings.groupInterstitials[$0] } ?? lineup.settings.interstitial
            status = Self.tuningStatus(headend.sources[card.channel].state)
        case .noSignal(let reason):
            template = InterstitialCards.noSignalName
            status = reason
        case .locked(let reason):
            template = InterstitialCards.lockName
            status = reason
        }
        let on = nowNext(channel, at: instant)
        let fields = CardFields(number: channel.number.description, name: channel.name, group: channel.group ?? "",
                                logoPath: logoPath, status: status, programmes: on.cardFields)
        return await cards.render(template: template, fields: fields)
    }

    static func tuningStatus(_ state: ChannelState) -> String {
        switch state {
        case .stalled(let reason): "Waiting for the signal: \(reason)"
        case .failed(let error): "Retrying: \(error)"
        case .warm, .hot: "Tuning…"
        default: "Connecting…"
        }
    }

    private func deliver(_ result: FlipResult) {
        if result.outcome != .superseded { lastFlip = result }
        hub.publish(.flipCompleted(result))
        if result.outcome == .completed { overlaysAfterFlip(result) }
        let card = result.interstitialShown ? ", card shown" : ""
        switch result.outcome {
        case .completed:
            logger.info("flip \(result.requestID) completed on \(result.channel?.number ?? "?") in \(String(format: "%.1f", result.latencyMilliseconds ?? 0)) ms (\(result.path?.rawValue ?? "?")\(card))")
        case .failed:
            logger.warning("flip \(result.requestID) failed: \(result.error ?? "")")
        case .superseded:
            logger.debug("flip \(result.requestID) superseded by \(result.supersededBy?.description ?? "?")")
        }
        waiters.removeValue(forKey: result.requestID)?.resume(returning: result)
    }

    // MARK: On-screen text

    /// Shows a message over the picture for `options.messageDuration` (replacing the one shown).
    public func showMessage(_ text: String) {
        let output = self.output
        let duration = options.messageDuration
        startJob(.message) { player in
            let overlay = await Self.renderText(text, style: .message, output: output)
            guard let overlay, await player.land(.message, [overlay]) else { return }
            try? await Task.sleep(for: duration)
            _ = await player.land(.message, [])
        }
    }

    /// Shows the channel number being typed (`12_`), or hides it with nil.
    public func showEntry(_ text: String?) {
        guard let text else {
            jobs.cancel(.entry)
            output.setLayer(.entry, [])
            return
        }
        let output = self.output
        startJob(.entry) { player in
            guard let overlay = await Self.renderText(text + "_", style: .entry, output: output) else { return }
            _ = await player.land(.entry, [overlay])
        }
    }

    /// Puts a job's pictures on `layer`, unless the job was replaced or cancelled meanwhile.
    private func land(_ layer: ScreenLayer, _ overlays: [Overlay]) -> Bool {
        guard !Task.isCancelled else { return false }
        output.setLayer(layer, overlays)
        return true
    }

    private static func renderText(_ text: String, style: OnScreenText.Style, output: OutputPipeline) async -> Overlay? {
        await render { try OnScreenText.overlay(text, style: style, width: output.width, height: output.height) }
    }

    // MARK: State

    public func status() -> PlayerStatus {
        PlayerStatus(channel: machine.current.map { lineup.channels[$0] },
                     output: OutputFormat(width: options.width, height: options.height, fps: options.fps, sink: options.sink.rawValue),
                     uptime: ContinuousClock.now - startedAt, lastFlip: lastFlip, resources: .current(),
                     programmes: machine.current.map { nowNext(lineup.channels[$0]) },
                     media: machine.current.flatMap { headend.media(of: lineup.channels[$0]) }, lock: machine.lockedOnScreen?.reason,
                     pools: headend.pools())
    }

    /// Every channel: its state, what it carries, what is on (with a guide) and whether it is locked.
    public func channels() -> [ChannelStatus] {
        let now = Date()
        let lineup = self.lineup, states = headend.states()
        return lineup.listed.map { i in
            let channel = lineup.channels[i]
            return ChannelStatus(channel: channel, state: states.indices.contains(i) ? states[i] : .cold, media: headend.media(of: channel),
                                 programmes: programmes == nil ? nil : nowNext(channel, at: now), lock: machine.locks[i])
        }
    }

    public nonisolated func snapshotPNG(width: Int?) async throws -> [UInt8] {
        // Encoded on the still-image thread, whoever asks: a PNG of the output takes tens of
        // milliseconds, which on a thread of the concurrency pool (two on a 2-core box) would hold
        // up the switcher and everything else that awaits.
        let output = self.output
        return try await StillImageExecutor.shared.run { try output.snapshotPNG(width: width) }
    }

    public nonisolated func events() -> AsyncStream<PlayerEvent> { hub.subscribe() }

    /// Publishes `event` on the event stream.
    nonisolated func publish(_ event: PlayerEvent) { hub.publish(event) }

    /// The output feed of the channel on screen (for the benchmark's per-flip timing).
    public var shownFeedID: FeedID? { machine.shownFeed }

    /// Which channels next/previous visit; takes effect at the next flip. Says so on screen.
    public func setFlipScope(_ scope: FlipScope) {
        machine.settings.scope = scope
        logger.info("next/previous now visit: \(scope)")
        switch scope {
        case .all: showMessage("All channels")
        case .favourites: showMessage("Favourites only")
        case .group:
            let group = machine.current.flatMap { lineup.channels[$0].group }
            showMessage(group.map { "Only \($0)" } ?? "Only this group")
        }
    }

    /// All → favourites → group → all.
    public func cycleFlipScope() -> FlipScope {
        let next: FlipScope = switch machine.settings.scope {
        case .all: .favourites
        case .favourites: .group
        case .group: .all
        }
        setFlipScope(next)
        return next
    }

    public var flipScope: FlipScope { machine.settings.scope }
}

/// What a job of the player is for; a new job for the same purpose replaces the old one.
enum PlayerJob: Hashable, Sendable {
    /// Starting the decoder of a flip.
    case activation(RequestID)
    /// Rendering the card of a flip to a channel that is not warm, ahead of its delay.
    case prerender(RequestID)
    /// Rendering and showing the card on screen.
    case card
    /// A switcher timer.
    case timer(SwitcherMachine.Timer)
    /// Stopping the decoder of a feed no longer shown.
    case deactivation(FeedID)
    /// Applying the warm plan around the channel on screen.
    case warmPolicy
    /// The message over the picture, and its time on screen.
    case message
    /// The timeshift position bar, and its time on screen.
    case positionBar
    /// Taking a recalled channel back to where the viewer left it in time.
    case resumePosition
    /// The channel number being typed.
    case entry
    /// Rendering the card of a radio channel (its picture while its sound plays).
    case radioCard(Int)
    /// Looking at the locks again at the next moment one may change (a programme boundary).
    case locks
    /// Rendering the lock card ahead of a boundary into locked content on the channel on screen.
    case prerenderLock
    /// The PIN dots on the lock card.
    case pinEntry
    /// Closing the picture-in-picture window whose channel turned locked.
    case pipLock
    /// The info banner's render and its time on screen.
    case banner
    /// Refreshing the multiview's pictures every `multiviewRefresh`.
    case multiviewRefresh
    /// Rendering the multiview and covering the output with it.
    case multiviewDraw
    /// Looking at the programme on screen again at the watch's next moment.
    case programmes
    /// "Up next" on screen, until taken down.
    case upNext
    /// A reminder's proposal on screen, until answered.
    case proposal
    /// Drawing the on-screen guide.
    case guideGrid
    /// Moving the on-screen guide's now line every half minute.
    case guideClock
    /// Drawing the list of recordings.
    case recordingList
}
