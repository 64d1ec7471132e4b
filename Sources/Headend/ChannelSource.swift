import Foundation
import GStreamer
import Lineup
import Logging

/// One channel's ingest: connects its source, demuxes and parses (no decoding) into a
/// `GOPCache`, and supervises it: a source that stops delivering for `stallTimeout` is
/// `stalled` and restarted with backoff; errors move on to the backup sources in order.
///
/// Isolated to the media thread; `state` and `cache` may be read from anywhere.
public actor ChannelSource {
    public nonisolated var unownedExecutor: UnownedSerialExecutor { MediaExecutor.shared.asUnownedSerialExecutor() }

    public nonisolated let channel: Channel
    public nonisolated let cache: GOPCache
    private nonisolated let stateBox: StateBox
    private let logger: Logger
    private let onStateChange: @Sendable (ChannelState) -> Void

    private var pipeline: Pipeline?
    private var generation = 0
    private var sourceIndex = 0
    private var failures = 0
    private var wanted = false
    private var watchdog: Task<Void, Never>?
    /// Decoders fed by this source, by feed id.
    private var hotFeeds: Set<UInt> = []

    /// A source silent for this long is stalled (default).
    public static let defaultStallTimeout: Duration = .seconds(2)
    /// A source that has not delivered anything this long after starting has failed to connect
    /// (default); the next backup source is tried then.
    public static let defaultConnectTimeout: Duration = .seconds(10)

    /// A source silent for this long is stalled.
    public nonisolated let stallTimeout: Duration
    /// A source that has not delivered anything this long after starting has failed to connect.
    public nonisolated let connectTimeout: Duration

    public init(channel: Channel, cacheBudgetBytes: Int = WarmBudget.defaultChannelBytes, logger: Logger,
                stallTimeout: Duration = ChannelSource.defaultStallTimeout,
                connectTimeout: Duration = ChannelSource.defaultConnectTimeout,
                onStateChange: @escaping @Sendable (ChannelState) -> Void) {
        self.channel = channel
        self.stallTimeout = stallTimeout
        self.connectTimeout = connectTimeout
        self.cache = GOPCache(budgetBytes: cacheBudgetBytes)
        self.stateBox = StateBox()
        self.logger = logger
        self.onStateChange = onStateChange
    }

    /// The current state (any thread).
    public nonisolated var state: ChannelState { stateBox.value }

    private func setState(_ s: ChannelState) {
        if stateBox.exchange(s) != s { onStateChange(s) }
    }

    /// True while the source runs (warm or better, or trying to be).
    public var isRunning: Bool { wanted }

    /// Starts the ingest if it is not running. Returns at once; the state reports progress.
    public func start() {
        guard !wanted else { return }
        wanted = true
        failures = 0
        connect()
        watchdog = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                await self?.checkHealth()
            }
        }
    }

    /// Stops the ingest and forgets the cache (the channel goes cold). `reason`, when given,
    /// says why the channel is held cold (`parked`).
    public func stop(reason: String? = nil) {
        wanted = false
        watchdog?.cancel()
        watchdog = nil
        teardown()
        cache.reset()
        setState(reason.map { .parked(reason: $0) } ?? .cold)
    }

    /// Marks the channel hot (decoded for the screen) or back to warm.
    func setHot(_ feed: UInt, _ hot: Bool) {
        if hot { hotFeeds.insert(feed) } else { hotFeeds.remove(feed) }
        followVariants()
        if case .stalled = state { return }
        if case .failed = state { return }
        if cache.lastDelivery != nil { setState(hotFeeds.isEmpty ? .warm : .hot) }
    }

    /// The connection speed (kbps) told to adaptive demuxers: 1 while warm, so HLS follows its
    /// lowest-bitrate variant (cheap to keep, its keyframes are what a flip starts from); the
    /// largest value while hot, so it takes the best variant. (Not 0, "measure": the ingest is
    /// paced to real time, so the demuxer would measure the playback rate of the low variant and
    /// never move up.)
    var variantSpeed: UInt32 { hotFeeds.isEmpty ? 1 : 4_294_967 }

    /// Tells the running adaptive demuxers the speed for the current tier. They switch at their
    /// next segment; segments start at a keyframe, so the picture changes without a gap.
    private func followVariants() {
        guard let pipeline else { return }
        for demuxer in pipeline.descendants(factory: "hlsdemux") + pipeline.descendants(factory: "hlsdemux2") {
            demuxer.set("connection-speed", uint: variantSpeed)
        }
        if let src = pipeline.child(named: "src"), src.hasProperty("connection-speed") {
            src.set("connection-speed", uint64: UInt(variantSpeed))
        }
    }

    private var startedAt: ContinuousClock.Instant = .now
    private var loopArmed = false

    private func connect() {
        teardown()
        cache.reset()
        generation += 1
        let gen = generation
        let url = channel.sources[sourceIndex % max(1, channel.sources.count)]
        startedAt = .now
        // A reconnect keeps saying why the channel is down (stalled/failed) until data flows again.
        switch state {
        case .stalled, .failed: break
        default: setState(.connecting)
        }
        do {
            let plan = try IngestPlan.make(for: url)
            let p = try Pipeline(description: plan.description)
            for case .property(let element, let name, let value) in plan.setup {
                p.child(named: element)?.set(name, string: value)
            }
            if let src = p.child(named: "src"), src.hasProperty("connection-speed") {
                // Adaptive streams (HLS) start on the variant the tier asks for.
                src.set("connection-speed", uint64: UInt(variantSpeed))
            }
            if let dynamic = plan.dynamicElement, let element = p.child(named: dynamic) {
                IngestRouter(pipeline: p, cache: cache, paced: plan.paced, needsParsebin: plan.needsParsebin, logger: logger)
                    .attach(to: element)
            } else {
                p.appSink(named: "video")?.onSample { [cache] s in cache.append(s, track: .video) }
                if let audio = p.appSink(named: "audio") {
                    cache.markAudioStream()
                    audio.onSample { [cache] s in cache.append(s, track: .audio) }
                }
            }
            pipeline = p
            Task { [weak self] in
                for await message in p.messages {
                    await self?.handle(message, generation: gen, loops: plan.loops)
                }
            }
            loopArmed = false
            try p.setState(.playing)
        } catch {
            fail("\(error)", url: url)
        }
    }

    private func handle(_ message: BusMessage, generation gen: Int, loops: Bool) {
        guard gen == generation, let pipeline else { return }
        switch message {
        case .error(let source, let text, let debug):
            logger.debug("channel \(channel.number) pipeline error from \(source): \(text) [\(debug ?? "")]")
            fail(text, url: channel.sources[sourceIndex % max(1, channel.sources.count)])
        case .endOfStream:
            if loops { _ = pipeline.seekToStartLooping(flush: true) } else {
                fail("the stream ended", url: channel.sources[sourceIndex % max(1, channel.sources.count)])
            }
        case .asyncDone where loops && !loopArmed:
            // Once prerolled, switch to segment seeks so the end loops back without a gap.
            loopArmed = true
            _ = pipeline.seekToStartLooping(flush: true)
        case .segmentDone:
            _ = pipeline.seekToStartLooping(flush: false)
        case .latency:
            pipeline.recalculateLatency()
        default:
            break
        }
    }

    private func checkHealth() {
        // Between a failure and the reconnect there is no pipeline: nothing to judge (the cache
        // still remembers the last delivery, which must not make a dead source look warm).
        guard wanted, pipeline != nil else { return }
        let now = ContinuousClock.now
        if let last = cache.lastDelivery {
            if now - last > stallTimeout {
                if case .stalled = state {} else {
                    logger.warning("channel \(channel.number) \(channel.name): no data for \(stallTimeout), reconnecting")
                }
                setState(.stalled(reason: "no data from the source for \(stallTimeout.formatted(.units(allowed: [.seconds])))"))
                scheduleReconnect(advanceSource: true)
            } else if case .connecting = state {
                failures = 0
                setState(hotFeeds.isEmpty ? .warm : .hot)
            } else if case .stalled = state {
                failures = 0
                setState(hotFeeds.isEmpty ? .warm : .hot)
            } else if case .failed = state {
                failures = 0
                setState(hotFeeds.isEmpty ? .warm : .hot)
            }
        } else if pipeline != nil, now - startedAt > connectTimeout {
            fail("nothing received within \(connectTimeout.formatted(.units(allowed: [.seconds])))",
                 url: channel.sources[sourceIndex % max(1, channel.sources.count)])
        }
    }

    private var reconnectAt: ContinuousClock.Instant?

    private func fail(_ reason: String, url: String) {
        logger.warning("channel \(channel.number) \(channel.name): \(url): \(reason)")
        teardown()
        setState(.failed(error: "\(reason) (\(url))"))
        scheduleReconnect(advanceSource: true)
    }

    private func scheduleReconnect(advanceSource: Bool) {
        guard wanted, reconnectAt == nil else { return }
        teardown()
        failures += 1
        if advanceSource && channel.sources.count > 1 { sourceIndex = (sourceIndex + 1) % channel.sources.count }
        // Backoff: 0.5 s, 1 s, 2 s, ... up to 10 s; a fresh backup source is tried at once.
        let delay: Duration = (advanceSource && channel.sources.count > 1 && sourceIndex != 0)
            ? .milliseconds(100)
            : .milliseconds(min(10_000, 250 << min(failures, 6)))
        let at = ContinuousClock.now + delay
        reconnectAt = at
        Task { [weak self] in
            try? await Task.sleep(until: at)
            await self?.reconnectNow()
        }
    }

    private func reconnectNow() {
        reconnectAt = nil
        guard wanted else { return }
        connect()
    }

    private func teardown() {
        generation += 1
        if let p = pipeline {
            pipeline = nil
            p.shutdown()
        }
    }

    /// Shuts everything down for good.
    public func shutdown() {
        stop()
    }
}

