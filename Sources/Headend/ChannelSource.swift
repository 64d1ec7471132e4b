import FlipboxCore
import Foundation
import GStreamer
import Lineup
import Logging
import MediaFormats
import Synchronization

/// One channel's ingest: connects its source, demuxes and parses (no decoding) into a
/// `GOPCache`, and supervises it by the rules of `SourceSupervisor`: a source that stops
/// delivering for `stallTimeout` is `stalled` and restarted with backoff; errors move on to the
/// backup sources in order.
///
/// The actor is the supervisor's shell: it feeds it inputs (bus messages, the cache's first
/// delivery, its one timer) and carries out the actions it returns, in order, on the media
/// thread. `state` and `cache` may be read from anywhere.
public actor ChannelSource {
    public nonisolated var unownedExecutor: UnownedSerialExecutor { MediaExecutor.shared.asUnownedSerialExecutor() }

    /// The channel as the lineup gives it now: a reading of the lineup while the box plays may
    /// rename, renumber or readdress it (`take`; any thread).
    public nonisolated var channel: Channel { channelBox.withLock { $0 } }
    private nonisolated let channelBox: Mutex<Channel>
    /// The channel's stream addresses now, main first (any thread).
    public nonisolated var addresses: [String] { channel.sources }
    public nonisolated let cache: GOPCache
    /// The breaks its SCTE-35 splice cues announce (MPEG-TS sources in whole packets: UDP, RTP).
    public nonisolated let spliceCues = SpliceCueLog()
    /// The WebVTT subtitle renditions of an HLS channel, followed beside the ingest.
    public nonisolated let webVTT: WebVTTSubtitles
    /// Where its streams opening, refused and ended are told (the head-end's pools).
    nonisolated let poolEvents = SourcePoolEvents()
    /// Asked before a background reconnect (the head-end's pools bound them).
    nonisolated let attemptGate = SourceAttemptGate()
    /// Where an archive it plays instead of the channel says it ended or failed (the head-end).
    nonisolated let archiveEvents = SourceArchiveEvents()
    private nonisolated let stateBox: StateBox
    private let logger: Logger
    private let onStateChange: @Sendable (ChannelState) -> Void

    private var supervisor: SourceSupervisor
    private var pipeline: Pipeline?
    /// What routes the running ingest's streams (sources with a demuxer found at run time).
    private var router: IngestRouter?
    /// Whether the running ingest is paced at real time, as its router decided at the first
    /// stream; nil before that, or for a source with no demuxer found at run time.
    var ingestPaced: Bool? { router?.paced }
    /// How many elements made by `factory` the running ingest holds (for tests: which demuxer
    /// reads an HLS list).
    func ingestElements(factory: String) -> Int { pipeline?.descendants(factory: factory).count ?? 0 }
    /// The supervisor's one timer: a media-thread timeout (a new wake, or none, calls it off).
    private var timer: MediaTimeout?
    /// Whether the running ingest loops (a file): its end seeks back instead of failing.
    private var loops = false
    /// Whether it loops by segment seeks (no flush at the loop point); else by a flushing seek at its end.
    private var loopsBySegments = true
    private var loopArmed = false
    /// Whether the server refused the running ingest's stream (it holds no slot there).
    private var connectionRefused = false
    /// The HTTP response the running ingest got, when its source is HTTP and answered.
    private var lastResponse: SourceRefusal.Response?
    /// Set while `stop` tears the ingest down.
    private var stopping = false
    /// Whether the archive it plays was asked for already (it is asked once).
    private var archiveAsked = false
    /// Decoders fed by this source, by feed id.
    private var hotFeeds: Set<FeedID> = []

    /// A source silent for this long is stalled (default).
    public static let defaultStallTimeout: Duration = .seconds(2)
    /// A source that has not delivered anything this long after starting has failed to connect
    /// (default); the next backup source is tried then.
    public static let defaultConnectTimeout: Duration = .seconds(10)

    /// A source silent for this long is stalled.
    public nonisolated var stallTimeout: Duration { settings.stallTimeout }
    /// A source that has not delivered anything this long after starting has failed to connect.
    public nonisolated var connectTimeout: Duration { settings.connectTimeout }
    private nonisolated let settings: SourceSupervisor.Settings
    /// Set on a source that plays a recording back: it reads the file instead of a URL.
    nonisolated let fileReader: RecordingFileReader?

    public init(channel: Channel, cacheBudgetBytes: Int = WarmBudget.defaultChannelBytes, logger: Logger,
                stallTimeout: Duration = ChannelSource.defaultStallTimeout,
                connectTimeout: Duration = ChannelSource.defaultConnectTimeout,
                onStateChange: @escaping @Sendable (ChannelState) -> Void) {
        self.init(channel: channel, cacheBudgetBytes: cacheBudgetBytes, logger: logger, stallTimeout: stallTimeout,
                  connectTimeout: connectTimeout, fileReader: nil, onStateChange: onStateChange)
    }

    /// A source reading `fileReader`'s recording (played once, like an archive), or the channel's
    /// sources when nil.
    init(channel: Channel, cacheBudgetBytes: Int = WarmBudget.defaultChannelBytes, logger: Logger,
         stallTimeout: Duration = ChannelSource.defaultStallTimeout,
         connectTimeout: Duration = ChannelSource.defaultConnectTimeout,
         fileReader: RecordingFileReader?, onStateChange: @escaping @Sendable (ChannelState) -> Void) {
        self.fileReader = fileReader
        channelBox = Mutex(channel)
        settings = SourceSupervisor.Settings(sources: channel.sources, stallTimeout: stallTimeout, connectTimeout: connectTimeout)
        supervisor = SourceSupervisor(settings: settings)
        self.cache = GOPCache(budgetBytes: cacheBudgetBytes)
        webVTT = WebVTTSubtitles(logger: logger, label: "channel \(channel.number) \(channel.name)")
        self.stateBox = StateBox()
        self.logger = logger
        self.onStateChange = onStateChange
    }

    /// The channel's subtitle tracks (any thread): those of its streams (`GOPCache`), then its
    /// WebVTT renditions.
    public nonisolated var subtitleTracks: [SubtitleTrack] { cache.subtitleTracks + webVTT.tracks }

    /// The current state (any thread).
    public nonisolated var state: ChannelState { stateBox.value }

    /// Stalls, failures, reconnects and failovers since the channel was made (any thread).
    public nonisolated var counts: SourceSupervisor.Counts { stateBox.counts }

    /// True while the source runs (warm or better, or trying to be).
    public var isRunning: Bool { supervisor.isWanted }

    /// The source URL a stream is open to now (connecting or delivering), nil when none is: what
    /// the pools count (any thread).
    public nonisolated var openURL: String? { stateBox.openURL }

    /// Starts the ingest if it is not running. Returns at once; the state reports progress.
    public func start() {
        perform(supervisor.start(at: .now))
    }

    /// The provider's archive (catch-up) URL it plays instead of the channel's sources; nil:
    /// the channel live (any thread).
    public nonisolated var archiveURL: String? { stateBox.archiveURL }

    /// Plays `url`, an archive of the channel (catch-up), instead of its sources; nil: its
    /// sources again. The running ingest stops and its cache is forgotten; the new one starts at
    /// once (`start`; else at the caller's `start()`), in the same stream of its pool. An archive
    /// is played once: its end or its failure is told to `archiveEvents`, never retried.
    func play(archive url: String?, start: Bool = true) {
        stopping = true
        perform(supervisor.stop(reason: nil))
        stopping = false
        let sources = url.map { [$0] } ?? addresses
        guard supervisor.follow(sources: sources) else { return }
        stateBox.archiveURL = url
        archiveAsked = false
        perform(supervisor.setHot(!hotFeeds.isEmpty))
        if start { perform(supervisor.start(at: .now)) }
    }

    /// The channel as a reading of the lineup gives it now: its number, name and details at
    /// once. New addresses go to the supervisor: the stream open now goes on, the next
    /// connection takes them (`SourceSupervisor.readdress`); while it plays an archive, they are
    /// taken when it follows the channel again.
    func take(_ channel: Channel) {
        let readdressed = channelBox.withLock { held in
            defer { held = channel }
            return held.sources != channel.sources
        }
        guard readdressed, stateBox.archiveURL == nil, fileReader == nil else { return }
        supervisor.readdress(sources: channel.sources)
    }

    /// The URL of source `index` now: the channel's, or the archive it plays.
    private func sourceURL(_ index: Int) -> String { supervisor.settings.sources[index] }

    /// An archive that ended or failed: told once, and its ingest stopped, not retried.
    private func archiveStopped(_ event: SourceArchiveEvent) {
        guard stateBox.archiveURL != nil else { return }
        stopping = true
        perform(supervisor.stop(reason: nil))
        stopping = false
        archiveEvents.send(event)
    }

    /// Stops the ingest and forgets the cache (the channel goes cold). `reason`, when given,
    /// says why the channel is held cold (`parked`).
    public func stop(reason: String? = nil) {
        // Whoever stops a source notes its pool's slot itself (`Headend.stopSource`), before it
        // starts anything else: no event for it.
        stopping = true
        defer { stopping = false }
        perform(supervisor.stop(reason: reason))
    }

    /// Marks the channel hot (decoded for the screen) or back to warm.
    func setHot(_ feed: FeedID, _ hot: Bool) {
        if hot { hotFeeds.insert(feed) } else { hotFeeds.remove(feed) }
        followVariants()
        perform(supervisor.setHot(!hotFeeds.isEmpty))
    }

    /// The connection speed (kbps) told to adaptive demuxers: 1 while warm, so HLS follows its
    /// lowest-bitrate variant (cheap to keep, its keyframes are what a flip starts from); the
    /// largest value while hot, so it takes the best variant. (Not 0, "measure": the ingest is
    /// paced to real time, so the demuxer would measure the playback rate of the low variant and
    /// never move up.)
    /// (1 Gb/s, not more: `hlsdemux` multiplies it into a signed 32-bit count of bits.)
    var variantSpeed: UInt32 { hotFeeds.isEmpty ? 1 : 1_000_000 }

    /// Tells the running adaptive demuxers the speed for the current tier. They switch at their
    /// next segment; segments start at a keyframe, so the picture changes without a gap.
    private func followVariants() {
        guard let pipeline else { return }
        tellVariantSpeed(to: pipeline)
    }

    /// Sets `variantSpeed` on the adaptive demuxers in `pipeline` and on a `urisourcebin` named
    /// `src`: at connect, so HLS starts on the variant the tier asks for, and at each tier change.
    private func tellVariantSpeed(to pipeline: Pipeline) {
        for demuxer in pipeline.descendants(factory: "hlsdemux") + pipeline.descendants(factory: "hlsdemux2") {
            demuxer.set("connection-speed", uint: variantSpeed)
        }
        if let src = pipeline.child(named: "src"), src.hasProperty("connection-speed") {
            src.set("connection-speed", uint64: UInt(variantSpeed))
        }
    }

    /// Carries out the supervisor's actions, in order. A connection that fails at once is told
    /// to the supervisor after the whole batch, so its answer comes after the batch's own actions.
    private func perform(_ actions: [SourceSupervisor.Action]) {
        var failure: (SourceSupervisor.Connection, String)?
        for action in actions {
            switch action {
            case .connect(let index, let connection):
                // An archive is asked once: a second connection would play it from its start again.
                if stateBox.archiveURL != nil {
                    if archiveAsked { return archiveStopped(.failed("the archive stopped sending")) }
                    archiveAsked = true
                }
                poolEvents.send(.opening(url: sourceURL(index)))
                if let error = connect(sourceURL(index), connection: connection) { failure = (connection, error) }
            case .teardown:
                // A stream the server accepted (delivering or not yet) frees its slot there a
                // moment later; a refused one held none.
                if pipeline != nil, !connectionRefused, !stopping, let url = stateBox.openURL { poolEvents.send(.closed(url: url)) }
                connectionRefused = false
                lastResponse = nil
                teardown()
            case .report(let state):
                if stateBox.exchange(state) != state { onStateChange(state) }
            case .warn(let text):
                logger.warning("channel \(channel.number) \(channel.name): \(SourceText.shown(text))")
            case .wake(let at):
                timer?.cancel()
                timer = at.map { at in
                    MediaExecutor.shared.schedule(after: max(.zero, at - .now)) { [weak self] in
                        self?.assumeIsolated { $0.timerFired() }
                    }
                }
            }
        }
        if let (connection, reason) = failure { perform(supervisor.failed(connection, reason: reason, at: .now)) }
        stateBox.counts = supervisor.counts
        stateBox.openURL = supervisor.holdsStream ? sourceURL(supervisor.source) : nil
    }

    /// Runs `body` on the media thread with the source's isolation, after what was scheduled
    /// there before it: how streaming threads reach the source, in order, without a task each.
    /// Any thread.
    private nonisolated func onMediaThread(_ body: @escaping @Sendable (isolated ChannelSource) -> Void) {
        MediaExecutor.shared.schedule { [weak self] in self?.assumeIsolated { body($0) } }
    }

    private func timerFired() {
        let now = ContinuousClock.now
        // A reconnect in the background goes when its pool lets it (the screen's never waits).
        if supervisor.retryDue(at: now), !supervisor.isHot,
           let later = attemptGate.ask(url: sourceURL(supervisor.source), at: now) {
            return perform(supervisor.postpone(until: later))
        }
        perform(supervisor.timerFired(at: now, lastDelivery: cache.lastUsefulDelivery))
    }

    private func delivered(_ connection: SourceSupervisor.Connection) {
        let first = connection == supervisor.connection && !supervisor.isDelivering
        perform(supervisor.delivered(connection, at: cache.lastDelivery ?? .now))
        if first, supervisor.isDelivering { poolEvents.send(.delivering(url: sourceURL(supervisor.source))) }
    }

    private func streamChanged(_ connection: SourceSupervisor.Connection, _ change: ProgramMapWatch.Change) {
        perform(supervisor.restart(connection, reason: "the stream changed: \(change)", at: .now))
    }

    /// Builds and starts the ingest; returns why it could not, nil when it runs.
    private func connect(_ url: String, connection: SourceSupervisor.Connection) -> String? {
        do {
            let plan = fileReader == nil ? try IngestPlan.make(for: url) : IngestPlan.recordingPlan
            let p = try Pipeline(description: plan.description)
            for case .property(let element, let name, let value) in plan.setup {
                p.child(named: element)?.set(name, string: value)
            }
            tellVariantSpeed(to: p)
            // AAC in LATM joined mid-stream can stall GStreamer's parser for good (LATMAlignment).
            // A video parser is plugged once the programme table says what the stream is, before
            // its first keyframe: the head-end can have that family's first-picture decoder ready.
            p.onElementAdded { [cache] element in
                let factory = element.factoryName
                if factory == "aacparse", let pad = element.staticPad("sink") { LATMAlignment.guardParser(sinkPad: pad) }
                if let factory, let family = VideoFamily(parser: factory) { cache.announceVideo(family) }
            }
            if plan.dynamicElement == "hls" {
                // Its subtitle renditions are read beside hlsdemux, which must not touch them.
                let mask = LockedMask()
                p.child(named: "src")?.staticPad("src")?.onBufferEditing { mask.mask($0) }
            }
            // The demuxer does not follow a programme table changed under the same version: a
            // watch on the bytes entering it has the ingest read again at once.
            let tables = ProgramMapWatcher { [weak self] change in
                self?.onMediaThread { $0.streamChanged(connection, change) }
            }
            if plan.dynamicElement == "parse", let parse = p.child(named: "parse") { tables.watch(parse) }
            if let dynamic = plan.dynamicElement, let element = p.child(named: dynamic) {
                let cues = IngestRouter.SpliceCueReading(log: spliceCues, logger: logger, channel: "channel \(channel.number) \(channel.name)")
                cues.watch(p)
                let router = IngestRouter(pipeline: p, cache: cache, pacing: plan.pacing, needsParsebin: plan.needsParsebin, logger: logger,
                                          spliceCues: cues, tables: tables, clock: dynamic == "hls" ? webVTT.clock : nil)
                router.attach(to: element)
                self.router = router
            } else {
                router = nil
                if let video = p.appSink(named: "video") {
                    cache.markVideoStream()
                    video.onSample { [cache] s in cache.append(s, track: .video) }
                }
                if let audio = p.appSink(named: "audio") {
                    cache.markAudioStream()
                    audio.onSample { [cache] s in cache.append(s, track: .audio) }
                }
                cache.markStreamsComplete()
            }
            // A lineup that says the channel is radio needs no demuxer to say it has no video.
            if channel.isRadio { cache.markStreamsComplete() }
            cache.onFirstDelivery { [weak self] in
                self?.onMediaThread { $0.delivered(connection) }
            }
            pipeline = p
            // hlsdemux gives out no subtitle renditions (they are masked from it): followed beside it.
            if plan.dynamicElement == "hls" { webVTT.start(master: url) }
            loops = plan.loops
            loopsBySegments = plan.loopsBySegments
            loopArmed = false
            // Its bus is read where it is posted and handled on the media thread, in order.
            p.observe { [weak self] message in
                self?.onMediaThread { $0.handle(message, connection: connection) }
            }
            try p.setState(.playing)
            if let fileReader, let src = p.appSource(named: "src") { fileReader.feed(src) }
            return nil
        } catch {
            return "\(error)"
        }
    }

    private func handle(_ message: BusMessage, connection: SourceSupervisor.Connection) {
        guard connection == supervisor.connection, let pipeline else { return }
        switch message {
        case .httpHeaders(_, let status, let headers):
            lastResponse = SourceRefusal.Response(status: status, headers: headers)
        case .error(let source, let text, let debug):
            logger.debug("channel \(channel.number) pipeline error from \(source): \(SourceText.shown("\(text) [\(debug ?? "")]"))")
            let url = sourceURL(supervisor.source)
            let response = lastResponse.flatMap { $0.status >= 400 ? $0 : nil }
            // The response says, when the source is HTTP and answered; else GStreamer's text.
            let refusal = if let response { response.isRefusal ? response.status : nil } else { SourceRefusal.status(text: text, debug: debug) }
            if !supervisor.isDelivering, let refusal {
                // All the server's streams are in use: the pool's business, not a broken channel.
                let reason = SourceRefusal.reason(url: url, status: refusal, text: text, deviceError: response?.deviceError?.text)
                let retryAfter = response?.retryAfter()
                connectionRefused = true
                perform(supervisor.refused(connection, reason: reason, retryAfter: retryAfter, at: .now))
                poolEvents.send(.refused(url: url, reason: reason, retryAfter: retryAfter))
                if stateBox.archiveURL != nil { archiveStopped(.failed(reason)) }
                return
            }
            // A device that says why it gave no stream (an HDHomeRun's `806 Tune Failed`) is quoted.
            let said = response?.deviceError.map { "\(SourceRefusal.host(of: url)) gave no stream: \($0.text)" } ?? text
            let delivering = supervisor.isDelivering
            if stateBox.archiveURL != nil {
                let answer = response.map { "HTTP \($0.status)" } ?? said
                return archiveStopped(delivering ? .failed("the archive stopped (\(answer))") : .failed("the archive answered \(answer)"))
            }
            perform(supervisor.failed(connection, reason: said, at: .now))
            if delivering { poolEvents.send(.ended(url: url)) }
        case .endOfStream:
            if loops {
                if !(loopsBySegments ? pipeline.seekToStartLooping(flush: true) : pipeline.seekToStart()) {
                    perform(supervisor.failed(connection, reason: "the file cannot seek back to its start to loop", at: .now))
                }
            } else if stateBox.archiveURL != nil {
                archiveStopped(.ended)
            } else {
                let url = sourceURL(supervisor.source), delivering = supervisor.isDelivering
                perform(supervisor.failed(connection, reason: "the stream ended", at: .now))
                if delivering { poolEvents.send(.ended(url: url)) }
            }
        case .asyncDone where loops && loopsBySegments && !loopArmed:
            // Once prerolled, switch to segment seeks so the end loops back without a gap.
            loopArmed = true
            _ = pipeline.seekToStartLooping(flush: true)
        case .segmentDone:
            _ = pipeline.seekToStartLooping(flush: false)
        case .latency:
            pipeline.recalculateLatency()
        case .streamCollection(let video, let audio, _) where audio > 0:
            // The demuxer lists its streams: without video, the channel is radio.
            cache.markStreamKinds(video: video > 0)
        default:
            break
        }
    }

    /// Stops the running ingest and forgets what it cached (a dead source's GOP is stale).
    private func teardown() {
        if let p = pipeline {
            pipeline = nil
            p.shutdown()
        }
        cache.onFirstDelivery(nil)
        cache.reset()
        webVTT.stop()
    }

    /// Shuts everything down for good.
    public func shutdown() {
        stop()
    }
}

