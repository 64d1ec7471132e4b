import Foundation
import GStreamer
import TestSupport

/// A `flipbox` process started for a test, with helpers to drive its HTTP API through curl.
final class FlipboxProcess: @unchecked Sendable {
    let process = Process()
    let port: Int
    let log: URL

    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["FLIPBOX_BIN"] { return URL(fileURLWithPath: path) }
        return repositoryRoot.appendingPathComponent(".build/debug/flipbox")
    }

    /// The harness, `flipbox-lab` (bench, soak, replay), beside ``executable``.
    static var lab: URL {
        executable.deletingLastPathComponent().appendingPathComponent("flipbox-lab")
    }

    /// `fileLimit`: run under that limit on open files, soft and hard (`prlimit`), as a box
    /// started by systemd or a shell with the usual 1,024 would be.
    /// `environment`: added to this process's environment. Keys are off unless `arguments` has an `--input`.
    /// `stateDirectory`: where the box keeps its state (a fresh directory when nil).
    /// `output`: the `--output` (headless unless a test draws on a display).
    init(arguments: [String], port: Int, fileLimit: Int? = nil, environment: [String: String] = [:],
         stateDirectory: URL? = nil, output: String = "headless") throws {
        self.port = port
        log = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-test-\(port).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = Self.executable
        // Each box remembers its last channel in a directory of its own, so runs never start
        // where an earlier run left off.
        let state = stateDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-test-state-\(port)-\(UUID().uuidString)")
        let keys = arguments.contains("--input") ? [] : ["--no-keys"]
        process.arguments = ["play"] + arguments + ["--output", output] + keys + ["--http", "127.0.0.1:\(port)",
                                                    "--state-dir", state.path]
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        if let fileLimit {
            process.arguments = ["--nofile=\(fileLimit):\(fileLimit)", "--", Self.executable.path] + (process.arguments ?? [])
            process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        }
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    func stop() {
        if process.isRunning {
            process.interrupt()
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            // Test runners may hand children a blocked SIGTERM; SIGKILL always works.
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
    }

    var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Runs `flipbox ARGUMENTS` to the end with `environment` added and no standard input; the
    /// exit status and what it wrote (standard output and error together).
    static func runToEnd(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        try runToEnd(program: executable, arguments, environment: environment)
    }

    /// Runs `program ARGUMENTS` like ``runToEnd(_:environment:)``.
    static func runToEnd(program: URL, _ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Performs a request with curl; returns the status and the body.
    func request(_ method: String, _ path: String, timeout: Int = 15) -> (status: Int, body: [UInt8]) {
        curl(["-s", "-m", "\(timeout)", "-X", method, "-o", "-", "-w", "\n%{http_code}", "http://127.0.0.1:\(port)\(path)"])
    }

    /// Performs a request with a JSON `body`; returns the status and the body.
    func request(_ method: String, _ path: String, body: String, timeout: Int = 15) -> (status: Int, body: [UInt8]) {
        curl(["-s", "-m", "\(timeout)", "-X", method, "-H", "Content-Type: application/json", "--data-binary", body,
              "-o", "-", "-w", "\n%{http_code}", "http://127.0.0.1:\(port)\(path)"])
    }

    /// Like `request(_:_:body:)`, with the response headers (names in lower case).
    func response(_ method: String, _ path: String, body: String, timeout: Int = 15) -> (status: Int, headers: [String: String], body: String) {
        let headerFile = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-headers-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: headerFile) }
        let r = curl(["-s", "-m", "\(timeout)", "-X", method, "-H", "Content-Type: application/json", "--data-binary", body,
                      "-D", headerFile.path, "-o", "-", "-w", "\n%{http_code}", "http://127.0.0.1:\(port)\(path)"])
        var headers: [String: String] = [:]
        for line in ((try? String(contentsOf: headerFile, encoding: .utf8)) ?? "").split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (r.status, headers, String(decoding: r.body, as: UTF8.self))
    }

    /// Sends `method` to every path in turn over one connection; returns each answer's status.
    func statuses(_ method: String, _ paths: [String], timeout: Int = 120) -> [Int] {
        let r = curl(["-s", "-m", "\(timeout)", "-X", method, "-w", "%{http_code}\n"]
                     + paths.flatMap { ["-o", "/dev/null", "http://127.0.0.1:\(port)\($0)"] })
        let text = String(decoding: r.body, as: UTF8.self) // one status a line; curl() took the empty last one
        return text.split(separator: "\n").compactMap { Int($0) }
    }

    func json(_ method: String, _ path: String) -> (status: Int, object: [String: Any]) {
        let r = request(method, path)
        let obj = (try? JSONSerialization.jsonObject(with: Data(r.body))) as? [String: Any] ?? [:]
        return (r.status, obj)
    }

    /// Waits until `condition` holds on the status JSON, up to `seconds`.
    func waitForStatus(seconds: Double, _ condition: ([String: Any]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let r = json("GET", "/api/v1/status")
            if r.status == 200 && condition(r.object) { return true }
            if !process.isRunning { return false }
            Thread.sleep(forTimeInterval: 0.2)
        }
        return false
    }

    /// The first snapshot within `seconds` that meets `condition`, or nil.
    func waitForSnapshot(seconds: Double, _ condition: (BGRAImage) -> Bool) -> BGRAImage? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let img = try? snapshot(), condition(img) { return img }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return nil
    }

    func snapshot(width: Int? = nil) throws -> BGRAImage {
        let r = request("GET", "/api/v1/snapshot.png" + (width.map { "?width=\($0)" } ?? ""))
        guard r.status == 200 else { throw TestFailure("snapshot: HTTP \(r.status)") }
        return try ImageCodec.decode(bytes: r.body)
    }
}