/// Lock-protected current state, readable from any thread.
final class StateBox: @unchecked Sendable {
    private let lock = NSLock()
    private var state: ChannelState = .cold
    var value: ChannelState { lock.withLock { state } }
    func exchange(_ new: ChannelState) -> ChannelState {
        lock.withLock {
            let old = state
            state = new
            return old
        }
    }
}

/// Routes the dynamic pads of an ingest (`parsebin`/`urisourcebin`) to the GOP cache:
/// the first video and the first audio stream, everything else to a fakesink.
/// Runs on streaming threads (pad-added): adds and links elements, never changes pipeline state.
final class IngestRouter: @unchecked Sendable {
    private weak var pipeline: Pipeline?
    private let cache: GOPCache
    private let paced: Bool
    private let needsParsebin: Bool
    private let logger: Logger
    private let lock = NSLock()
    private var haveVideo = false
    private var haveAudio = false

    init(pipeline: Pipeline, cache: GOPCache, paced: Bool, needsParsebin: Bool, logger: Logger) {
        self.pipeline = pipeline
        self.cache = cache
        self.paced = paced
        self.needsParsebin = needsParsebin
        self.logger = logger
    }

    func attach(to element: Element) {
        let router = self
        element.onPadAdded { pad in router.route(pad) }
    }