/// A `SubtitleRenditionMask` for a probe.
private final class LockedMask: @unchecked Sendable {
    private let lock = NSLock()
    private var value = SubtitleRenditionMask()
    func mask(_ bytes: UnsafeMutableRawBufferPointer) { lock.withLock { value.mask(bytes) } }
}

/// Lock-protected current state, readable from any thread.
final class StateBox: @unchecked Sendable {
    private let lock = NSLock()
    private var state: ChannelState = .cold
    private var countsValue = SourceSupervisor.Counts()
    private var open: String?
    private var archive: String?
    var value: ChannelState { lock.withLock { state } }
    var archiveURL: String? {
        get { lock.withLock { archive } }
        set { lock.withLock { archive = newValue } }
    }
    var openURL: String? {
        get { lock.withLock { open } }
        set { lock.withLock { open = newValue } }
    }
    var counts: SourceSupervisor.Counts {
        get { lock.withLock { countsValue } }
        set { lock.withLock { countsValue = newValue } }
    }
    func exchange(_ new: ChannelState) -> ChannelState {
        lock.withLock {
            let old = state
            state = new
            return old
        }
    }
}

/// Routes the dynamic pads of an ingest (`parsebin`/`urisourcebin`) to the GOP cache: the
/// first video stream, up to `IngestBranch.maxAudioStreams` audio streams and up to
/// `IngestBranch.maxSubtitleStreams` DVB subtitle and teletext streams (each kind numbered in
/// the order they appear, with the language their tags name), everything else to a fakesink.
/// Runs on streaming threads (pad-added): adds and links elements, never changes pipeline state.
final class IngestRouter: @unchecked Sendable {
    private weak var pipeline: Pipeline?
    private let cache: GOPCache
    /// The plan's rule for this kind of source.
    private let pacing: IngestPacing
    /// Decided by `pacing` at the first stream (whether it has a known length).
    private var decidedPaced: Bool?
    /// The decision, once the first stream came (for tests and the log).
    var paced: Bool? { lock.withLock { decidedPaced } }
    private let needsParsebin: Bool
    private let logger: Logger
    private let spliceCues: SpliceCueReading?
    private let tables: ProgramMapWatcher?
    /// Where the MPEG-TS clock of an HLS channel falls in the running time (its WebVTT cues).
    private let clock: MPEGTSClock?
    private let lock = NSLock()
    /// The demuxer pad whose stream has the video branch (its number, counted up per pad).
    /// An adaptive demuxer that switches variants adds a pad for the new one before it removes
    /// the old; the newest pad's video takes over.
    private var videoOwner: Int?
    private var nextOwner = 0
    /// What was built for each of the dynamic element's pads (its parsebin and branches), by
    /// pad name, with the pad's number: taken out when the pad goes.
    private var built: [String: (owner: Int, elements: [Element])] = [:]
    private var audioStreams = StreamNumbering()
    private var subtitleStreams = StreamNumbering()

