import FlipboxCore
import Foundation
import GStreamer
import Lineup
import Logging
import Synchronization

/// Every channel's source, kept warm by a `WarmPolicy`, and the decoders of the channels shown.
///
/// Isolated to the media thread. A flip asks `activate`: a warm channel starts a decoder at its
/// cached keyframe at once; a cold one is connected and decoded from its first keyframe.
public actor Headend {
    public nonisolated var unownedExecutor: UnownedSerialExecutor { MediaExecutor.shared.asUnownedSerialExecutor() }

    /// The lineup as the box plays it now: read at start, and each reading of its source taken
    /// since (`take`), a channel's position (its slot) its own for the life of the process.
    public nonisolated var lineup: Lineup { slots.withLock { $0.lineup } }
    /// Every slot's source (a retired channel's stays, stopped once it is not shown).
    public nonisolated var sources: [ChannelSource] { slots.withLock { $0.sources } }
    private nonisolated let slots: Mutex<(lineup: Lineup, sources: [ChannelSource])>
    private var policy: WarmPolicy
    private var budget: WarmBudget
    /// Where the last `applyPolicy` was asked for, so the budget watch can plan again.
    var around: (current: Int?, last: Int?)?
    private var lastPlan: WarmPlan?
    /// Which pool each source URL is in and the limits given (see `Headend+Pools.swift`).
    nonisolated let poolMap: StreamPoolMap
    /// The pools of the lineup's main sources, each once.
    var lineupPools: [StreamPoolID]
    /// Learned limits and counters per pool.
    var poolBook: PoolBook
    /// The pools as last refreshed (any thread: `pools()`).
    nonisolated let poolView = PoolView()
    /// What each shown feed is for (the pools rank screen, windows and taps).
    var feedRoles: [FeedID: FeedRole] = [:]
    var replanQueued = false
    /// Channels a flip or a client is making room for: connected by them, never by a plan.
    var roomBeingMade = RoomMarks()
    /// The feeds whose activation is on its way, with the deactivations waiting for it to end
    /// (a flip superseded while it connects is stopped before its activation returns).
    private var activating: [FeedID: [CheckedContinuation<Void, Never>]] = [:]
    /// Slots of pools kept free for a stream about to open there that the plan does not count
    /// yet (an archive on another server than its channel's stream): the plan plans with them
    /// taken.
    var reservedSlots: [StreamPoolID: Int] = [:]
    /// Warm channels whose streams the server ended, to be stopped before they reconnect.
    var endedWarm: Set<Int> = []
    /// When a viewer last flipped (the warm channels a flip's plan starts are the viewer's doing,
    /// not background attempts; see `PoolAttempts`).
    var lastViewerFlip: ContinuousClock.Instant?
    /// When a flip last asked for a feed of the screen: a cold flip into a rationed pool soon
    /// after it waits a moment before it connects (`keyRepeatSettle`).
    var lastScreenActivation: ContinuousClock.Instant?
    /// What the box is watched on, hour by hour; the channel on screen and since when.
    var history: ViewingHistory
    var watching: (channel: String, since: Date)?
    var historySaved: Date?
    var historyChanged = false
    /// The last apply left warm channels of a pool waiting to connect (one at a time while the
    /// pool's limit is unknown): the next replan applies even if the plan is the same.
    var startsWaiting = false
    private var budgetWatch: Task<Void, Never>?
    /// The chores loop (`chore(_:)`) and its input; nil until the first chore.
    private var choreLoop: Task<Void, Never>?
    private var choreInput: AsyncStream<Chore>.Continuation?
    let target: DecodeTarget
    let logger: Logger
    /// Where the head-end reports source states, activations and timeshift disks (nil: nowhere).
    nonisolated let reports: MediaReports?
    var decoders: [FeedID: (decoder: ChannelDecoder?, source: ChannelSource)] = [:]
    /// Each shown feed's machine and its shell (see `LiveFeed`).
    var pending: [FeedID: LiveFeed] = [:]
    /// Feeds showing their channel's past from the provider's archive (see `Headend+Archive.swift`),
    /// and the seeks waiting for an archive's first keyframe.
    var archives: [FeedID: ArchivePlay] = [:]
    var archiveWaits: [FeedID: (token: UInt64, continuation: CheckedContinuation<String?, Never>)] = [:]
    var nextArchiveWait: UInt64 = 0
    /// Feeds playing a recording back (`Headend+RecordingPlayback.swift`).
    var recordingPlays: [FeedID: RecordingPlay] = [:]
    /// The recordings last left and where (newest last, a few).
    var recordingsLeft: [(id: String, at: Date?)] = []
    /// Open ingest taps and the source each reads (held running while tapped).
    /// `recording`: the title of the recording the tap writes (it outranks flips and clients).
    private var taps: [TapID: (queue: BoundedQueue<GOPCache.Entry>, source: ChannelSource, pins: Bool, holder: String, recording: String?)] = [:]
    private var nextTap: UInt64 = 1
    /// Timeshift: nil when off; the buffers of the channels shown (kept while they run) and the
    /// feeds playing behind live (see Headend+Timeshift.swift).
    var timeshiftSettings: TimeshiftSettings?
    var timeshiftBuffers: [Int: TimeshiftRecording] = [:]
    var timeshifted: [FeedID: TimeshiftedFeed] = [:]
    /// Per channel with a buffer: markers set over the API, cued breaks, what the viewer played.
    var timeshiftTimelines: [Int: TimeshiftTimeline] = [:]
    /// Idle decoders, built and running, one per codec family the lineup uses (see `Headend+Spares.swift`).
    var spares: [ChannelDecoder] = []
    var spareScheduled = false
    /// Decoders of a flip's keyframe on its own, per stream format (see `FirstPictureDecoder`).
    var firstPictures: [PictureFormat: FirstPictureDecoder] = [:]
    var firstPictureFailures: Set<VideoFamily> = []
    /// The colours whose tables were asked for (`ColourRemap.prepare`).
    var colourTablesAsked: Set<Colorimetry> = []
    /// Keyframes of the channels next in line decoded ahead, per lineup position (see
    /// `Headend+PicturesAhead.swift`), the keyframe last tried for each, and their decoders.
    var picturesAhead: [Int: (keyframe: Buffer, picture: Buffer)] = [:]
    var aheadTried: [Int: Buffer] = [:]
    var aheadDecoders: [VideoFamily: FirstPictureDecoder] = [:]
    var aheadFailures: Set<VideoFamily> = []
    /// The lineup positions whose caches report a newer keyframe to start from.
    var aheadWatched: Set<Int> = []
    var isShutDown = false
    /// The viewer's audio choice per channel id (see `Headend+Audio.swift`).
    nonisolated let audioChoices = ChannelChoices<AudioChoice>()
    /// The viewer's subtitle choice per channel id (see `Headend+Subtitles.swift`).
    nonisolated let subtitleChoices = ChannelChoices<SubtitleChoice>()
    /// Codec families whose spare decoder could not be built (not tried again).
    var spareFailures: Set<ChannelDecoder.Codec> = []
    /// The lineup's `audio-languages`, as ISO 639-2/T codes.
    let preferredLanguages: [String]
    /// Audio description chosen unasked (`audio-description: true`).
    let prefersAudioDescription: Bool
    /// The lineup's `subtitle-languages`, as ISO 639-2/T codes: subtitles in these show unasked.
    let preferredSubtitleLanguages: [String]
    /// The pictures of channels without video.
    public nonisolated let stills: StillPictures

    /// The ISO 639-2/T codes of the language setting `name` (`words` as written); words that are
    /// no language are logged and left out.
    private static func languages(_ name: String, _ words: [String], logger: Logger) -> [String] {
        let languages = TrackSelection.languages(words.joined(separator: " "))
        if !languages.unknown.isEmpty {
            logger.warning("lineup settings: \(name): \(languages.unknown.joined(separator: ", ")) is no language code (use ISO 639 codes such as deu, eng, fra)")
        }
        return languages.codes
    }

    /// How a flip reached its target: already decoding, from its GOP cache, or by connecting.
    public typealias Path = FlipPath

    /// `budget`: resolved by the caller from the command line and the lineup's settings
    /// (`warm-max-channels`, `warm-memory`, `warm-channel-memory`). `reports`: where channel
    /// states, activations and timeshift disk changes are reported, in order (the player drains
    /// it; the output reports first frames into the same stream).
    public init(lineup: Lineup, policy: WarmPolicy, budget: WarmBudget = .unlimited, target: DecodeTarget, logger: Logger,
                reports: MediaReports? = nil, pools: PoolSettings = PoolSettings()) {
        self.reports = reports
        poolMap = pools.map
        poolBook = PoolBook(settings: pools)
        history = pools.historyFile?.load() ?? ViewingHistory()
        historySaved = Date()
        var seenPools: [StreamPoolID] = []
        for channel in lineup.channels {
            if let pool = channel.sources.first.flatMap(pools.map.pool(for:)), !seenPools.contains(pool) { seenPools.append(pool) }
        }
        lineupPools = seenPools
        self.policy = policy
        var target = target
        if let method = lineup.settings.deinterlace { target.deinterlace = method }
        self.target = target
        self.stills = StillPictures(target: target)
        preferredLanguages = Self.languages("audio-languages", lineup.settings.audioLanguages, logger: logger)
        prefersAudioDescription = lineup.settings.audioDescription ?? false
        preferredSubtitleLanguages = Self.languages("subtitle-languages", lineup.settings.subtitleLanguages, logger: logger)
        self.logger = logger
        let resolved = budget
        var limited = resolved
        limited.openFileChannels = WarmBudget.channels(forFileLimit: ProcessResources.fileLimit().soft)
        self.budget = limited
        let sources = lineup.channels.map { Self.makeSource($0, budget: resolved, logger: logger, reports: reports) }
        slots = Mutex((lineup, sources))
        for (index, source) in sources.enumerated() { wire(source, slot: index) }
    }

    /// The source of `channel`, reporting its states.
    static func makeSource(_ channel: Channel, budget: WarmBudget, logger: Logger, reports: MediaReports?) -> ChannelSource {
        ChannelSource(channel: channel, cacheBudgetBytes: budget.cacheLimit, logger: logger) { state in
            reports?.send(.sourceState(channel, state))
        }
    }

    /// Connects the events of the source in `slot` to the head-end (at start, and for a channel a
    /// later reading of the lineup added).
    nonisolated func wire(_ source: ChannelSource, slot index: Int) {
        // Its pool counts its streams and learns from refusals and streams the server ends.
        source.poolEvents.set { [weak self] event in
            self?.onMediaThread { $0.poolEvent(event, from: index) }
        }
        // An archive it played instead of its sources (catch-up) ended or failed.
        source.archiveEvents.set { [weak self] event in
            self?.onMediaThread { $0.archiveStopped(event, channel: index) }
        }
        // Its reconnects in the background go when its pool lets them (asked on the media thread).
        source.attemptGate.set { [weak self] url, now in
            self?.assumeIsolated { $0.backgroundAttempt(url: url, at: now) }
        }
        // A cold flip's first picture: its family's first-picture decoder, ready before the keyframe.
        source.cache.onVideoAnnounced { [weak self] family in
            self?.onMediaThread { $0.videoAnnounced(family) }
        }
        // Renditions read after a cold flip show when the choice or the preferences ask.
        source.webVTT.onTracks { [weak self, weak source] in
            guard let self, let source else { return }
            self.onMediaThread { $0.subtitleTracksAppeared(source) }
        }
    }

    /// Takes `lineup` (the lineup with a reading taken: the same slots and more) and makes a
    /// source for each slot it adds (wired, cold). Returns them and every slot's source.
    func takeSlots(_ lineup: Lineup) -> (added: [(slot: Int, source: ChannelSource)], sources: [ChannelSource]) {
        let budget = self.budget, logger = self.logger, reports = self.reports
        let taken: (added: [(slot: Int, source: ChannelSource)], sources: [ChannelSource]) = slots.withLock { held in
            precondition(lineup.channels.count >= held.sources.count, "a lineup's slots are never taken away")
            var added: [(slot: Int, source: ChannelSource)] = []
            for slot in held.sources.count..<lineup.channels.count {
                let source = Self.makeSource(lineup.channels[slot], budget: budget, logger: logger, reports: reports)
                held.sources.append(source)
                added.append((slot, source))
            }
            held.lineup = lineup
            return (added, held.sources)
        }
        for (slot, source) in taken.added { wire(source, slot: slot) }
        return taken
    }

    /// The sources a decoder or a tap reads now.
    var sourcesInUse: Set<ObjectIdentifier> {
        Set(decoders.values.map { ObjectIdentifier($0.source) } + taps.values.map { ObjectIdentifier($0.source) })
    }

    /// Runs `body` on the media thread with the head-end's isolation, after what was scheduled
    /// there before it (`delay` later when given): how streaming threads, caches and timers
    /// reach the head-end, in order, without a task of their own. Any thread.
    nonisolated func onMediaThread(after delay: Duration? = nil, _ body: @escaping @Sendable (isolated Headend) -> Void) {
        let run: @Sendable () -> Void = { [weak self] in self?.assumeIsolated { body($0) } }
        if let delay { MediaExecutor.shared.schedule(after: delay, run) } else { MediaExecutor.shared.schedule(run) }
    }

    public nonisolated func source(for channel: Channel) -> ChannelSource? {
        sources.first { $0.channel.id == channel.id }
    }

    /// Changes the warm policy; takes effect at the next `applyPolicy`.
    public func setPolicy(_ policy: WarmPolicy) { self.policy = policy }

    /// Changes the warm budget; takes effect at the next `applyPolicy`.
    public func setBudget(_ budget: WarmBudget) {
        var budget = budget
        budget.openFileChannels = budget.openFileChannels ?? self.budget.openFileChannels
        self.budget = budget
        for source in sources { source.cache.budgetBytes = budget.cacheLimit }
    }

    /// Warms channels according to the policy and the budget around `current`, and returns the
    /// plan it applied. Until shutdown, the plan is also re-checked every second against what
    /// the channels' GOPs measure (a channel whose GOP outgrows the budget goes cold, and says so).
    @discardableResult
    public func applyPolicy(current: Int?, last: Int?) async -> WarmPlan {
        if current != around?.current {
            lastViewerFlip = .now
            screenChanged(to: current)
        }
        around = (current, last)
        let plan = plan(current: current, last: last)
        await apply(plan)
        scheduleSpares()
        // The channels next in line changed with the flip: their pictures are made now, not at
        // the next check.
        refreshPicturesAhead()
        if budgetWatch == nil && !isShutDown {
            budgetWatch = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    await self?.replan()
                }
            }
        }
        return plan
    }

    /// The plan for `current`/`last` under the policy, the budget and the measured GOP sizes.
    /// Made over the channels of the lineup now in number order (neighbours are the channels up
    /// and down), then a channel no longer listed that is still shown; the plan it returns is
    /// by slot.
    func plan(current: Int?, last: Int?) -> WarmPlan {
        let (lineup, sources) = slots.withLock { ($0.lineup, $0.sources) }
        let shownSources = Set(decoders.values.map { ObjectIdentifier($0.source) } + taps.values.filter(\.pins).map { ObjectIdentifier($0.source) })
        let shownSlots = Set(sources.indices.filter { shownSources.contains(ObjectIdentifier(sources[$0])) })
        let space = PlanSpace(lineup: lineup, keeping: shownSlots.union([current].compactMap { $0 }))
        let slot = space.slots
        let claims = streamClaims()
        let inputs = WarmPlan.Inputs(count: slot.count, current: current.flatMap(space.position), last: last.flatMap(space.position),
                                     favourites: slot.indices.filter { lineup.channels[slot[$0]].isFavourite },
                                     usual: usualChannels().compactMap(space.position),
                                     shown: Set(shownSlots.compactMap(space.position)), gopBytes: slot.map { sources[$0].cache.gopBytes },
                                     pools: slot.map { pool(of: sources[$0]) }, limits: planningLimits(),
                                     claims: Dictionary(uniqueKeysWithValues: claims.compactMap { k, v in space.position(k).map { ($0, v) } }),
                                     running: Set(slot.indices.filter { sources[slot[$0]].openURL != nil }),
                                     bitrates: slot.map { sources[$0].cache.bitrate }, poolBandwidths: poolMap.bandwidths)
        let plan = WarmPlan.make(policy: policy, budget: budget, inputs: inputs)
        return WarmPlan(running: Set(plan.running.map { slot[$0] }),
                        heldCold: Dictionary(uniqueKeysWithValues: plan.heldCold.map { (slot[$0.key], $0.value) }))
    }

    /// Every slot once, most likely next first (`WarmPlan.priority` over the lineup now, around
    /// the last `applyPolicy`), then the slots of channels no longer listed.
    func priorityOrder() -> [Int] {
        let lineup = self.lineup
        let space = PlanSpace(lineup: lineup, keeping: Set([around?.current].compactMap { $0 }))
        let ranked = WarmPlan.priority(count: space.slots.count, current: around?.current.flatMap(space.position),
                                       last: around?.last.flatMap(space.position), favourites: [], radius: 1).map { space.slots[$0] }
        let placed = Set(ranked)
        return ranked + lineup.channels.indices.filter { !placed.contains($0) }
    }

    /// Carries out `plan`: stops first, then (with `starts`) starts in priority order.
    func apply(_ plan: WarmPlan, starts: Bool = true) async {
        if plan != lastPlan, !plan.heldCold.isEmpty {
            logger.debug("warm plan: \(plan.running.count) running, held cold: \(plan.heldCold.sorted { $0.key < $1.key }.map { "\(lineup.channels[$0.key].number) (\($0.value))" }.joined(separator: ", "))")
        }
        if starts { lastPlan = plan }
        // Start the most likely channels first (the one on screen before anything else), so a
        // box with many channels shows its first picture without waiting for the others.
        let order = priorityOrder(), sources = self.sources
        // Streams are given up before others are opened, so a pool never goes over its limit.
        // (A channel no longer in the lineup is in no plan: its stream stops once it is not shown.)
        for i in order where !plan.running.contains(i) {
            let source = sources[i]
            if let reason = plan.heldCold[i] {
                if await source.isRunning || source.state != .parked(reason: reason) { await stopSource(source, reason: reason) }
                closeFollowers(of: source)
            } else if await source.isRunning || source.state != .cold {
                await stopSource(source, reason: nil)
                closeFollowers(of: source)
            }
        }
        guard starts else { return refreshPoolView() }
        let claims = streamClaims()
        startsWaiting = false
        for i in order where plan.running.contains(i) {
            let source = sources[i]
            let wasOpen = source.openURL != nil
            if roomBeingMade.contains(i) { continue }
            if !wasOpen, claims[i] == nil, warmStartWaits(in: pool(of: source)) || !mayStartWarm(in: pool(of: source)) {
                startsWaiting = true
                continue
            }
            await source.start()
            await startWarmTimeshift(for: source)
            if !wasOpen, claims[i] == nil { notePoolStart(i) }
        }
        refreshPoolView()
    }

    /// Plans again around the last `applyPolicy` (GOP sizes change as they are measured).
    func replan() async {
        guard !isShutDown, let around else { return }
        let plan = plan(current: around.current, last: around.last)
        if plan != lastPlan || startsWaiting { await apply(plan) }
        saveHistoryIfDue()
        prepareColourTables()
        scheduleSpares()
        refreshPicturesAhead()
    }

    /// How late `feed`'s frames and sound have left its decoder so far (nil: no decoder yet).
    public func playoutLateness(feed: FeedID) -> PlayoutLateness? {
        decoders[feed]?.decoder?.playoutLateness
    }

    /// Starts decoding `channel` for `sink` as `feed` (taken by the caller, who told the output
    /// to expect it). Returns the feed id and the path: `warm` when a keyframe was cached, `cold`
    /// when the decoder waits for the source. Reports `.activated(feed, path)` before any frame
    /// of the feed can be made.
    ///
    /// Withdrawn by cancelling the caller's task (a later flip superseded it): an activation
    /// waiting for a stream (`keyRepeatSettle`, `makeRoom`) gives way and opens nothing
    /// (`HeadendFailure.superseded`). A `deactivate(feed:)` meanwhile waits for it to end.
    public func activate(_ channel: Channel, feed: FeedID = .next(), sink: DecodedFrameSink,
                         role: FeedRole = .screen, recording: (playback: RecordingPlayback, from: Date)? = nil) async throws -> (feed: FeedID, path: Path) {
        try giveWay(feed, to: channel)
        activating[feed] = []
        defer { for waiter in activating.removeValue(forKey: feed) ?? [] { waiter.resume() } }
        // A recording plays from a source of its own, reading its file (no pool stream).
        var recorded: ChannelSource?
        if let recording { recorded = try await activateRecording(feed: feed, recording.playback, from: recording.from) }
        guard let source = recorded ?? source(for: channel) else {
            throw HeadendFailure(.unknownChannel, "channel \(channel.number) \(channel.name) is not in the lineup")
        }
        // Shown from now on, so no plan stops the source while it connects.
        decoders[feed] = (nil, source)
        feedRoles[feed] = role
        let flipBefore = role == .screen ? lastScreenActivation : nil
        if role == .screen { lastScreenActivation = .now }
        let wasRunning = await source.isRunning
        if !wasRunning, recorded == nil {
            do {
                // Channel up held on a remote: a cold channel of a rationed pool connects once
                // the presses stop, not once for each (an account counts every connection).
                // (No plan connects it meanwhile: room is being made for it.)
                if let settle = keyRepeatSettle(after: flipBefore, source: source), let index = index(of: source) {
                    roomBeingMade.insert(index)
                    try? await Task.sleep(for: settle)
                    roomBeingMade.remove(index)
                    try giveWay(feed, to: channel)
                }
                // In a full pool, the least valuable warm stream goes first.
                try await makeRoom(for: source, flipTo: role == .screen)
                try giveWay(feed, to: channel)
            } catch {
                decoders[feed] = nil
                feedRoles[feed] = nil
                throw error
            }
            await source.start()
        }
        let warm = source.cache.canStartWarm
        let pendingFeed = LiveFeed(feed: feed, warm: warm, cache: source.cache, audioKnown: source.cache.audioCaps != nil,
                                   headend: self, sink: sink)
        pending[feed] = pendingFeed
        let snapshot = source.cache.attach(.feed(feed)) { entry in pendingFeed.receive(entry) }
        let path: Path
        let radio = source.cache.isAudioOnly && snapshot.entries.first?.track == .audio
        if warm, radio || (snapshot.entries.first?.isKeyframe == true && snapshot.video != nil) {
            path = .warm
            reports?.send(.activated(feed, path: path))
            do { try startDecoder(feed: feed, videoCaps: radio ? nil : snapshot.video, sink: sink, initial: snapshot.entries) } catch {
                if recorded != nil { await stopFeed(feed) }
                throw error
            }
        } else if warm {
            // The cached GOP vanished between the check and the attach (budget, restart): start cold.
            source.cache.detach(.feed(feed))
            let cold = LiveFeed(feed: feed, warm: false, cache: source.cache, audioKnown: source.cache.audioCaps != nil,
                                headend: self, sink: sink)
            pending[feed] = cold
            _ = source.cache.attach(.feed(feed)) { entry in cold.receive(entry) }
            path = .cold
            reports?.send(.activated(feed, path: path))
        } else {
            path = .cold
            reports?.send(.activated(feed, path: path))
        }
        await source.setHot(feed, true)
        await startTimeshift(for: source)
        if role == .screen { countFlip(to: source, path: path) }
        refreshPoolView()
        return (feed, path)
    }

    /// Throws when `feed`'s activation was withdrawn (its caller's task cancelled: a later flip
    /// came) before it connects `channel`: only the latest flip connects, or a pool of one
    /// stream is asked for several.
    private func giveWay(_ feed: FeedID, to channel: Channel) throws(HeadendFailure) {
        guard Task.isCancelled else { return }
        throw HeadendFailure(.superseded, "the flip to channel \(channel.number) \(channel.name) (\(feed)) gave way to a later flip before it connected")
    }

    /// Called (media thread) once a cold feed has its first keyframe and caps (a radio channel:
    /// its first sound; `videoCaps` nil). Plays the audio track the viewer chose for the channel,
    /// else the first in a preferred language, else the first.
    func startDecoder(feed: FeedID, videoCaps: Caps?, sink: DecodedFrameSink, initial: [GOPCache.Entry]) throws {
        guard let pendingFeed = pending[feed], let entry = decoders[feed] else { return }
        let channel = entry.source.channel
        do {
            let (stream, audioCaps) = chosenAudio(entry.source)
            let codec = ChannelDecoder.Codec(video: videoCaps, audio: audioCaps)
            // What the decoder starts from: a warm flip's cached GOP; a cold flip's keyframe, which
            // the feed holds.
            let start = initial.isEmpty ? pendingFeed.heldFromKeyframe() : initial
            // Not for a sink of its own size (picture-in-picture, multiview): its decoder scales.
            let fullSize = sink.frameSize.map { $0 == (target.width, target.height) } ?? true
            let keyframe = start.first { $0.track == .video && $0.isKeyframe }
            // A channel next in line has its keyframe's picture decoded already: shown at once.
            let ahead = fullSize ? keyframe.flatMap { pictureAhead(of: entry.source, keyframe: $0.buffer) } : nil
            let spare = takeSpare(serving: codec)
            // Without a spare, the decoder is built now (tens to hundreds of milliseconds for a
            // family no running channel uses): the keyframe is decoded on its own meanwhile, and
            // its picture shown as soon as it is out.
            var early = false
            if spare == nil, fullSize, ahead == nil, !pendingFeed.showedEarlyPicture, let videoCaps {
                early = showEarlyPicture(feed: feed, from: start, caps: videoCaps)
            }
            let decoder: ChannelDecoder
            if let spare {
                decoder = spare
            } else {
                logger.debug("channel \(channel.number): no spare \(codec) decoder ready, building one")
                decoder = try ChannelDecoder(codec: codec, target: target, logger: logger)
            }
            decoder.bind(feed: feed, videoCaps: videoCaps, audioCaps: audioCaps, audioStream: stream, sink: sink,
                         still: stillPicture(channel, videoCaps: videoCaps), channelLag: entry.source.cache.largestLag)
            decoder.showSubtitles(chosenSubtitles(entry.source), webVTT: entry.source.webVTT)
            decoders[feed] = (decoder, entry.source)
            // The keyframe is decoded on its own first where that gains time (a decoder of
            // H.264 or HEVC gives it out only with the frames after it: at once from a warm
            // flip's cache, 2-3 frame periods later live), and the decoder gets its GOP once that
            // picture is out (see `FirstPictureDecoder`), or `firstPictureWait` at the latest.
            if let ahead {
                decoder.showFirstPicture(ahead, feed: feed)
                pendingFeed.decoderReady(decoder, backlog: initial, afterEarlyPicture: false)
            } else if early || pendingFeed.showedEarlyPicture {
                // Starts once the keyframe decoded on its own is out (at once if it is).
                pendingFeed.decoderReady(decoder, backlog: initial, afterEarlyPicture: early)
            } else {
                let deferred = fullSize && videoCaps.map { decodeFirstPicture(feed: pendingFeed, for: decoder, videoCaps: $0, from: start, live: initial.isEmpty) } == true
                pendingFeed.decoderReady(decoder, backlog: initial, afterEarlyPicture: deferred)
            }
            watch(decoder, feed: feed, channel: channel.number)
            scheduleSpares()
            archiveDecoderStarted(feed: feed)
            recordingDecoderStarted(feed: feed)
        } catch {
            logger.error("cannot start a decoder for channel \(channel.number): \(error)")
            throw error
        }
    }

    /// The picture of `channel` while it has no video (`videoCaps` nil): its still.
    private func stillPicture(_ channel: Channel, videoCaps: Caps?) -> (@Sendable () -> Buffer?)? {
        guard videoCaps == nil else { return nil }
        let stills = self.stills, id = channel.id
        return { stills.picture(for: id) }
    }

    /// Logs a decoder's errors for the person running the box, and has the feed start a fresh
    /// decoder at its next keyframe (a stream with garbage in it must not freeze the picture).
    /// Its messages are read on the bus's thread and what they ask is done on the media thread,
    /// in order (no task per decoder); only its first failure is acted on.
    private func watch(_ decoder: ChannelDecoder, feed: FeedID, channel number: ChannelNumber) {
        let logger = self.logger
        let failed = Mutex(false)
        decoder.observeMessages { [weak self, weak decoder] m in
            guard case .error(let src, let text, let debug) = m, let decoder, !failed.withLock({ $0 }) else { return }
            if ChannelDecoder.isTeletextElement(src) {
                logger.warning("channel \(number): its teletext page cannot be decoded (\(text)); teletext subtitles stay off until chosen again [\(debug ?? "")]")
                self?.onMediaThread { $0.teletextFailed(decoder) }
            } else if !failed.withLock({ let was = $0; $0 = true; return was }) {
                logger.error("decoding channel \(number) failed in \(src): \(text); a new decoder starts at the next keyframe [\(debug ?? "")]")
                self?.onMediaThread { $0.decoderFailed(feed: feed, decoder: decoder) }
            }
        }
    }

    private func decoderFailed(feed: FeedID, decoder: ChannelDecoder) {
        pending[feed]?.decoderFailed(decoder)
    }

    /// A cold feed asks for its decoder (media thread, in the order its machine asked): once
    /// its video format is known, or at once for radio.
    func requestDecoder(for feed: LiveFeed) {
        guard let entry = decoders[feed.feed], pending[feed.feed] === feed, let sink = feed.sink else { return }
        let video = entry.source.cache.videoCaps
        guard video != nil || entry.source.cache.isAudioOnly else { return }
        try? startDecoder(feed: feed.feed, videoCaps: video, sink: sink, initial: [])
    }

    /// Replaces the decoder of `feed` by one for `videoCaps`/`audioCaps` (media thread): the
    /// stream changed codec, or the old decoder failed. The feed holds everything from the new
    /// keyframe on until the new decoder takes it.
    func swapDecoder(feed: FeedID, videoCaps: Caps?, reason: String) {
        guard let pendingFeed = pending[feed], let entry = decoders[feed], let sink = pendingFeed.sink else { return }
        let number = entry.source.channel.number
        logger.warning("channel \(number) \(entry.source.channel.name): \(reason); starting a new decoder at its \(videoCaps == nil ? "next sound" : "keyframe")")
        entry.decoder?.shutdown()
        let (stream, audioCaps) = chosenAudio(entry.source)
        let codec = ChannelDecoder.Codec(video: videoCaps, audio: audioCaps)
        do {
            let decoder: ChannelDecoder
            if let ready = takeSpare(serving: codec) {
                decoder = ready
                scheduleSpares()
            } else {
                decoder = try ChannelDecoder(codec: codec, target: target, logger: logger)
            }
            decoder.bind(feed: feed, videoCaps: videoCaps, audioCaps: audioCaps, audioStream: stream, sink: sink,
                         still: stillPicture(entry.source.channel, videoCaps: videoCaps), channelLag: entry.source.cache.largestLag)
            decoder.showSubtitles(chosenSubtitles(entry.source), webVTT: entry.source.webVTT)
            decoders[feed] = (decoder, entry.source)
            pendingFeed.decoderReady(decoder, backlog: [], afterEarlyPicture: false)
            watch(decoder, feed: feed, channel: number)
        } catch {
            logger.error("channel \(number): cannot start a decoder for \(videoCaps?.mediaType ?? audioCaps?.mediaType ?? "its sound"): \(error)")
            decoders[feed] = (nil, entry.source)
            pendingFeed.decoderUnavailable()
        }
    }

    /// Stops the decoder of `feed` (the channel goes back to warm, or cold by policy).
    public func deactivate(feed: FeedID) async {
        // An activation on its way ends first (withdrawn, it gives way at once), so what it
        // started is stopped here, not left behind.
        if activating[feed] != nil {
            await withCheckedContinuation { waiter in
                if activating[feed] != nil { activating[feed]?.append(waiter) } else { waiter.resume() }
            }
        }
        await stopFeed(feed)
    }

    /// Whether anything of `feed` is kept: its activation, decoder, feed machine or role.
    func holds(feed: FeedID) -> Bool {
        activating[feed] != nil || decoders[feed] != nil || pending[feed] != nil || feedRoles[feed] != nil
    }

    /// Stops `feed`'s decoder, its recording's or archive's play, and its hold on the source.
    private func stopFeed(_ feed: FeedID) async {
        await stopRecordingPlay(feed: feed, reportLeft: true)
        await endArchive(feed: feed)
        endReplay(feed: feed)
        feedRoles[feed] = nil
        guard let entry = decoders.removeValue(forKey: feed) else { return }
        entry.source.cache.detach(.feed(feed))
        pending.removeValue(forKey: feed)?.cancel()
        entry.decoder?.shutdown()
        await entry.source.setHot(feed, false)
        refreshPoolView()
    }

    /// Opens a tap on `channel`'s ingest: its cached GOP from the keyframe, then everything live
    /// (see `IngestTap`). A cold channel is started, and every tapped channel is kept running
    /// until its taps close (`pins`; an unpinned tap follows the channel while the plan keeps it
    /// and is closed when the plan stops it). Nothing is decoded.
    public func tap(_ channel: Channel, maxQueuedBytes: Int = IngestTap.defaultMaxQueuedBytes, pins: Bool = true,
                    holder: String = "a served client") async throws -> IngestTap {
        try await openTap(channel, maxQueuedBytes: maxQueuedBytes, pins: pins, holder: holder, recording: nil)
    }

    /// `tap`, for a recording of `recording` (a title) when given: pinned, and ranked above
    /// flips and clients in its pool (see `Headend+Recordings.swift`).
    func openTap(_ channel: Channel, maxQueuedBytes: Int, pins: Bool, holder: String, recording: String?) async throws -> IngestTap {
        guard let source = source(for: channel) else {
            throw HeadendFailure(.unknownChannel, "channel \(channel.number) \(channel.name) is not in the lineup")
        }
        guard !isShutDown else { throw TapEnd.headendStopped }
        let id = newTapID()
        let release: @Sendable (TapID) -> Void = { [weak self] id in
            self?.onMediaThread { $0.chore(.untap(id)) }
        }
        // Live entries queue from the attach on; the start goes in front of them before anyone reads.
        let queue = BoundedQueue<GOPCache.Entry>(maxBytes: maxQueuedBytes, cost: { $0.buffer.size }) { release(id) }
        let start = source.cache.attach(.tap(id)) { entry in queue.push(entry) }
        queue.prepend(start.entries)
        taps[id] = (queue, source, pins, holder, recording)
        if !(await source.isRunning) {
            if pins {
                // A client outranks warm channels: in a full pool the least valuable goes first.
                do { try await makeRoom(for: source, flipTo: false, recording: recording) } catch {
                    taps[id] = nil
                    source.cache.detach(.tap(id))
                    queue.finish(nil)
                    throw error
                }
            }
            await source.start()
        }
        return IngestTap(id: id, channel: channel, start: start, queue: queue, release: release)
    }

    /// A tap id never used before (taps and timeshift recordings share the space).
    func newTapID() -> TapID {
        defer { nextTap += 1 }
        return TapID(value: nextTap)
    }

    /// Forgets a closed or dropped tap; its channel may go cold at the next plan.
    func untap(_ id: TapID) async {
        guard let entry = taps.removeValue(forKey: id) else { return }
        entry.source.cache.detach(.tap(id))
        entry.queue.finish(nil)
        await replan()
    }

    /// What the head-end's own events ask of it that awaits sources starting or stopping: a
    /// replan after pool events, leaving an archive that ended, a tap its reader let go, a
    /// recording's break skipped.
    enum Chore: Sendable {
        case replan
        case leaveArchive(FeedID, to: Date?)
        case untap(TapID)
        case skipBreak(FeedID, source: ChannelSource, to: Date)
    }

    /// Asks for `chore`: chores run one after another, in the order asked, on one loop started
    /// at the first (not a task each). None after shutdown.
    func chore(_ chore: Chore) {
        guard !isShutDown else { return }
        if choreInput == nil {
            let (chores, input) = AsyncStream<Chore>.makeStream(bufferingPolicy: .unbounded)
            choreInput = input
            choreLoop = Task { [weak self] in
                for await chore in chores { await self?.run(chore) }
            }
        }
        choreInput?.yield(chore)
    }

    private func run(_ chore: Chore) async {
        switch chore {
        case .replan: await runQueuedReplan()
        case .leaveArchive(let feed, let target): await leaveArchive(feed: feed, to: target)
        case .untap(let id): await untap(id)
        case .skipBreak(let feed, let source, let end): await skipBreak(feed: feed, source: source, to: end)
        }
    }

    /// Ends the unpinned taps of a channel the plan stopped, and its timeshift buffer.
    private func closeFollowers(of source: ChannelSource) {
        for (id, entry) in taps where entry.source === source && !entry.pins {
            taps[id] = nil
            source.cache.detach(.tap(id))
            entry.queue.finish(nil)
        }
        if let index = sources.firstIndex(where: { $0 === source }) { closeTimeshift(channel: index) }
    }

    /// The pinned taps' channels, for whom they hold them, and the title when a recording does.
    func tapHolders() -> [(index: Int, holder: String, recording: String?)] {
        taps.values.filter(\.pins).compactMap { entry in index(of: entry.source).map { ($0, entry.holder, entry.recording) } }
    }

    /// Ends the pinned tap `id` for what outranks it (a recording needs its stream): its
    /// consumer reads `TapEnd.preempted`.
    func preemptTap(_ id: TapID, by reason: String) {
        guard let entry = taps.removeValue(forKey: id) else { return }
        entry.source.cache.detach(.tap(id))
        entry.queue.finish(.preempted(by: reason))
    }

    /// The pinned taps that are not recordings, by channel (what a recording may end).
    func clientTaps() -> [(id: TapID, index: Int)] {
        taps.compactMap { id, entry in entry.pins && entry.recording == nil ? index(of: entry.source).map { (id, $0) } : nil }
    }

    /// The taps open now, by channel number (for the status and the tests).
    public var openTaps: [TapID: ChannelNumber] { taps.mapValues { $0.source.channel.number } }

    /// The channels' states, in lineup order.
    public nonisolated func states() -> [ChannelState] { sources.map(\.state) }

    public func shutdown() async {
        closeHistory()
        isShutDown = true
        budgetWatch?.cancel()
        budgetWatch = nil
        // Chores asked before this still run (each finds the head-end stopped); no new ones.
        choreInput?.finish()
        choreInput = nil
        choreLoop = nil
        dropSpares()
        for decoder in firstPictures.values { decoder.shutdown() }
        firstPictures = [:]
        stopPicturesAhead()
        for feed in Array(decoders.keys) { await stopFeed(feed) }
        for (id, entry) in taps {
            entry.source.cache.detach(.tap(id))
            entry.queue.finish(.headendStopped)
        }
        taps = [:]
        for s in sources { await s.shutdown() }
        for index in sources.indices { closeTimeshift(channel: index) }
    }
}
