import FlipboxCore
import Foundation
import Headend
import Hummingbird
import Lineup
import Prometheus
import ServiceLifecycle
import Switcher

/// The figures `GET /metrics` serves in Prometheus text format (docs/metrics in docs/security.md's
/// neighbour, deploy/grafana-flipbox.json):
///
/// - `flipbox_flip_duration_seconds{path,outcome}`: histogram of flip latency (request to first
///   frame on the sink); `flipbox_flips_total{path,outcome}` counts every flip, with or without a latency.
/// - `flipbox_cards_shown_total{kind}`, `flipbox_channel_state_changes_total{state}`.
/// - `flipbox_channels{state}`: channels in each state, read from the player at each scrape.
/// - `flipbox_http_requests_total{route,method,status}`: every answer of the control API.
/// - `flipbox_pipelines`, `flipbox_open_files`, `flipbox_open_files_limit`,
///   `flipbox_resident_memory_bytes`, `flipbox_heap_in_use_bytes`, `flipbox_heap_free_bytes`:
///   the process figures of `/api/v1/status`.
///
/// Flip and card figures come from the player's event stream (``observe(_:)``), so they count
/// flips from keys, the API and the web remote alike. Thread-safe: the registry locks.
public final class ControlMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()

    /// Upper bounds of the flip latency buckets: hot and warm flips land under 100 ms, cold ones in
    /// seconds, timeouts at 8 s.
    static let flipBuckets: [Duration] = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16].map { .milliseconds(Int($0 * 1000)) }

    /// Every fine channel state, so each has a series (0 when no channel is in it).
    static let channelStates = ["cold", "parked", "connecting", "warm", "hot", "stalled", "failed"]

    public init() {}

    private static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "flipbox", metricName: metric, unitName: unit, helpText: help)
    }

    // MARK: Events

    /// Counts what the player reports until its stream ends (or the task is cancelled).
    public func observe(_ events: AsyncStream<PlayerEvent>) async {
        for await event in events { record(event) }
    }

    func record(_ event: PlayerEvent) {
        switch event {
        case .flipCompleted(let result):
            let labels = [("path", result.path?.rawValue ?? "none"), ("outcome", result.outcome.rawValue)]
            registry.makeCounter(descriptor: Self.name("flips", "total", "Flips by path (hot, warm, cold; none when it never got one) and outcome"),
                                 labels: labels).increment()
            if let latency = result.latency {
                registry.makeDurationHistogram(
                    descriptor: Self.name("flip_duration", "seconds", "Flip latency from the request to the first frame on the output, by path and outcome"),
                    labels: labels, buckets: Self.flipBuckets
                ).record(latency)
            }
        case .cardShown(_, _, let kind):
            registry.makeCounter(descriptor: Self.name("cards_shown", "total", "Interstitial cards shown, by kind"),
                                 labels: [("kind", Self.label(kind))]).increment()
        case .channelState(_, let state):
            registry.makeCounter(descriptor: Self.name("channel_state_changes", "total", "Channel state changes, by the state entered"),
                                 labels: [("state", Self.stateName(state))]).increment()
        case .flipStarted, .flipRetargeted, .cardHidden, .timeshift, .lockShown, .lockHidden, .programmeChanged, .proposalShown, .proposalHidden, .clip, .recording:
            break
        }
    }

    // MARK: HTTP

    /// Counts one answer of the API. `route` is the router's path template (`/api/v1/tune/{number}`),
    /// so the series stay few whatever the URLs; requests no route matched count as `unmatched`
    /// (Hummingbird names them `NotFound`).
    func recordRequest(route: String?, method: HTTPRequest.Method, status: HTTPResponse.Status) {
        let name = route.flatMap { $0 == "NotFound" ? nil : $0 } ?? "unmatched"
        let known: Set<HTTPRequest.Method> = [.get, .head, .post, .put, .delete, .patch, .options]
        registry.makeCounter(
            descriptor: Self.name("http_requests", "total", "Control API answers by route, method and status"),
            labels: [("route", name), ("method", known.contains(method) ? method.rawValue : "other"),
                     ("status", String(status.code))]
        ).increment()
    }

    // MARK: Scrape

    /// Totals read from elsewhere, as last told to their counters (a counter only goes up by
    /// the difference).
    private let totals = Totals()

    /// Figures from parts the player does not own (the head-end's serving), read at each scrape.
    private let sources = FigureSources()

    /// Adds figures read at each scrape, from a part the player does not own.
    public func addFigures(_ read: @escaping @Sendable () async -> [MetricFigure]) { sources.add(read) }

    /// The text exposition, with the channel and process figures read from `player` now.
    func scrape(_ player: some FlipControl & FiguresControl) async -> [UInt8] {
        let figures = await player.figures()
        record(figures)
        for read in sources.all { for figure in await read() { record(figure) } }
        var counts = Dictionary(uniqueKeysWithValues: Self.channelStates.map { ($0, 0) })
        for channel in await player.channels() { counts[Self.stateName(channel.state), default: 0] += 1 }
        for (state, count) in counts {
            registry.makeGauge(descriptor: Self.name("channels", "", "Channels in each state"), labels: [("state", state)])
                .set(Double(count))
        }
        let status = await player.status()
        for pool in status.pools {
            let label = [("pool", pool.name)]
            gauge("pool_streams_open", "", "Streams open in a pool of rationed streams (a tuner's, an IPTV account's)", Double(pool.open), labels: label)
            if let limit = pool.limit {
                gauge("pool_streams", "limit", "The most streams a pool gives at once (given, told by the source, or learned)", Double(limit), labels: label)
            }
            total("pool_connection_attempts", "total", "Streams the box asked a pool's source for", value: pool.attempts, labels: label)
            total("pool_refusals", "total", "Streams a pool's source refused because all were in use", value: pool.refusals, labels: label)
            total("pool_streams_ended_by_server", "total", "Streams a pool's source ended while they delivered", value: pool.endedByServer, labels: label)
            total("pool_connections_held_back", "total", "Connections of warm channels held back by a pool's allowance or its source's Retry-After",
                  value: pool.heldBack, labels: label)
            gauge("pool_warm_flip_ratio", "", "The share of flips to a pool's channels that found the channel warm",
                  pool.flips > 0 ? Double(pool.warmFlips) / Double(pool.flips) : 0, labels: label)
        }
        if let resources = status.resources {
            registry.makeGauge(descriptor: Self.name("pipelines", "", "GStreamer pipelines alive in the process")).set(Double(resources.pipelines))
            registry.makeGauge(descriptor: Self.name("open_files", "", "Open file descriptors")).set(Double(resources.openFiles))
            registry.makeGauge(descriptor: Self.name("open_files", "limit", "The soft limit on open files")).set(Double(resources.fileLimit))
            registry.makeGauge(descriptor: Self.name("resident_memory", "bytes", "Resident memory")).set(Double(resources.residentBytes))
            registry.makeGauge(descriptor: Self.name("heap_in_use", "bytes", "C heap bytes the process holds (a leak grows this)")).set(Double(resources.heapInUseBytes))
            registry.makeGauge(descriptor: Self.name("heap_free", "bytes", "C heap bytes freed but kept by the allocator")).set(Double(resources.heapFreeBytes))
        }
        return registry.emitToBuffer()
    }

    private func record(_ figures: PlayerFigures) {
        let output = figures.output
        total("output_frames_shown", "total", "Frames that reached the display", value: output.framesShown)
        total("output_frames_repeated", "total", "Frames repeated because no new frame came for two frame periods", value: output.framesRepeated)
        total("output_gaps", "total", "Intervals between frames at the display over 100 ms", value: output.gapCount)
        gauge("output_longest_gap", "seconds", "The longest interval between two frames at the display since the start", output.longestGap.seconds)
        gauge("output_longest_still_picture", "seconds",
              "The longest run of one unchanging channel picture since the start (a frozen picture, or a source sending a still)", output.longestStill.seconds)
        let headend = figures.headend
        for source in headend.sources {
            let channel = [("channel", source.channel.description)]
            total("source_stalls", "total", "Times a channel's source went silent for the stall timeout", value: source.counts.stalls, labels: channel)
            total("source_failures", "total", "Connection attempts to a channel's source that failed", value: source.counts.failures, labels: channel)
            total("source_reconnects", "total", "Connections made again after a stall or a failure", value: source.counts.reconnects, labels: channel)
            total("source_failovers", "total", "Retries that moved to another of the channel's sources", value: source.counts.failovers, labels: channel)
            gauge("warm_cache", "bytes", "Bytes in a channel's cache of compressed data since its last keyframe", Double(source.cacheBytes), labels: channel)
        }
        gauge("warm_cache_total", "bytes", "Bytes in every channel's cache", Double(headend.sources.reduce(0) { $0 + $1.cacheBytes }))
        gauge("decoders", "", "Decoders: bound to a picture, or spare (idle, kept ready for a flip)", Double(headend.decoders), labels: [("role", "bound")])
        gauge("decoders", "", "Decoders: bound to a picture, or spare (idle, kept ready for a flip)", Double(headend.spareDecoders), labels: [("role", "spare")])
        gauge("ingest_taps", "", "Open taps on channels' ingest (timeshift, republishing, clips)", Double(headend.taps))
        if let timeshift = headend.timeshift {
            gauge("timeshift_buffer", "bytes", "Timeshift buffers, in memory and on disk", Double(timeshift.memory), labels: [("where", "memory")])
            gauge("timeshift_buffer", "bytes", "Timeshift buffers, in memory and on disk", Double(timeshift.disk), labels: [("where", "disk")])
        }
    }

    private func record(_ figure: MetricFigure) {
        switch figure.kind {
        case .gauge: gauge(figure.name, figure.unit, figure.help, figure.value, labels: figure.labels)
        case .total: total(figure.name, figure.unit, figure.help, value: Int(figure.value), labels: figure.labels)
        }
    }

    private func gauge(_ name: String, _ unit: String, _ help: String, _ value: Double, labels: [(String, String)] = []) {
        registry.makeGauge(descriptor: Self.name(name, unit, help), labels: labels).set(value)
    }

    /// A counter brought up to `value`, a total kept elsewhere (it never goes down).
    private func total(_ name: String, _ unit: String, _ help: String, value: Int, labels: [(String, String)] = []) {
        let key = name + labels.map { "|\($0.0)=\($0.1)" }.joined()
        let delta = totals.advance(key, to: value)
        let counter = registry.makeCounter(descriptor: Self.name(name, unit, help), labels: labels)
        if delta > 0 { counter.increment(by: Int64(delta)) }
    }

    /// The fine state name of a channel: `cold`, `parked`, `connecting`, `warm`, `hot`, `stalled`, `failed`.
    static func stateName(_ state: ChannelState) -> String {
        switch state {
        case .cold: "cold"
        case .parked: "parked"
        case .connecting: "connecting"
        case .warm: "warm"
        case .hot: "hot"
        case .stalled: "stalled"
        case .failed: "failed"
        }
    }

    /// A label value from free text: at most 32 characters of letters, digits, `-` and `_`.
    static func label(_ text: String) -> String {
        let cleaned = String(text.lowercased().unicodeScalars.prefix(32).map {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") ? Character($0) : "_"
        })
        return cleaned.isEmpty ? "none" : cleaned
    }
}

