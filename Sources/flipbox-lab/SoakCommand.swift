import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct SoakCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Flip through hostile loopback channels for a long time; report crashes, lost answers and drift.",
        discussion: """
            Makes its own channels (MPEG-TS on loopback UDP that loop with a discontinuity, die and \
            come back, stall, send garbage, flip bits, change codec, PIDs and resolution; live \
            MPEG-TS over HTTP that trickles and resets; live HLS that answers slowly and drops \
            connections), writes a lineup, \
            runs `flipbox play` on it as a child (headless, HTTP on loopback, under \
            `prlimit --nofile=1024:1024`) and sends it every kind of request: flips 0-500 ms apart \
            with bursts of 10 at 30 ms, PiP, multiview, banner, snapshots, thumbnails. \
            See docs/reliability.md.
            """)

    @Option(help: "How long to run, e.g. 90s, 2m, 1h (the warm-up included). Default: until --flips.")
    var duration: String?

    @Option(help: "Stop after this many flip requests (next, previous, tune, recall; about three quarters of all requests). Default: 10,000 without --duration.")
    var flips: Int?

    @Option(help: "Hostile channels to make.")
    var channels = 8

    @Option(help: "Seconds of flipping before the first resource reading (memory settles over minutes: caches, encoders and the allocator's arenas fill).")
    var warmup = 60.0

    @Option(help: "First UDP port of the channels.")
    var port = 33000

    @Option(help: "Port of the player's HTTP API on 127.0.0.1.")
    var httpPort = 8790

    @Flag(help: "Print one JSON object instead of a report.")
    var json = false

    func run() async throws {
        let seconds = try duration.map(Self.seconds(in:))
        let limit = flips ?? (seconds == nil ? 10_000 : Int.max)
        func say(_ s: String) { if !json { FileHandle.standardError.write(Data("soak: \(s)\n".utf8)) } }
        guard channels >= 2 else { throw ValidationError("--channels must be at least 2") }

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-soak-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let sources = try SoakSources(count: channels, basePort: port, log: say)
        defer { sources.stop() }
        let lineup = dir.appendingPathComponent("soak.yaml")
        var yaml = "settings:\n  warm: all\nchannels:\n"
        for (i, url) in sources.urls.enumerated() {
            yaml += "  - number: \(i + 1)\n    name: Soak \(i + 1) \(sources.channels[i].behaviour.rawValue)\n    source: \(url)\n"
        }
        try yaml.write(to: lineup, atomically: true, encoding: .utf8)

        let player = try SoakPlayer(lineup: lineup.path, port: httpPort, directory: dir)
        defer { player.stop() }
        let api = SoakAPI(port: httpPort)
        guard await api.waitForStatus(seconds: 30) else {
            throw ValidationError("flipbox play did not answer on 127.0.0.1:\(httpPort) within 30 s; its log: \(player.logPath)")
        }
        say("\(channels) channels, player pid \(player.pid), log \(player.logPath)")

        var stats = SoakStatistics()
        let clock = ContinuousClock()
        let began = clock.now
        var warmReading: SoakReading?
        var sent = 0
        var flipsSent = 0
        var rng = SystemRandomNumberGenerator()
        var nextBurst = Int.random(in: 30...60, using: &rng)
        let answers = SoakAnswers()
        var lastChaos = clock.now
        var display = SoakOutputWatch()
        var lastDisplayRead = clock.now
        var memory: [SoakReport.MemoryPoint] = []
        var lastMemoryRead = clock.now
        var measuredFrom: Date?
        func elapsed() -> Double { Self.seconds(clock.now - began) }

        /// Applies the sources' misbehaviour that is due, notes returning sources' recovery, and
        /// reads the display's record now and then.
        func tend() async {
            if clock.now - lastChaos > .milliseconds(200) {
                sources.step()
                lastChaos = clock.now
                for r in sources.takeReturns() { stats.returns.append((r.channel, clock.now)) }
                var returns = stats.returns
                for r in await api.recoveries(of: &returns, since: began) {
                    stats.recoveries.append(r.seconds)
                    stats.recoveryByChannel[r.channel, default: []].append(r.seconds)
                }
                stats.returns = returns
            }
            if clock.now - lastDisplayRead > .seconds(5) {
                lastDisplayRead = clock.now
                if let body = await api.output() { display.add(body) }
            }
            if clock.now - lastMemoryRead >= .seconds(60) {
                lastMemoryRead = clock.now
                if let r = await api.resources() {
                    memory.append(.init(minute: Int((elapsed() / 60).rounded()), resident: r.residentBytes, heapInUse: r.heapInUseBytes, heapFree: r.heapFreeBytes))
                }
            }
        }
        var nextDwell = Int.random(in: 60...120, using: &rng)

        while flipsSent < limit, seconds.map({ elapsed() < $0 }) ?? true {
            if !player.isRunning { stats.crashes += 1; say("the player exited: \(player.exitDescription)"); break }
            await tend()
            if warmReading == nil, elapsed() >= warmup {
                warmReading = await settledReading(api: api, sources: sources, player: player, say: say)
                measuredFrom = Date()
            }
            let burst = sent >= nextBurst
            let count = burst ? 10 : 1
            for _ in 0..<count {
                let request = SoakAPI.Request.random(channels: channels, using: &rng)
                Task { answers.add(await api.send(request)) }
                sent += 1
                if request.isFlip { flipsSent += 1 }
                if burst { try await Task.sleep(for: .milliseconds(30)) }
            }
            if burst { nextBurst = sent + Int.random(in: 30...60, using: &rng) }
            if sent >= nextDwell {
                // A viewer watching for a while: the picture must keep moving on a flowing channel.
                let until = clock.now + .milliseconds(Int.random(in: 3000...8000, using: &rng))
                while clock.now < until {
                    try await Task.sleep(for: .milliseconds(200))
                    await tend()
                }
                nextDwell = sent + Int.random(in: 60...120, using: &rng)
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...500, using: &rng)))
            if !json && sent % 500 < count { say("\(sent) requests, \(Int(elapsed())) s") }
        }
        // Every request has 10 s to be answered; wait a little longer for the last ones.
        let last = ContinuousClock.now + .seconds(12)
        while answers.count < sent && ContinuousClock.now < last { try await Task.sleep(for: .milliseconds(100)) }
        let measuredTo = Date()
        if let body = await api.output() { display.add(body) }
        let verdict = display.judge(from: measuredFrom ?? measuredTo, to: measuredTo, gop: SoakSources.gopSeconds, flowed: sources.flowed)
        for a in answers.all { stats.add(a) }
        stats.unanswered += sent - answers.count
        let endReading = player.isRunning ? await settledReading(api: api, sources: sources, player: player, say: say) : nil
        // A player that dies after the last request (waiting for answers, or during the end
        // reading) crashed all the same.
        if stats.crashes == 0 && !player.isRunning { stats.crashes += 1; say("the player exited: \(player.exitDescription)") }
        let report = SoakReport(seconds: elapsed(), requests: sent, statistics: stats, warm: warmReading, end: endReading, display: verdict,
                                channels: sources.channels.map(\.behaviour.rawValue),
                                events: Dictionary(uniqueKeysWithValues: SoakSources.Event.allCases.map { ($0.rawValue, sources.events[$0] ?? 0) }),
                                servers: sources.serverFigures, memory: memory, playerExit: player.exitDescription, log: player.logPath)
        print(json ? report.json() : report.text())
        if !report.passed { throw ExitCode(1) }
    }

    /// Every source calm and every channel warm again (at most 20 s), PiP and multiview closed,
    /// then the player's resources.
    func settledReading(api: SoakAPI, sources: SoakSources, player: SoakPlayer, say: (String) -> Void) async -> SoakReading? {
        sources.calm(holdOff: 30)
        _ = await api.send(.closePiP)
        _ = await api.send(.closeMultiview)
        // Every channel up for 3 s on end, longer than the 2 s stall rule: calming changes what
        // some sources send (back to the first clip: another codec, other PIDs), and a channel
        // whose source just stopped misbehaving may still say `warm` until that rule fires.
        let deadline = ContinuousClock.now + .seconds(23)
        var upSince: ContinuousClock.Instant?
        while ContinuousClock.now < deadline {
            if await api.allChannelsUp() {
                if upSince == nil { upSince = .now }
                if let upSince, ContinuousClock.now - upSince >= .seconds(3) { break }
            } else {
                upSince = nil
            }
            try? await Task.sleep(for: .milliseconds(500))
        }
        // Five readings 2 s apart, the median of each figure: what the player holds moves with
        // the pictures still held (each keeps its decoder's buffer pool, and with it a socket pair)
        // and with the allocator; one reading would catch a moment, not a level.
        var readings: [SoakReading] = []
        var kinds: [[String: Int]] = []
        for _ in 0..<5 {
            try? await Task.sleep(for: .seconds(2))
            if let r = await api.resources() { readings.append(r) }
            kinds.append(SoakReading.fileKinds(pid: player.pid))
        }
        var reading = SoakReading.median(readings)
        reading?.fileKinds = kinds.isEmpty ? [:] : kinds[kinds.count / 2]
        if let reading { say("resources: \(reading.pipelines) pipelines, \(reading.openFiles) files, \(reading.residentBytes / 1_048_576) MB") }
        return reading
    }

    static func seconds(in text: String) throws -> Double {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            if let v = Double(text.dropLast(suffix.count)), v > 0 { return v * factor }
        }
        if let v = Double(text), v > 0 { return v }
        throw ValidationError("--duration must look like 90s, 2m or 1h")
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}

/// Answers collected from request tasks (any thread).
final class SoakAnswers: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [SoakAPI.Answer] = []
    func add(_ a: SoakAPI.Answer) { lock.withLock { list.append(a) } }
    var count: Int { lock.withLock { list.count } }
    var all: [SoakAPI.Answer] { lock.withLock { list } }
}