    init(pipeline: Pipeline, cache: GOPCache, pacing: IngestPacing, needsParsebin: Bool, logger: Logger,
         spliceCues: SpliceCueReading? = nil, tables: ProgramMapWatcher? = nil, clock: MPEGTSClock? = nil) {
        self.tables = tables
        self.clock = clock
        self.pipeline = pipeline
        self.cache = cache
        self.pacing = pacing
        self.needsParsebin = needsParsebin
        self.logger = logger
        self.spliceCues = spliceCues
    }

    /// Reads a channel's SCTE-35 splice cues: turns them on in every `tsdemux` of its ingest and
    /// records what reaches its video branch (in order with the frames) in the channel's log; on
    /// a channel without video (radio), what reaches its first audio branch.
    struct SpliceCueReading: Sendable {
        let log: SpliceCueLog
        let logger: Logger
        let channel: String

        /// Turns cues on in the demuxers `pipeline` gets from now on (before it starts).
        func watch(_ pipeline: Pipeline) {
            pipeline.onElementAdded { [self] element in
                guard element.factoryName == "tsdemux" else { return }
                element.forwardSpliceCues { rejection in
                    guard let problem = log.record(rejection) else { return }
                    if rejection == .unaligned { logger.debug("\(channel): \(problem)") } else { logger.warning("\(channel): \(problem)") }
                }
            }
        }

