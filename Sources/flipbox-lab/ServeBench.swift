import ArgumentParser
import CommandSupport
import Foundation
import GStreamer
import Headend
import Lineup
import Logging
import Serve
import ServiceLifecycle

/// `flipbox bench --serve N`: measures the head-end on loopback with the benchmark streams
/// (720p30 H.264 at 3 Mb/s, 2 s GOP, AAC, sent by ffmpeg outside this process):
///
/// - a new client's first byte and first decoded frame (a GStreamer client in this process:
///   `souphttpsrc ! tsdemux ! h264parse ! avdec_h264`), on a warm channel not yet served (the
///   muxer starts from the cached GOP), on a channel already served (the muxed GOP is cached),
///   and on a cold channel (the ingest connects first);
/// - this process's CPU with one channel warm and no client, then with 1, 10 and N `curl`
///   clients (outside this process) reading `/stream/1.ts`, and what each client received.
struct ServeBench {
    let clients: Int
    let basePort: Int
    let seconds: Int
    let logger: Logger
    let say: (String) -> Void

    struct Arrival { var firstByte: Double; var firstFrame: Double? }

    func run() async throws -> String {
        let streams = try BenchStreams(channels: 3, width: 1280, height: 720, fps: 30, gopSeconds: 2, basePort: basePort, log: say)
        defer { streams.stop() }
        let lineup = Lineup(channels: streams.urls.enumerated().map { i, url in
            Channel(id: "bench\(i + 1)", number: ChannelNumber(i + 1), name: "Bench \(i + 1)", sources: [url])
        })
        // Channel 1 warm (the plan's "current"), the others cold until a client asks.
        let headend = Headend(lineup: lineup, policy: .none, target: DecodeTarget(width: 160, height: 90), logger: logger)
        await headend.applyPolicy(current: 0, last: nil)
        var configuration = ServeConfiguration(port: 0, hdhomerunProtocol: false)
        configuration.streams.linger = .milliseconds(300)
        configuration.streams.maxClients = max(256, clients + 8)
        let server = StreamServer(headend: headend, settings: configuration.streams, logger: logger)
        let bound = BoundPort()
        let services = try makeServeServices(server: server, configuration: configuration, logger: logger) { bound.set($0) }
        let group = ServiceGroup(services: services, logger: logger)
        let running = Task { try await group.run() }
        defer { running.cancel() }
        guard await waitUntil(seconds: 10, { bound.value != nil }), let port = bound.value else {
            throw ValidationError("the serving endpoints did not start")
        }
        let base = "http://127.0.0.1:\(port)"
        guard await waitUntil(seconds: 20, { headend.sources[0].cache.hasKeyframe }) else {
            throw ValidationError("channel 1 cached no keyframe within 20 s")
        }
        try await Task.sleep(for: .seconds(3))

        say("first frames: a warm channel not yet served, a served one, a cold one (5 clients each)")
        var warm: [Arrival] = [], served: [Arrival] = [], cold: [Arrival] = []
        for _ in 0..<5 {
            warm.append(try await firstFrame("\(base)/stream/1.ts"))
            try await Task.sleep(for: .milliseconds(800)) // past the linger: not served any more
        }
        let holder = try curlClients(1, url: "\(base)/stream/1.ts", seconds: 30)
        try await Task.sleep(for: .seconds(2))
        for _ in 0..<5 { served.append(try await firstFrame("\(base)/stream/1.ts")) }
        holder.forEach { kill($0.processIdentifier, SIGKILL) }
        for i in 0..<5 {
            let number = 2 + i % 2
            _ = await waitUntil(seconds: 10) { headend.sources[number - 1].state == .cold }
            cold.append(try await firstFrame("\(base)/stream/\(number).ts"))
        }
        try await Task.sleep(for: .seconds(2))

        say("CPU: channel 1 warm, no client")
        let idle = try await coreShare(seconds: seconds)
        var rows: [(Int, Double, [Int])] = []
        for n in [1, 10, clients] where n > 0 {
            say("CPU: \(n) curl client(s) on channel 1 for \(seconds) s")
            let procs = try curlClients(n, url: "\(base)/stream/1.ts", seconds: seconds + 4)
            try await Task.sleep(for: .seconds(2))
            let share = try await coreShare(seconds: seconds)
            let received = procs.map { p -> Int in
                p.waitUntilExit()
                let out = (p.standardOutput as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data()
                let fields = String(decoding: out, as: UTF8.self).split(separator: " ")
                if fields.count > 1, fields[1] != "200" { say("a client was answered \(fields[1])") }
                if fields.count > 2, (Double(fields[2]) ?? 0) > 1 { say("a client waited \(fields[2]) s for its first byte") }
                return Int(fields.first ?? "") ?? 0
            }
            rows.append((n, share, received))
            try await Task.sleep(for: .seconds(1))
        }
        let dropped = await server.droppedClients
        await group.triggerGracefulShutdown()
        _ = try? await running.value
        await headend.shutdown()

        func stats(_ values: [Double]) -> String {
            let s = values.sorted()
            guard !s.isEmpty else { return "n/a" }
            return String(format: "median %.0f ms, max %.0f ms", s[s.count / 2], s.last!)
        }
        var report = "head-end on loopback: 720p30 H.264 3 Mb/s + AAC, 2 s GOP, ffmpeg senders outside this process\n\n"
        report += "new client              first byte                    first decoded frame (GStreamer client)\n"
        for (name, samples) in [("warm, not yet served", warm), ("already served", served), ("cold channel", cold)] {
            report += name.padding(toLength: 24, withPad: " ", startingAt: 0)
                + stats(samples.map(\.firstByte)).padding(toLength: 30, withPad: " ", startingAt: 0)
                + stats(samples.compactMap(\.firstFrame)) + "\n"
        }
        report += String(format: "\nCPU of this process, one channel warm, no client: %.1f %% of a core\n", idle * 100)
        report += "clients  CPU (% of a core)  added per client  received per client over \(seconds + 4) s (min / median / max, MB)\n"
        for (n, share, received) in rows {
            let sorted = received.sorted()
            let perClient = (share - rows[0].1) / Double(max(1, n - 1)) * 100
            report += String(format: "%7d  %17.1f  %16@  %.2f / %.2f / %.2f\n", n, share * 100,
                             n == 1 ? "(mux: \(String(format: "%.1f", (share - idle) * 100)))" as NSString : String(format: "%.3f", perClient) as NSString,
                             Double(sorted.first ?? 0) / 1e6, Double(sorted[sorted.count / 2]) / 1e6, Double(sorted.last ?? 0) / 1e6)
        }
        report += "clients dropped as too slow: \(dropped)\n"
        return report
    }

    /// Time from the request to the first body byte, and to the first decoded frame, for a
    /// GStreamer client that decodes the stream.
    func firstFrame(_ url: String) async throws -> Arrival {
        let pipeline = try Pipeline(description: "souphttpsrc name=src is-live=true ! tsdemux ! h264parse ! avdec_h264 ! fakesink name=frames async=false sync=false")
        defer { pipeline.shutdown() }
        guard let src = pipeline.child(named: "src"), let sink = pipeline.child(named: "frames") else {
            throw ValidationError("internal: bench client incomplete")
        }
        src.set("location", string: url)
        let marks = Marks()
        src.staticPad("src")?.onBuffer { _ in marks.byte() }
        sink.staticPad("sink")?.onBuffer { _ in marks.frame() }
        let start = ContinuousClock.now
        marks.start = start
        try pipeline.setState(.playing)
        _ = await waitUntil(seconds: 15) { marks.value.frame != nil }
        let (byte, frame) = marks.value
        guard let byte else { throw ValidationError("\(url): no data within 15 s") }
        return Arrival(firstByte: (byte - start).milliseconds, firstFrame: frame.map { ($0 - start).milliseconds })
    }

    private final class Marks: @unchecked Sendable {
        private let lock = NSLock()
        var start = ContinuousClock.now
        private var firstByte: ContinuousClock.Instant?
        private var firstFrame: ContinuousClock.Instant?
        func byte() { lock.withLock { if firstByte == nil { firstByte = .now } } }
        func frame() { lock.withLock { if firstFrame == nil { firstFrame = .now } } }
        var value: (byte: ContinuousClock.Instant?, frame: ContinuousClock.Instant?) { lock.withLock { (firstByte, firstFrame) } }
    }

    private final class BoundPort: @unchecked Sendable {
        private let lock = NSLock()
        private var port: Int?
        func set(_ p: Int) { lock.withLock { port = p } }
        var value: Int? { lock.withLock { port } }
    }

    /// `n` curl processes reading `url` for `seconds`, each printing the bytes it received.
    func curlClients(_ n: Int, url: String, seconds: Int) throws -> [Process] {
        try (0..<n).map { _ in
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            p.arguments = ["-s", "-o", "/dev/null", "-m", "\(seconds)", "-w", "%{size_download} %{http_code} %{time_starttransfer}", url]
            p.standardOutput = Pipe()
            p.standardError = FileHandle.nullDevice
            p.standardInput = FileHandle.nullDevice
            try p.run()
            return p
        }
    }

    func coreShare(seconds: Int) async throws -> Double {
        let a = ProcessUsage.now(), t = ContinuousClock.now
        try await Task.sleep(for: .seconds(seconds))
        return ProcessUsage.coreShare(from: a, to: ProcessUsage.now(), over: ContinuousClock.now - t)
    }

    func waitUntil(seconds: Double, _ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return await condition()
    }
}
