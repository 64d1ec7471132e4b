import CommandSupport
import Foundation
import GStreamer
import Headend
import Lineup
import LoopbackStreams
import Logging
import RecordingWiring
import Recordings

/// `flipbox bench --recordings N`: what N simultaneous recordings cost (remux only), and the gap a
/// restart leaves in a recording (docs/performance.md). N channels (720p H.264 3 Mb/s with AAC, 2 s
/// GOP) from a loopback server; first `seconds` with the N channels ingesting and nothing
/// recorded (the baseline), then `seconds` with each recorded to its own file by the box's
/// recording service: the CPU and memory over the baseline, and the bytes written. Then
/// `restarts` times: a box (`flipbox play`, this executable) killed with SIGKILL in the middle of a
/// recording and started again on the same state: the gap stored in the recording.
struct RecordingBench {
    let recordings: Int
    let seconds: Int
    let restarts: Int
    let logger: Logger
    let say: (String) -> Void

    func run() async throws -> [String: Any] {
        let format = ClipFormat(codec: .h264, width: 1280, height: 720, fps: 25, gopSeconds: 2, seconds: 8, bitrateKbps: 3000)
        say("recordings: making the clip")
        let clip = try TransportStreamClip(path: try format.file(in: ClipFormat.cacheDirectory))
        // One stream more than the channels: the restarted box (below) records channel 1 beside this head-end.
        let server = try LivePoolServer(clips: Array(repeating: clip, count: recordings), streams: recordings + 1, whenFull: .refuse)
        defer { server.stop() }
        let channels = (0..<recordings).map { n in
            Channel(id: "rec\(n)", number: ChannelNumber(n + 1), name: "Recorded \(n + 1)", sources: [server.url(channel: n)])
        }
        let lineup = Lineup(channels: channels)
        let headend = Headend(lineup: lineup, policy: .all, target: DecodeTarget(width: 1280, height: 720), logger: logger)
        defer { Task { await headend.shutdown() } }
        await headend.applyPolicy(current: nil, last: nil)
        let deadline = ContinuousClock.now + .seconds(30)
        while !headend.sources.allSatisfy(\.cache.hasKeyframe), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(200)) }

        let state = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-recording-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let folder = state.appendingPathComponent("recordings")
        let sources = RecordingService.Sources(channel: { lineup.channel(number: $0) }, channels: { Set(lineup.channels.map(\.number)) })
        func service() throws -> RecordingService {
            try RecordingService(stateDirectory: state.path, directory: folder, headend: headend, sources: sources, logger: logger)
        }

        say("recordings: \(recordings) channels ingesting, nothing recorded, \(seconds) s")
        let idle = try await measure(seconds)

        say("recordings: \(recordings) recordings, \(seconds) s")
        let running = try service()
        let loop = Task { [running] in await running.run() }
        let start = Date().addingTimeInterval(1), end = start.addingTimeInterval(Double(seconds) + 2)
        for channel in channels {
            _ = try await running.add(OneOffRequest(id: RecordingID("bench-\(channel.number)"),
                                                    target: .timeRange(channel: channel.number, start: start, end: end, title: channel.name)))
        }
        try await Task.sleep(until: .now + .seconds(2))
        let recorded = try await measure(seconds)
        while try running.store.recordings(in: [.recording, .scheduled]).count > 0, Date() < end.addingTimeInterval(15) {
            try await Task.sleep(for: .milliseconds(250))
        }
        let files = try running.store.recordings().filter { $0.id.rawValue.hasPrefix("bench-") }
        let written = files.reduce(Int64(0)) { $0 + $1.bytes }
        let done = files.filter { $0.state == .done }.count

        running.shutdown()
        await loop.value

        let mib = 1024.0 * 1024.0
        var result: [String: Any] = [
            "recordings": recordings,
            "seconds": seconds,
            "stream": "\(format)",
            "idle_core_share": idle.core,
            "recording_core_share": recorded.core,
            "core_share_per_recording": (recorded.core - idle.core) / Double(max(1, recordings)),
            "idle_rss_mib": Double(idle.rss) / mib,
            "recording_rss_mib": Double(recorded.rss) / mib,
            "rss_mib_per_recording": Double(recorded.rss - idle.rss) / mib / Double(max(1, recordings)),
            "written_mib": Double(written) / mib,
            "recordings_done": done,
        ]
        if restarts > 0 {
            say("recordings: \(restarts) times, a box killed (SIGKILL) in the middle of a recording and started again")
            let gaps = try await RestartGaps(channel: server.url(channel: 0), say: say).measure(restarts)
            let sorted = gaps.sorted()
            if !sorted.isEmpty {
                result["restart_gap_ms"] = ["p50": sorted[sorted.count / 2], "max": sorted.last ?? 0, "count": sorted.count]
            }
        }
        return result
    }

    /// The process's share of a core and its resident memory at the end, over `seconds`.
    private func measure(_ seconds: Int) async throws -> (core: Double, rss: Int) {
        try await measureUsage(of: nil, seconds: seconds)
    }
}