    private func route(_ pad: Pad) {
        guard let pipeline else { return }
        do {
            if needsParsebin {
                let parse = try Element.make("parsebin")
                pipeline.add(parse)
                parse.onPadAdded { [weak self] p in self?.routeParsed(p) }
                try pad.link(to: parse)
                parse.syncStateWithParent()
                return
            }
            routeParsed(pad)
        } catch {
            logger.warning("cannot route stream \(pad.name): \(error)")
        }
    }

    private func routeParsed(_ pad: Pad) {
        guard let pipeline else { return }
        let mediaType = pad.caps?.mediaType ?? ""
        let branch: IngestBranch = lock.withLock {
            let b = IngestBranch.choose(mediaType: mediaType, haveVideo: haveVideo, haveAudio: haveAudio, paced: paced)
            if case .video = b { haveVideo = true }
            if case .audio = b { haveAudio = true }
            return b
        }
        do {
            let bin: Bin
            switch branch {
            case .video(let d):
                bin = try pipeline.addBranch(d)
                bin.appSink(named: "video")?.onSample { [cache] s in cache.append(s, track: .video) }
            case .audio(let d):
                bin = try pipeline.addBranch(d)
                cache.markAudioStream()
                bin.appSink(named: "audio")?.onSample { [cache] s in cache.append(s, track: .audio) }
            case .discard:
                bin = try pipeline.addBranch("fakesink sync=false async=false")
            }
            try pad.link(to: bin)
            bin.syncStateWithParent()
        } catch {
            logger.warning("cannot route \(mediaType) stream: \(error)")
        }
    }
}