        /// Records the cues passing the appsink of a video branch, mapped by `cache`'s newest frame.
        func read(at sink: AppSink, cache: GOPCache) {
            sink.staticPad("sink")?.onSpliceCommand { [self] command in
                if let problem = log.record(command, anchor: cache.newestVideoTime) { logger.warning("\(channel): \(problem)") }
            }
        }

        /// Records the cues passing the appsink of the first audio branch while the channel has
        /// no video stream (the demuxer sends them on every stream), mapped by its newest sound.
        func readAudio(at sink: AppSink, cache: GOPCache) {
            sink.staticPad("sink")?.onSpliceCommand { [self] command in
                guard !cache.hasVideoStream else { return }
                if let problem = log.record(command, anchor: cache.newestAudioTime) { logger.warning("\(channel): \(problem)") }
            }
        }
    }

    func attach(to element: Element) {
        let router = self
        element.onPadAdded { pad in router.route(pad) }
        element.onPadRemoved { pad in router.removed(pad) }
    }

    /// A pad of the dynamic element went (an adaptive demuxer's previous variant): its parsebin
    /// and branches are stopped and taken out on the media thread (where pipelines change state;
    /// never on the demuxer's own thread, which stopping them would wait for), and the video is
    /// free for the next stream if that pad had it.
    private func removed(_ pad: Pad) {
        let name = pad.name
        let gone: [Element] = lock.withLock {
            guard let entry = built.removeValue(forKey: name) else { return [] }
            if videoOwner == entry.owner { videoOwner = nil }
            return entry.elements
        }
        guard !gone.isEmpty, let pipeline else { return }
        MediaExecutor.shared.schedule { [weak pipeline] in
            guard let pipeline else { return }
            for element in gone { pipeline.removeStopped(element) }
        }
    }