/// Kills a real box in the middle of a recording and starts it again: the gap the recording
/// keeps, from its first part's last write to its second part's first keyframe (the process's
/// start, the source's connection and its first keyframe).
struct RestartGaps {
    let channel: String
    let say: (String) -> Void

    func measure(_ times: Int) async throws -> [Double] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-restart-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let lineup = dir.appendingPathComponent("lineup.m3u")
        try "#EXTM3U\n#EXTINF:-1,Recorded\n\(channel)\n".write(to: lineup, atomically: true, encoding: .utf8)
        let port = 18_000 + Int.random(in: 0..<2000)
        let api = ClipClient(base: "http://127.0.0.1:\(port)", token: nil)
        var gaps: [Double] = []
        for n in 0..<times {
            var box = try start(lineup: lineup, state: dir, port: port)
            defer { if box.isRunning { box.terminate() } }
            try await boxAnswers(api)
            let added = try await api.expect(201, "POST", "/api/v1/recordings", json: [
                "channel": "1", "start": Date().formatted(.iso8601), "end": Date().addingTimeInterval(20).formatted(.iso8601), "title": "Restart \(n)"])
            let id = try ClipClient.object(added)["id"] as? String ?? ""
            try await Task.sleep(for: .seconds(5))
            kill(box.processIdentifier, SIGKILL)
            box.waitUntilExit()
            box = try start(lineup: lineup, state: dir, port: port)
            try await boxAnswers(api)
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                let list = try ClipClient.object(try await api.expect(200, "GET", "/api/v1/recordings"))["recordings"] as? [[String: Any]] ?? []
                if let r = list.first(where: { $0["id"] as? String == id }), let gap = (r["gaps"] as? [[String: Any]])?.first?["seconds"] as? Double {
                    gaps.append(gap * 1000)
                    say("recordings: restart \(n + 1): gap \(Int(gap * 1000)) ms")
                    break
                }
                try await Task.sleep(for: .milliseconds(200))
            }
            _ = try? await api.send("DELETE", "/api/v1/recordings/\(id)")
            box.interrupt()
            box.waitUntilExit()
        }
        return gaps
    }

    private func start(lineup: URL, state: URL, port: Int) throws -> Process {
        let box = Process()
        box.executableURL = URL(fileURLWithPath: try SiblingExecutable.path("flipbox"))
        box.arguments = ["play", lineup.path, "--output", "headless", "--no-keys", "--http", "127.0.0.1:\(port)", "--state-dir", state.path]
        box.standardOutput = FileHandle.nullDevice
        box.standardError = FileHandle.nullDevice
        try box.run()
        return box
    }
}

/// The share of a core process `pid` (nil: this one) used over `seconds`, and its resident
/// memory at the end.
func measureUsage(of pid: Int32?, seconds: Int) async throws -> (core: Double, rss: Int) {
    func usage() -> ProcessUsage { pid.map { ProcessUsage.of(pid: $0) } ?? ProcessUsage.now() }
    let before = usage(), started = ContinuousClock.now
    try await Task.sleep(for: .seconds(seconds))
    let after = usage()
    return (ProcessUsage.coreShare(from: before, to: after, over: ContinuousClock.now - started), after.residentBytes)
}

/// Waits until a box's API answers (30 s at most).
func boxAnswers(_ api: ClipClient) async throws {
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
        if let (status, _) = try? await api.send("GET", "/api/v1/status"), status == 200 { return }
        try await Task.sleep(for: .milliseconds(100))
    }
    throw ClipClient.Failure(text: "the box did not answer within 30 s")
}
