import Foundation
import GStreamer
import Headend
import Lineup
import LoopbackStreams
import Logging

/// `flipbox bench --catchup N`: how long a seek into a provider's archive takes to its first
/// picture, and back to live (docs/performance.md). One channel (720p H.264, 3 Mb/s, 2 s GOP)
/// from a loopback provider that gives one stream at once and refuses a second (as an account
/// with one connection does): `/live.ts` joined live, `/archive/UTC.ts` from its first keyframe,
/// as archives are asked from a moment. N seeks to random moments of the last two hours, each
/// followed by one back to live; with `mpv`, mpv switching between the same live and archive
/// URLs on the same provider, for comparison.
struct CatchupBench {
    let seeks: Int
    let logger: Logger
    let say: (String) -> Void
    let peer: (([String]) -> [String: Any]?)?

    func run() async throws -> [String: Any] {
        func clip(_ colour: UInt32) throws -> TransportStreamClip {
            let format = ClipFormat(codec: .h264, width: 1280, height: 720, fps: 25, gopSeconds: 2, seconds: 8, bitrateKbps: 3000, colour: colour)
            return try TransportStreamClip(path: try format.file(in: ClipFormat.cacheDirectory))
        }
        say("catch-up: making the live and archive clips")
        let clips = [try clip(0xC03020), try clip(0x2060C0)]
        let route: @Sendable (String) -> Int? = { path in
            if path == "/live.ts" { return 0 }
            return path.hasPrefix("/archive/") && path.hasSuffix(".ts") && Int(path.dropFirst(9).dropLast(3)) != nil ? 1 : nil
        }
        let server = try LivePoolServer(clips: clips, streams: 1, whenFull: .refuse, route: route, fromTheStart: [1])
        defer { server.stop() }
        let channel = Channel(id: "catchup", number: ChannelNumber(1), name: "Catch-up", sources: [server.base + "/live.ts"],
                              attributes: ["catchup": "default", "catchup-source": server.base + "/archive/{utc}.ts", "catchup-days": "7"])
        let headend = Headend(lineup: Lineup(channels: [channel]), policy: .all, target: DecodeTarget(width: 1280, height: 720), logger: logger)
        defer { Task { await headend.shutdown() } }
        await headend.applyPolicy(current: 0, last: nil)
        let source = headend.sources[0]
        let deadline = ContinuousClock.now + .seconds(20)
        while !source.cache.hasKeyframe, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        let frames = TimeshiftBench.FrameClock()
        let (feed, _) = try await headend.activate(channel, sink: frames)
        try await Task.sleep(for: .seconds(2))

        var archive: [Double] = [], live: [Double] = [], answered: [Double] = []
        var failures: [String] = []
        var rng = SystemRandomNumberGenerator()
        say("catch-up: \(seeks) seeks into the archive, each then back to live")
        for _ in 0..<seeks {
            let moment = Date().addingTimeInterval(-Double.random(in: 300...7200, using: &rng))
            let asked = ContinuousClock.now
            do {
                _ = try await headend.timeshift(feed: feed, .seekTo(moment))
                answered.append((ContinuousClock.now - asked).milliseconds)
                if let first = await firstFrame(after: asked, in: frames) { archive.append((first - asked).milliseconds) } else { failures.append("no archive picture within 10 s") }
            } catch {
                failures.append(error.message)
            }
            try await Task.sleep(for: .seconds(1))
            let back = ContinuousClock.now
            do {
                _ = try await headend.timeshift(feed: feed, .live)
                if let first = await firstFrame(after: back, in: frames) { live.append((first - back).milliseconds) } else { failures.append("no live picture within 10 s") }
            } catch {
                failures.append(error.message)
            }
            try await Task.sleep(for: .seconds(1))
        }
        await headend.deactivate(feed: feed)
        var result: [String: Any] = [
            "seeks": seeks,
            "archive_first_picture": BenchReport.figures(archive.sorted()),
            "seek_answered": BenchReport.figures(answered.sorted()),
            "live_first_picture": BenchReport.figures(live.sorted()),
            "failures": failures,
            "provider": ["streams": 1, "most_open": server.maxOpen, "refusals": server.refusals],
            "switch_release_ms": Headend.archiveSwitchRelease.milliseconds,
        ]
        if let peer {
            // mpv opens the next URL before it lets the last go: on the one-stream provider every
            // switch is refused, so it is also measured on one that gives two.
            say("catch-up: mpv switching between the same live and archive URLs (one stream, then two)")
            let moment = Int(Date().timeIntervalSince1970) - 3600
            result["mpv_one_stream"] = peer([server.base + "/live.ts", server.base + "/archive/\(moment).ts"])
            let roomier = try LivePoolServer(clips: clips, streams: 2, whenFull: .refuse, route: route, fromTheStart: [1])
            defer { roomier.stop() }
            result["mpv_two_streams"] = peer([roomier.base + "/live.ts", roomier.base + "/archive/\(moment).ts"])
        }
        return result
    }

    /// The first decoded frame of the new stream after a seek asked at `instant`, waiting up to
    /// 10 s: the first after the switch's release wait, which the old stream's last frames (its
    /// decoder is stopped as the seek begins) never reach.
    private func firstFrame(after instant: ContinuousClock.Instant, in frames: TimeshiftBench.FrameClock) async -> ContinuousClock.Instant? {
        let deadline = instant + .seconds(10), from = instant + Headend.archiveSwitchRelease
        while ContinuousClock.now < deadline {
            if let first = frames.first(after: from) { return first }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }
}
