import CommandSupport
import Foundation
import LoopbackStreams

/// `flipbox bench --recording-playback SECONDS`: what playing a recording costs a real box
/// against playing its channel live (docs/performance.md). A box (`flipbox play`, headless) on
/// one loopback channel (720p H.264 3 Mb/s with AAC, 2 s GOP) records it for `2 × SECONDS + 20`
/// seconds through its API; then, with the recording done, the box's CPU and memory over
/// `SECONDS` live, the answer time of `POST /api/v1/recordings/{id}/play?from=start`, the box's
/// CPU and memory over `SECONDS` of the recording, and the answer times of `seeks` seeks inside
/// it (`POST /api/v1/timeshift/seek`, back 5 s and on 10 s in turn).
struct RecordingPlaybackBench {
    let seconds: Int
    let seeks: Int
    let say: (String) -> Void

    func run() async throws -> [String: Any] {
        let format = ClipFormat(codec: .h264, width: 1280, height: 720, fps: 25, gopSeconds: 2, seconds: 8, bitrateKbps: 3000)
        say("recording playback: making the clip")
        let clip = try TransportStreamClip(path: try format.file(in: ClipFormat.cacheDirectory))
        let server = try LivePoolServer(clips: [clip], streams: 2, whenFull: .refuse)
        defer { server.stop() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-playback-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let lineup = dir.appendingPathComponent("lineup.m3u")
        try "#EXTM3U\n#EXTINF:-1,Recorded\n\(server.url(channel: 0))\n".write(to: lineup, atomically: true, encoding: .utf8)
        let port = 18_000 + Int.random(in: 0..<2000)
        let api = ClipClient(base: "http://127.0.0.1:\(port)", token: nil)

        let box = Process()
        box.executableURL = URL(fileURLWithPath: try SiblingExecutable.path("flipbox"))
        box.arguments = ["play", lineup.path, "--output", "headless", "--size", "1280x720", "--no-keys",
                         "--http", "127.0.0.1:\(port)", "--state-dir", dir.path]
        box.standardOutput = FileHandle.nullDevice
        box.standardError = FileHandle.nullDevice
        try box.run()
        defer {
            if box.isRunning {
                box.interrupt()
                box.waitUntilExit()
            }
        }
        try await boxAnswers(api)

        let length = 2 * seconds + 20
        say("recording playback: recording the channel for \(length) s")
        let added = try await api.expect(201, "POST", "/api/v1/recordings", json: [
            "channel": "1", "start": Date().formatted(.iso8601), "end": Date().addingTimeInterval(Double(length)).formatted(.iso8601),
            "title": "Playback bench"])
        let id = try ClipClient.object(added)["id"] as? String ?? ""
        let deadline = ContinuousClock.now + .seconds(length + 30)
        var recorded: [String: Any] = [:]
        while ContinuousClock.now < deadline {
            let list = try ClipClient.object(try await api.expect(200, "GET", "/api/v1/recordings"))["recordings"] as? [[String: Any]] ?? []
            if let r = list.first(where: { $0["id"] as? String == id }), (r["state"] as? String).map({ ["done", "partial", "failed"].contains($0) }) == true {
                recorded = r
                break
            }
            try await Task.sleep(for: .milliseconds(500))
        }
        guard recorded["state"] as? String == "done" else {
            throw ClipClient.Failure(text: "the recording did not end as done: \(recorded)")
        }

        say("recording playback: the channel live, \(seconds) s")
        let live = try await measureUsage(of: box.processIdentifier, seconds: seconds)

        say("recording playback: the recording from its start, \(seconds) s")
        let asked = ContinuousClock.now
        _ = try await api.expect(200, "POST", "/api/v1/recordings/\(id)/play?from=start")
        let play = (ContinuousClock.now - asked).milliseconds
        let playing = try await measureUsage(of: box.processIdentifier, seconds: seconds)

        say("recording playback: \(seeks) seeks")
        var seekTimes: [Double] = []
        for n in 0..<seeks {
            let started = ContinuousClock.now
            _ = try await api.expect(200, "POST", "/api/v1/timeshift/seek?by=\(n % 2 == 0 ? "-5s" : "%2B10s")")
            seekTimes.append((ContinuousClock.now - started).milliseconds)
            try await Task.sleep(for: .milliseconds(700))
        }
        let sorted = seekTimes.sorted()
        let mib = 1024.0 * 1024.0
        return [
            "seconds": seconds,
            "stream": "\(format)",
            "recording_bytes": recorded["bytes"] as? Int ?? 0,
            "live_core_share": live.core,
            "playback_core_share": playing.core,
            "live_rss_mib": Double(live.rss) / mib,
            "playback_rss_mib": Double(playing.rss) / mib,
            "play_answer_ms": play,
            "seek_answer_ms": sorted.isEmpty ? [:] : ["p50": sorted[sorted.count / 2], "max": sorted.last ?? 0, "count": sorted.count],
        ]
    }
}

private extension Duration {
    var milliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }
}