    private func route(_ pad: Pad) {
        guard let pipeline else { return }
        let decided: Bool? = lock.withLock {
            guard decidedPaced == nil else { return nil }
            decidedPaced = pacing.paces(hasKnownLength: pad.hasKnownLength)
            return decidedPaced
        }
        if pacing == .realTimeWithALength, let decided {
            logger.debug("ingest \(decided ? "paced at real time (the source has a length)" : "taken as it arrives (a live stream)")")
        }
        // Each pad of an element whose pads carry whole streams (urisourcebin, hlsdemux) is an
        // owner of its own; the pads of one demuxer (parsebin) all belong to one.
        let owner: Int = needsParsebin ? lock.withLock {
            defer { nextOwner += 1 }
            return nextOwner
        } : 0
        do {
            if needsParsebin {
                let parse = try Element.make("parsebin")
                pipeline.add(parse)
                let name = pad.name
                lock.withLock { built[name] = (owner, [parse]) }
                parse.onPadAdded { [weak self] p in self?.routeParsed(p, owner: owner, ownerPad: name) }
                tables?.watch(parse)
                clock?.watch(parse, owner: owner)
                try pad.link(to: parse)
                parse.syncStateWithParent()
                return
            }
            routeParsed(pad, owner: owner, ownerPad: nil)
        } catch {
            logger.warning("cannot route stream \(pad.name): \(error)")
        }
    }