/// The threads of the hung process `pid` and their frames in the project's code (gdb, when the
/// machine has it), for a failure message.
func threads(of pid: Int32) -> String {
    let gdb = URL(fileURLWithPath: "/usr/bin/gdb")
    guard FileManager.default.isExecutableFile(atPath: gdb.path),
          let run = try? FlipboxProcess.runToEnd(program: gdb, ["-p", "\(pid)", "-batch", "-ex", "thread apply all bt 16"]) else {
        return "(no gdb to read them)"
    }
    let lines = run.output.split(separator: "\n")
    let kept = lines.enumerated().filter { index, line in
        line.hasPrefix("Thread ") ? lines[(index + 1)...].prefix(16).contains { $0.contains("/Sources/") } : line.contains("/Sources/")
    }
    return kept.map { String($0.element.prefix(200)) }.prefix(80).joined(separator: "\n")
}

/// Runs curl; the last line of its output is the HTTP status (`-w`).
func curl(_ arguments: [String]) -> (status: Int, body: [UInt8]) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    p.arguments = arguments
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    do { try p.run() } catch { return (0, []) }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    var bytes = [UInt8](data)
    guard let nl = bytes.lastIndex(of: UInt8(ascii: "\n")) else { return (0, bytes) }
    let status = Int(String(decoding: bytes[(nl + 1)...], as: UTF8.self)) ?? 0
    bytes.removeSubrange(nl...)
    return (status, bytes)
}

/// Collects a Server-Sent Events stream with `curl -N` until stopped.
final class EventRecorder: @unchecked Sendable {
    private let process = Process()
    private let output: URL

    init(url: String) throws {
        output = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-events-\(UUID().uuidString).txt")
        FileManager.default.createFile(atPath: output.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sN", url]
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Stops and returns the events as (name, JSON object).
    func stop() -> [(event: String, data: [String: Any])] {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        var events: [(String, [String: Any])] = []
        for block in text.components(separatedBy: "\n\n") {
            var name = "message", data = ""
            for line in block.split(separator: "\n") {
                if line.hasPrefix("event:") { name = line.dropFirst(6).trimmingCharacters(in: .whitespaces) }
                if line.hasPrefix("data:") { data += line.dropFirst(5).trimmingCharacters(in: .whitespaces) }
            }
            if !data.isEmpty, let obj = (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] {
                events.append((name, obj))
            }
        }
        return events
    }
}

/// Sends a live MPEG-TS test stream (H.264 + AAC) over UDP to 127.0.0.1:`port`.
final class UDPTestStream: @unchecked Sendable {
    let pipeline: Pipeline

    init(port: Int, rgb: UInt32, toneHz: Int = 660) throws {
        try GStreamer.initialize()
        pipeline = try Pipeline(description: """
            videotestsrc is-live=true pattern=solid-color foreground-color=\(0xFF00_0000 | rgb) ! video/x-raw,width=320,height=180,framerate=30/1 ! \
            x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! h264parse ! queue ! mux. \
            audiotestsrc is-live=true freq=\(toneHz) ! audioconvert ! avenc_aac ! aacparse ! queue ! mux. \
            mpegtsmux name=mux alignment=7 ! udpsink host=127.0.0.1 port=\(port) sync=false
            """)
        try pipeline.setState(.playing)
    }

    func stop() { pipeline.shutdown() }
}

/// A port on loopback free for TCP and UDP now (a box's API port taken by another program made
/// a restarted box wait for it: `RecordBoxTests`, once in CI).
func freePort() -> Int { freeLoopbackPort() }

/// Writes a solid-colour square SVG logo.
func writeLogo(_ dir: URL, name: String, color: String) throws -> String {
    let path = dir.appendingPathComponent("\(name).svg")
    try #"<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="\#(color)"/></svg>"#
        .write(to: path, atomically: true, encoding: .utf8)
    return path.lastPathComponent
}

extension BGRAImage {
    /// True when the mean colour of the box around (cx, cy) is within `tolerance` of (r, g, b).
    func looks(_ r: Double, _ g: Double, _ b: Double, atX cx: Int, y cy: Int, size: Int = 8, tolerance: Double = 50) -> Bool {
        let m = meanRGB(x: cx - size / 2, y: cy - size / 2, width: size, height: size)
        return abs(m.r - r) < tolerance && abs(m.g - g) < tolerance && abs(m.b - b) < tolerance
    }

    /// How many pixels of the box meet `condition` (r, g, b).
    func countPixels(x: Int, y: Int, width: Int, height: Int, _ condition: (Double, Double, Double) -> Bool) -> Int {
        var count = 0
        for py in y..<(y + height) {
            for px in x..<(x + width) {
                let m = meanRGB(x: px, y: py, width: 1, height: 1)
                if condition(m.r, m.g, m.b) { count += 1 }
            }
        }
        return count
    }

    func describe(atX cx: Int, y cy: Int) -> String {
        let m = meanRGB(x: cx - 4, y: cy - 4, width: 8, height: 8)
        return "(\(Int(m.r)), \(Int(m.g)), \(Int(m.b)))"
    }
}

/// Runs the built `flipbox` with `arguments` and `input` on its standard input; its exit status and output.
func runFlipbox(_ arguments: [String], input: String) -> (status: Int32, output: String) {
    let p = Process()
    p.executableURL = FlipboxProcess.executable
    p.arguments = arguments
    let stdin = Pipe(), out = Pipe()
    p.standardInput = stdin
    p.standardOutput = out
    p.standardError = out
    do { try p.run() } catch { return (-1, "\(error)") }
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try? stdin.fileHandleForWriting.close()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: data, as: UTF8.self))
}
