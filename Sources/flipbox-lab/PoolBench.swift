import FlipboxCore
import Foundation
import Headend
import Lineup
import Logging
import LoopbackStreams
import Switcher

/// `flipbox bench --pool-streams N`: flips a viewer's trace through a lineup served by one
/// HTTP server on loopback that gives at most N streams (refusing the next, or ending the oldest),
/// as an HDHomeRun or an IPTV account does, with default settings otherwise (the box learns the
/// limit). Reports failed flips, the warm share of all flips and of up/down flips, warm and cold
/// latency, connection attempts a minute, refusals, streams the server ended, and cuts of the
/// channel on screen (a stream the server ended while its channel was shown: must be 0).
struct PoolBench {
    var channels: Int
    /// Nil: a server without a limit (the comparison).
    var streams: Int?
    var whenFull: LivePoolServer.WhenFull
    var trace: ZapTrace
    var policy: WarmPolicy
    var budget: WarmBudget
    var pools: PoolSettings
    var width: Int, height: Int, fps: Int
    var logger: Logger
    var say: (String) -> Void

    /// The channels' pictures: 8 hues, 640x360 25 fps H.264, 2 s keyframe interval, with sound.
    static func clips(_ count: Int) throws -> [TransportStreamClip] {
        let formats = (0..<8).map { ClipFormat(codec: .h264, width: 640, height: 360, fps: 25, gopSeconds: 2, seconds: 8,
                                               bitrateKbps: 800, hue: $0 * 45, toneHz: 300 + 40 * $0) }
        let made = try formats.map { try TransportStreamClip(path: try $0.file(in: ClipFormat.cacheDirectory)) }
        return (0..<count).map { made[$0 % made.count] }
    }

    func run() async throws -> [String: Any] {
        say("making \(channels) channels on one server (\(streams.map { "\($0) streams, \(whenFull.rawValue) when full" } ?? "no limit"))")
        let server = try LivePoolServer(clips: try Self.clips(channels), streams: streams ?? 100_000, whenFull: whenFull)
        defer { server.stop() }
        let lineup = Lineup(channels: (0..<channels).map { i in
            Channel(id: "pool\(i + 1)", number: ChannelNumber(i + 1), name: "Pool \(i + 1)", sources: [server.url(channel: i)])
        })
        var options = PlayerOptions(sink: .headless, width: width, height: height, fps: fps, warm: policy)
        options.warmBudget = budget
        options.pools = pools
        let parts = try PlayerParts.make(lineup: lineup, options: options, logger: logger)
        let player = Player(lineup: lineup, options: options, parts: parts, logger: logger)
        try await player.start()
        // The box settles: the first channel on screen, the warm ones connected, the limit learned.
        try await Task.sleep(for: .seconds(6))

        say("\(trace.steps.count) flips of a \(trace.kind.rawValue) trace (seed \(trace.seed)), about \(Int(trace.seconds)) s")
        let flipsStart = ContinuousClock.now
        let attemptsBefore = server.streamsServed.values.reduce(0, +) + server.refusals
        var results: [(step: ZapTrace.Step, result: FlipResult)] = []
        // The channel on screen from each flip's completion to the next flip's request.
        var shown: [(channel: Int, from: ContinuousClock.Instant, to: ContinuousClock.Instant)] = []
        // Key repeat: flips sent without waiting, taken when the next one that waits is done.
        var repeating: [(step: ZapTrace.Step, flip: Task<FlipResult, Never>)] = []
        for (n, step) in trace.steps.enumerated() {
            let asked = ContinuousClock.now
            if let last = shown.last, last.to > asked { shown[shown.count - 1].to = asked }
            guard step.waits else {
                let request = step.flipRequest(in: lineup)
                repeating.append((step, Task { await player.flip(request) }))
                try await Task.sleep(for: .milliseconds(step.dwellMs))
                continue
            }
            let result = await player.flip(step.flipRequest(in: lineup))
            for (repeated, flip) in repeating { results.append((repeated, await flip.value)) }
            repeating = []
            results.append((step, result))
            if result.ok, let number = result.channel.flatMap({ ChannelNumber($0.number) }), let i = lineup.index(of: number) {
                shown.append((i, .now, .now + .seconds(3600)))
            }
            if (n + 1) % 25 == 0 { say("\(n + 1) flips") }
            try await Task.sleep(for: .milliseconds(step.dwellMs))
        }
        for (repeated, flip) in repeating { results.append((repeated, await flip.value)) }
        if let last = shown.last { shown[shown.count - 1].to = min(last.to, .now) }
        let elapsed = ContinuousClock.now - flipsStart
        let minutes = max(1e-9, (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) / 60)
        let pool = parts.headend.pools().first
        await player.shutdown()

        let endedDuringFlips = server.endedStreams.filter { $0.at >= flipsStart }
        let cuts = endedDuringFlips.filter { end in shown.contains { $0.channel == end.channel && $0.from <= end.at && end.at < $0.to } }
        let ok = results.filter { $0.result.ok }
        // A key-repeat flip a later press superseded did what the viewer wanted: not a failure.
        let superseded = results.filter { $0.result.outcome == .superseded }
        func share(_ r: [(step: ZapTrace.Step, result: FlipResult)]) -> Double? {
            let done = r.filter { $0.result.ok }
            return done.isEmpty ? nil : Double(done.filter { $0.result.path != .cold }.count) / Double(done.count)
        }
        func latencies(_ warm: Bool) -> [Double] {
            ok.filter { ($0.result.path != .cold) == warm }.compactMap(\.result.latencyMilliseconds).sorted()
        }
        func figures(_ l: [Double]) -> [String: Any] {
            ["count": l.count, "p50_ms": BenchReport.percentile(l, 0.5) as Any, "p95_ms": BenchReport.percentile(l, 0.95) as Any]
        }
        let attempts = server.streamsServed.values.reduce(0, +) + server.refusals - attemptsBefore
        return [
            "channels": channels,
            "pool_streams": streams as Any,
            "when_full": streams == nil ? "no limit" : whenFull.rawValue,
            "trace": trace.kind.rawValue, "seed": trace.seed,
            "flips": results.count,
            "superseded": superseded.count,
            "failed": results.count - ok.count - superseded.count,
            "failures": Array(results.filter { !$0.result.ok && $0.result.outcome != .superseded }.map { $0.result.error ?? "failed" }.prefix(5)),
            "warm_share": share(results) as Any,
            "warm_share_up_down": share(results.filter { $0.step.isUpDown }) as Any,
            "warm": figures(latencies(true)),
            "cold": figures(latencies(false)),
            "connection_attempts_per_minute": Double(attempts) / minutes,
            "refusals": server.refusals,
            "ended_by_server": server.endedByServer,
            "ended_by_server_during_flips": endedDuringFlips.count,
            "cuts_of_channel_on_screen": cuts.count,
            "most_open": server.maxOpen,
            "limit": pool?.limit as Any,
            "limit_origin": pool?.limitOrigin as Any,
        ]
    }
}