    /// Routes a parsed stream of the dynamic element's pad `ownerPad` (numbered `owner`).
    private func routeParsed(_ pad: Pad, owner: Int, ownerPad: String?) {
        guard let pipeline else { return }
        let mediaType = pad.caps?.mediaType ?? ""
        let key = pad.streamID.map { String($0.split(separator: "/").last ?? Substring($0)) }
        let (branch, stream): (IngestBranch, Int) = lock.withLock {
            let paced = decidedPaced ?? (pacing != .asItArrives)
            // A stream that comes back keeps its number (and is never over the limit).
            if mediaType.hasPrefix("audio/"), let known = audioStreams.known(key) {
                return (IngestBranch.choose(mediaType: mediaType, haveVideo: true, audioStreams: 0, paced: paced), known)
            }
            if IngestBranch.isSubtitles(mediaType), let known = subtitleStreams.known(key) {
                return (IngestBranch.choose(mediaType: mediaType, haveVideo: true, audioStreams: 0, paced: paced), known)
            }
            let haveVideo = videoOwner.map { $0 >= owner } ?? false
            let b = IngestBranch.choose(mediaType: mediaType, haveVideo: haveVideo, audioStreams: audioStreams.count,
                                        subtitleStreams: subtitleStreams.count, paced: paced)
            switch b {
            case .video: videoOwner = owner; return (b, 0)
            case .audio: return (b, audioStreams.add(key))
            case .subtitle: return (b, subtitleStreams.add(key))
            case .discard: return (b, 0)
            }
        }
        do {
            let bin: Bin
            switch branch {
            case .video(let d):
                bin = try pipeline.addBranch(d)
                cache.markVideoStream()
                if let sink = bin.appSink(named: "video") {
                    sink.onSample { [cache, clock] s in
                        cache.append(s, track: .video)
                        if let clock, let pts = s.buffer?.pts { clock.videoFrame(owner: owner, runningTime: s.runningTime(pts)) }
                    }
                    spliceCues?.read(at: sink, cache: cache)
                }
            case .audio(let d):
                bin = try pipeline.addBranch(d)
                cache.markAudioStream()
                // In MPEG-TS the stream id ends in the PID (`…:1/00000102`).
                if let key, let pid = Int(key, radix: 16), tables?.describesPicture(pid: pid) == true {
                    cache.markAudioDescription(stream: stream)
                }
                readLanguage(of: bin, stream: stream, track: .audio)
                if let sink = bin.appSink(named: "audio") {
                    sink.onSample { [cache] s in cache.append(s, track: .audio, stream: stream) }
                    if stream == 0 { spliceCues?.readAudio(at: sink, cache: cache) }
                }
            case .subtitle(let d):
                bin = try pipeline.addBranch(d)
                readLanguage(of: bin, stream: stream, track: .subtitle)
                if mediaType == GOPCache.teletextMediaType { readTeletextPages(pid: key.flatMap { Int($0, radix: 16) }, stream: stream) }
                bin.appSink(named: "subtitle")?.onSample { [cache] s in cache.append(s, track: .subtitle, stream: stream) }
            case .discard:
                bin = try pipeline.addBranch("fakesink sync=false async=false")
            }
            if let ownerPad { lock.withLock { built[ownerPad]?.elements.append(bin) } }
            try pad.link(to: bin)
            bin.syncStateWithParent()
        } catch {
            logger.warning("cannot route \(mediaType) stream: \(error)")
        }
    }

