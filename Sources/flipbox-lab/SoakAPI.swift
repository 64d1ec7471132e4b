import CommandSupport
import Foundation
import Lineup
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The soak's client of the player's HTTP API on 127.0.0.1: every request has 10 s to be
/// answered.
struct SoakAPI: Sendable {
    let port: Int

    enum Request: Sendable {
        case next, previous, tune(Int), recall, pip(Int), closePiP, multiview, closeMultiview, banner, snapshot, thumbnail(Int), status

        var method: String {
            switch self {
            case .closePiP, .closeMultiview: "DELETE"
            case .snapshot, .thumbnail, .status: "GET"
            default: "POST"
            }
        }

        var path: String {
            switch self {
            case .next: "/api/v1/flip/next"
            case .previous: "/api/v1/flip/previous"
            case .tune(let n): "/api/v1/tune/\(n)"
            case .recall: "/api/v1/recall"
            case .pip(let n): "/api/v1/pip?channel=\(n)"
            case .closePiP: "/api/v1/pip"
            case .multiview: "/api/v1/multiview?grid=2"
            case .closeMultiview: "/api/v1/multiview"
            case .banner: "/api/v1/overlay/banner?seconds=2"
            case .snapshot: "/api/v1/snapshot.png?width=320"
            case .thumbnail(let n): "/api/v1/channels/\(n)/thumbnail.jpg"
            case .status: "/api/v1/status"
            }
        }

        var isFlip: Bool {
            switch self {
            case .next, .previous, .tune, .recall: true
            default: false
            }
        }

        /// Mostly flips; every other kind now and then.
        static func random(channels: Int, using rng: inout SystemRandomNumberGenerator) -> Request {
            let n = Int.random(in: 1...channels, using: &rng)
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<25: return .next
            case 25..<40: return .previous
            case 40..<65: return .tune(n)
            case 65..<75: return .recall
            case 75..<79: return .pip(n)
            case 79..<81: return .closePiP
            case 81..<83: return .multiview
            case 83..<85: return .closeMultiview
            case 85..<90: return .banner
            case 90..<94: return .snapshot
            case 94..<98: return .thumbnail(n)
            default: return .status
            }
        }
    }

    struct Answer: Sendable {
        var request: String
        /// HTTP status; nil when no answer came within 10 s.
        var status: Int?
        var isFlip: Bool
        var ok = false
        var latencyMs: Double?
        var path: String?
        var cardShown = false
    }

    func send(_ request: Request) async -> Answer {
        var answer = Answer(request: "\(request.method) \(request.path)", isFlip: request.isFlip)
        guard let (data, status) = await fetch(request.method, request.path) else { return answer }
        answer.status = status
        if request.isFlip, let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
            answer.ok = object["ok"] as? Bool ?? false
            answer.latencyMs = object["latencyMs"] as? Double
            answer.path = object["path"] as? String
            answer.cardShown = object["interstitialShown"] as? Bool ?? false
        }
        return answer
    }

    private func fetch(_ method: String, _ path: String) async -> (Data, Int)? {
        guard let url = URL(string: "http://127.0.0.1:\(port)\(path)") else { return nil }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = 10
        // No kept-alive connections: they would count among the player's open files.
        request.setValue("close", forHTTPHeaderField: "Connection")
        guard let (data, response) = try? await HTTPTransfer.data(for: request, deadline: 10),
              let http = response as? HTTPURLResponse else { return nil }
        return (data, http.statusCode)
    }

    private func json(_ path: String) async -> Any? {
        guard let (data, status) = await fetch("GET", path), status == 200 else { return nil }
        return try? JSONSerialization.jsonObject(with: data)
    }

    /// `GET /api/v1/output`: the display's recent gaps and still pictures.
    func output() async -> [String: Any]? { await json("/api/v1/output") as? [String: Any] }

    func waitForStatus(seconds: Double) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if await json("/api/v1/status") != nil { return true }
            try? await Task.sleep(for: .milliseconds(250))
        }
        return false
    }

    func resources() async -> SoakReading? {
        guard let status = await json("/api/v1/status") as? [String: Any],
              let r = status["resources"] as? [String: Any],
              let pipelines = r["pipelines"] as? Int, let files = r["openFiles"] as? Int,
              let resident = r["residentBytes"] as? Int else { return nil }
        return SoakReading(pipelines: pipelines, openFiles: files, residentBytes: resident,
                           heapInUseBytes: r["heapInUseBytes"] as? Int ?? 0, heapFreeBytes: r["heapFreeBytes"] as? Int ?? 0)
    }

    /// Each channel's state (`warm`, `hot`, `stalled`...), in lineup order.
    func channelStates() async -> [String] {
        guard let body = await json("/api/v1/channels") as? [String: Any],
              let list = body["channels"] as? [[String: Any]] else { return [] }
        return list.map { $0["state"] as? String ?? "" }
    }

    func allChannelsUp() async -> Bool {
        let states = await channelStates()
        return !states.isEmpty && states.allSatisfy { $0 == "warm" || $0 == "hot" }
    }

    /// Removes from `returns` the channels that are warm or hot again and gives their recovery
    /// times (seconds from the source's return), with the channel (its index).
    func recoveries(of returns: inout [(channel: Int, at: ContinuousClock.Instant)], since: ContinuousClock.Instant) async -> [(channel: Int, seconds: Double)] {
        guard !returns.isEmpty else { return [] }
        let states = await channelStates()
        let now = ContinuousClock.now
        var done: [(channel: Int, seconds: Double)] = []
        returns.removeAll { r in
            guard r.channel < states.count, states[r.channel] == "warm" || states[r.channel] == "hot" else {
                return now - r.at > .seconds(60)
            }
            done.append((r.channel, SoakCommand.seconds(now - r.at)))
            return true
        }
        return done
    }
}

/// `flipbox play` (the `flipbox` beside this `flipbox-lab`) on the soak's lineup, as a child
/// process under `prlimit --nofile=1024:1024`.
final class SoakPlayer {
    private let process = Process()
    let logPath: String

    init(lineup: String, port: Int, directory: URL) throws {
        let flipbox = try SiblingExecutable.path("flipbox")
        logPath = directory.appendingPathComponent("play.log").path
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        process.arguments = ["--nofile=1024:1024", "--", flipbox, "play", lineup, "--output", "headless", "--no-keys",
                             "--http", "127.0.0.1:\(port)", "--banner-seconds", "1",
                             "--state-dir", directory.appendingPathComponent("state").path]
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    var exitDescription: String {
        process.isRunning ? "running"
            : "\(process.terminationReason == .uncaughtSignal ? "signal" : "status") \(process.terminationStatus) (log: \(logPath))"
    }

    func stop() {
        guard process.isRunning else { return }
        process.interrupt()
        let deadline = Date().addingTimeInterval(8)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