/// Counts every answer of the API in ``ControlMetrics`` by route template, method and status.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ControlMetrics

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            let response = try await next(request, context)
            metrics.recordRequest(route: context.endpointPath, method: request.method, status: response.status)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            metrics.recordRequest(route: context.endpointPath, method: request.method, status: status)
            throw error
        }
    }
}

/// Runs ``ControlMetrics/observe(_:)`` on the player's events for the life of the server.
///
/// Returns only at graceful shutdown: a player whose stream ends early must not end the server
/// with it (a service that returns stops its group).
struct PlayerEventMetricsService: Service {
    let metrics: ControlMetrics
    let events: @Sendable () -> AsyncStream<PlayerEvent>

    func run() async throws {
        let stream = events()
        await cancelWhenGracefulShutdown {
            await metrics.observe(stream)
        }
        try? await gracefulShutdown()
    }
}

/// One figure from a part the player does not own, for ``ControlMetrics/addFigures(_:)``.
public struct MetricFigure: Sendable {
    public enum Kind: Sendable {
        case gauge
        /// A total that only grows, kept by its part (served as a counter).
        case total
    }

    /// Without the `flipbox_` prefix and the unit: `serve_clients`.
    public var name: String
    /// `bytes`, `seconds`, `total` (for a total), or empty.
    public var unit: String
    public var help: String
    public var labels: [(String, String)]
    public var value: Double
    public var kind: Kind

    public init(_ name: String, unit: String = "", help: String, labels: [(String, String)] = [], value: Double, kind: Kind = .gauge) {
        self.name = name
        self.unit = unit
        self.help = help
        self.labels = labels
        self.value = value
        self.kind = kind
    }
}

/// The last value told to each total's counter.
private final class Totals: @unchecked Sendable {
    private let lock = NSLock()
    private var told: [String: Int] = [:]

    /// How much `key` grew since the last call (0 when it did not).
    func advance(_ key: String, to value: Int) -> Int {
        lock.withLock {
            let delta = max(0, value - told[key, default: 0])
            told[key] = max(value, told[key, default: 0])
            return delta
        }
    }
}

private final class FigureSources: @unchecked Sendable {
    private let lock = NSLock()
    private var reads: [@Sendable () async -> [MetricFigure]] = []
    func add(_ read: @escaping @Sendable () async -> [MetricFigure]) { lock.withLock { reads.append(read) } }
    var all: [@Sendable () async -> [MetricFigure]] { lock.withLock { reads } }
}