    /// Records the pages the programme table names for the teletext stream on `pid` (read before
    /// the demuxer added the stream's pad). A stream that names no subtitle page is listed as no
    /// track: no page could be chosen to show.
    private func readTeletextPages(pid: Int?, stream: Int) {
        let pages = pid.flatMap { tables?.teletextPages(pid: $0) } ?? []
        cache.setTeletextPages(pages, stream: stream)
        if !pages.contains(where: { $0.isSubtitles && $0.number != nil }) {
            logger.info("the teletext stream\(pid.map { " on PID \($0)" } ?? "") names no subtitle page in its programme table (teletext descriptor); its subtitles cannot be shown")
        }
    }

    /// Records the language the tags of `bin`'s stream name. Tags are sticky: they reach the
    /// branch with the stream's first data.
    private func readLanguage(of bin: Bin, stream: Int, track: GOPCache.Track) {
        bin.staticPad("sink")?.onTags { [cache] tags in
            if let code = tags["language-code"].flatMap(LanguageCode.normalized) { cache.setLanguage(code, stream: stream, track: track) }
        }
    }
}

/// Numbers the streams of one kind in the order they appear. A stream is known by its stream
/// id's last part (in MPEG-TS, program and PID): one that comes back as a new pad (a codec
/// change on its PID makes the demuxer expose a new one) keeps its number, so the decoder
/// playing it follows it. Not thread-safe: the router's lock guards it.
struct StreamNumbering {
    private var numberByID: [String: Int] = [:]
    /// Streams numbered so far.
    private(set) var count = 0

