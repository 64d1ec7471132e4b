import Foundation
import GStreamer
import Headend
import Lineup
import Logging
import Output

/// Settings of a player.
public struct PlayerOptions: Sendable {
    public var sink: OutputSink
    public var width: Int
    public var height: Int
    public var fps: Int
    public var warm: WarmPolicy
    public var logo: LogoPlacement
    /// A flip that shows no frame within this time fails.
    public var tuneTimeout: Duration
    public var startChannel: ChannelNumber?

    public init(sink: OutputSink = .headless, width: Int = 1280, height: Int = 720, fps: Int = 30,
                warm: WarmPolicy = .all, logo: LogoPlacement = LogoPlacement(),
                tuneTimeout: Duration = .seconds(8), startChannel: ChannelNumber? = nil) {
        self.sink = sink
        self.width = width
        self.height = height
        self.fps = fps
        self.warm = warm
        self.logo = logo
        self.tuneTimeout = tuneTimeout
        self.startChannel = startChannel
    }
}

/// The channel-flipping player: lineup in, one output out.
///
/// Every `flip` gets a request id and exactly one `FlipResult`: `completed` when the target's
/// first frame reached the output sink, `failed` with a reason, or `superseded` when a newer
/// request retargeted it (a held key). Requests are relative to the newest target, so ten
/// quick "next" presses land ten channels on.
public actor Player {
    public nonisolated let lineup: Lineup
    public nonisolated let options: PlayerOptions
    public nonisolated let output: OutputPipeline
    public nonisolated let headend: Headend
    private nonisolated let hub = EventHub<PlayerEvent>()
    private let logos: LogoOverlays
    private let logger: Logger
    private let startedAt = ContinuousClock.now

    private var current: Int?
    private var previous: Int?
    private var shownFeed: UInt?
    private var inFlight: Flight?
    private var nextRequestID: UInt64 = 1
    private var lastFlip: FlipResult?

    /// One flip on its way.
    final class Flight: Sendable {
        let id: UInt64
        let request: FlipRequest
        let target: Int
        let startedAt: ContinuousClock.Instant
        let result = OneShot<FlipResult>()
        let feed = OneShot<UInt>()
        /// Set once the player has applied the result (see `settle`).
        let settledMark = OneShot<Bool>()
        init(id: UInt64, request: FlipRequest, target: Int, startedAt: ContinuousClock.Instant) {
            self.id = id
            self.request = request
            self.target = target
            self.startedAt = startedAt
        }
    }

    public init(lineup: Lineup, options: PlayerOptions, logoCache: LogoCache = LogoCache(), logger: Logger) throws {
        self.lineup = lineup
        self.options = options
        self.logger = logger
        output = try OutputPipeline(sink: options.sink, width: options.width, height: options.height, fps: options.fps, logger: logger)
        logos = LogoOverlays(placement: options.logo, width: options.width, height: options.height, cache: logoCache, logger: logger)
        let hub = self.hub
        headend = Headend(lineup: lineup, policy: options.warm, target: DecodeTarget(width: options.width, height: options.height),
                          logger: logger) { channel, state in
            hub.publish(.channelState(channel: ChannelSummary(channel), state: state))
        }
    }

    /// Starts the output and the warm channels, then tunes the start channel (not awaited).
    public func start() async throws {
        guard !lineup.channels.isEmpty else { throw GStreamerError(code: .io, message: "the lineup has no channels") }
        try await output.start()
        let start = options.startChannel.flatMap { lineup.index(of: $0) } ?? 0
        await headend.applyPolicy(current: start, last: nil)
        for channel in lineup.channels { _ = await logos.overlay(for: channel) }
        let number = lineup.channels[start].number
        Task { _ = await self.flip(.tune(number)) }
    }

    public func shutdown() async {
        await headend.shutdown()
        await output.shutdown()
        hub.finish()
    }

    // MARK: Flipping

    /// Flips and returns the single result of this request.
    public func flip(_ request: FlipRequest) async -> FlipResult {
        let t0 = ContinuousClock.now
        let id = nextRequestID
        nextRequestID += 1
        let base = inFlight?.target ?? current
        guard let target = resolve(request, from: base) else {
            let result = FlipResult(requestID: id, outcome: .failed, channel: nil, error: unknownMessage(request),
                                    failure: unknownFailure(request))
            hub.publish(.flipStarted(requestID: id, request: request, target: nil))
            return finish(result)
        }
        let channel = lineup.channels[target]
        hub.publish(.flipStarted(requestID: id, request: request, target: ChannelSummary(channel)))
        if let old = inFlight {
            inFlight = nil
            await retire(old, supersededBy: id)
        }
        if target == current && inFlight == nil {
            // Already on screen: nothing to do.
            return finish(FlipResult(requestID: id, outcome: .completed, channel: ChannelSummary(channel),
                                     latency: ContinuousClock.now - t0, path: .hot))
        }
        let flight = Flight(id: id, request: request, target: target, startedAt: t0)
        inFlight = flight
        logger.info("flip #\(id) \(request) -> \(channel.number) \(channel.name)")
        let overlay = await logos.overlay(for: channel)
        guard inFlight === flight else { return await flight.result.wait() }
        let summary = ChannelSummary(channel)
        do {
            // The output learns the feed before the decoder exists, so no first frame is missed.
            let output = self.output
            let activation = try await headend.activate(channel, sink: output) { feed, path in
                guard flight.result.resolved == nil else { return }
                output.expect(feed: feed, overlays: overlay.map { [$0] } ?? []) { at in
                    flight.result.resolve(FlipResult(requestID: id, outcome: .completed, channel: summary,
                                                     latency: at - t0, path: path))
                }
            }
            flight.feed.resolve(activation.feed)
            if flight.settledMark.resolved != nil {
                // Superseded while the decoder was being set up.
                output.cancel(feed: activation.feed)
                await headend.deactivate(feed: activation.feed)
            }
        } catch {
            flight.result.resolve(FlipResult(requestID: id, outcome: .failed, channel: summary, error: "\(error)"))
        }
        if inFlight === flight {
            let timeout = options.tuneTimeout
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                await self?.timeOut(flight)
            }
        }
        let result = await flight.result.wait()
        await settle(flight, result)
        return result
    }

    /// Applies a resolved flight once: on completion the target becomes current and the old
    /// decoder stops; otherwise the flight's decoder stops and the screen stays as it was.
    private func settle(_ flight: Flight, _ result: FlipResult) async {
        guard flight.settledMark.resolve(true) else { return }
        if inFlight === flight { inFlight = nil }
        let feed = flight.feed.resolved
        switch result.outcome {
        case .completed:
            if current != flight.target { previous = current }
            current = flight.target
            let oldFeed = shownFeed
            shownFeed = feed
            if let oldFeed, oldFeed != feed { await headend.deactivate(feed: oldFeed) }
            _ = finish(result)
            await headend.applyPolicy(current: current, last: previous)
        case .failed, .superseded:
            if let feed {
                output.cancel(feed: feed)
                await headend.deactivate(feed: feed)
            }
            _ = finish(result)
        }
    }


    private func retire(_ flight: Flight, supersededBy id: UInt64) async {
        let target = lineup.channels[flight.target]
        flight.result.resolve(FlipResult(requestID: flight.id, outcome: .superseded, channel: ChannelSummary(target), supersededBy: id))
        if let r = flight.result.resolved { await settle(flight, r) }
    }

    private func timeOut(_ flight: Flight) async {
        let channel = lineup.channels[flight.target]
        let state = headend.sources[flight.target].state
        let why = state.reason.map { ": \($0)" } ?? ""
        let result = FlipResult(requestID: flight.id, outcome: .failed, channel: ChannelSummary(channel),
                                error: "timed out: no picture from channel \(channel.number) \(channel.name) within \(seconds(options.tuneTimeout))\(why)",
                                failure: .timedOut)
        if flight.result.resolve(result) { await settle(flight, result) }
    }

    private func finish(_ result: FlipResult) -> FlipResult {
        if result.outcome != .superseded { lastFlip = result }
        hub.publish(.flipCompleted(result))
        switch result.outcome {
        case .completed:
            logger.info("flip #\(result.requestID) completed on \(result.channel?.number ?? "?") in \(String(format: "%.1f", result.latencyMilliseconds ?? 0)) ms (\(result.path?.rawValue ?? "?"))")
        case .failed:
            logger.warning("flip #\(result.requestID) failed: \(result.error ?? "")")
        case .superseded:
            logger.debug("flip #\(result.requestID) superseded by #\(result.supersededBy ?? 0)")
        }
        return result
    }

    private func resolve(_ request: FlipRequest, from base: Int?) -> Int? {
        let count = lineup.channels.count
        guard count > 0 else { return nil }
        switch request {
        case .next: return base.map { ($0 + 1) % count } ?? 0
        case .previous: return base.map { ($0 - 1 + count) % count } ?? 0
        case .tune(let n): return lineup.index(of: n)
        case .tuneID(let id): return lineup.channels.firstIndex { $0.id == id }
        case .recall: return previous ?? current
        }
    }

    private func unknownFailure(_ request: FlipRequest) -> FlipFailure {
        switch request {
        case .tune, .tuneID: .unknownChannel
        default: .nothingToFlipTo
        }
    }

    private func unknownMessage(_ request: FlipRequest) -> String {
        switch request {
        case .tune(let n): "unknown channel \(n)"
        case .tuneID(let id): "unknown channel id \(id)"
        default: "no channel to flip to"
        }
    }

    // MARK: State

    public func status() -> PlayerStatus {
        PlayerStatus(channel: current.map { lineup.channels[$0] },
                     output: OutputFormat(width: options.width, height: options.height, fps: options.fps, sink: options.sink.rawValue),
                     uptime: ContinuousClock.now - startedAt, lastFlip: lastFlip)
    }

    public nonisolated func channels() -> [ChannelStatus] {
        zip(lineup.channels, headend.states()).map { ChannelStatus(channel: $0, state: $1) }
    }

    public nonisolated func snapshotPNG(width: Int?) async throws -> [UInt8] {
        try output.snapshotPNG(width: width)
    }

    public nonisolated func events() -> AsyncStream<PlayerEvent> { hub.subscribe() }

    /// The output feed of the channel on screen (for the benchmark's per-flip timing).
    public var shownFeedID: UInt? { shownFeed }
}


/// `1.5 s`, `8 s`: a duration for people.
func seconds(_ d: Duration) -> String {
    let s = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    return s == s.rounded() ? "\(Int(s)) s" : String(format: "%.1f s", s)
}