    /// The number of the stream `key` names, when it was seen before.
    func known(_ key: String?) -> Int? { key.flatMap { numberByID[$0] } }

    /// Numbers a new stream (`key` nil: one the demuxer gives no id).
    mutating func add(_ key: String?) -> Int {
        let n = count
        count += 1
        if let key { numberByID[key] = n }
        return n
    }
}

/// A `ProgramMapWatch` on the bytes entering a demuxing `parsebin`, on its streaming thread:
/// tells the first change it finds, once (the ingest is then read again, with a new watch).
final class ProgramMapWatcher: @unchecked Sendable {
    private let lock = NSLock()
    private var watch = ProgramMapWatch()
    private var told = false
    private let onChange: @Sendable (ProgramMapWatch.Change) -> Void

    init(onChange: @escaping @Sendable (ProgramMapWatch.Change) -> Void) { self.onChange = onChange }

    /// Whether the stream on `pid` is audio description, as the programme's table says (read
    /// before the demuxer adds the stream's pad: the table comes first).
    func describesPicture(pid: Int) -> Bool { lock.withLock { watch.describingPIDs.contains(pid) } }

    /// The pages the teletext descriptor of the stream on `pid` names (`ProgramMapWatch.teletextPages`).
    func teletextPages(pid: Int) -> [TeletextPage]? { lock.withLock { watch.teletextPages(pid: pid) } }

    /// Watches what enters `parsebin` (a transport stream, or anything else: then nothing is found).
    func watch(_ parsebin: Element) {
        parsebin.staticPad("sink")?.onBuffer { [self] buffer in
            let change: ProgramMapWatch.Change? = lock.withLock {
                guard !told, let found = buffer.withBytes({ watch.read($0) })?.first else { return nil }
                told = true
                return found
            }
            if let change { onChange(change) }
        }
    }
}
