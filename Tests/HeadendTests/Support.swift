import FlipboxCore
import Foundation
import GStreamer
@testable import Headend
import Lineup
import Logging
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Every test here runs real GStreamer pipelines on a 2-core machine: one suite, run serially,
/// with the concrete suites nested in it (one per file). Nested suites are separate types:
/// each initializes GStreamer itself.
@Suite(.serialized) enum HeadendTests {}

// MARK: - Channels and polling

/// A quiet logger (set `FLIPBOX_TEST_LOG=1` to see what the sources do).
let testLogger: Logger = {
    var l = Logger(label: "flipbox.headend-tests")
    l.logLevel = ProcessInfo.processInfo.environment["FLIPBOX_TEST_LOG"] != nil ? .debug : .critical
    return l
}()

func makeChannel(_ sources: [String], number: Int = 1, name: String = "Test") -> Channel {
    Channel(id: "ch\(number)", number: ChannelNumber(number), name: name, sources: sources)
}

/// Records every state a source reports, in order (any thread).
final class StateLog: @unchecked Sendable {
    private let lock = NSLock()
    private var states: [ChannelState] = []
    func record(_ s: ChannelState) { lock.withLock { states.append(s) } }
    var all: [ChannelState] { lock.withLock { states } }
    func saw(_ match: (ChannelState) -> Bool) -> Bool { all.contains(where: match) }
}

/// A `ChannelSource` for `sources`, with its state changes recorded.
func makeSource(_ sources: [String], stallTimeout: Duration = ChannelSource.defaultStallTimeout,
                connectTimeout: Duration = ChannelSource.defaultConnectTimeout) -> (ChannelSource, StateLog) {
    let log = StateLog()
    let source = ChannelSource(channel: makeChannel(sources), logger: testLogger,
                               stallTimeout: stallTimeout, connectTimeout: connectTimeout) { log.record($0) }
    return (source, log)
}

/// Polls `condition` every 50 ms until it holds or `seconds` pass. Returns whether it held.
@discardableResult
func eventually(within seconds: Double, _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return await condition()
}

func isWarm(_ s: ChannelState) -> Bool { s == .warm }
func isStalled(_ s: ChannelState) -> Bool { if case .stalled = s { true } else { false } }

/// Waits for `source` to be warm with a keyframe cached, then checks the cached caps: H.264
/// byte-stream video always, audio when `audio` is true.
func expectWarm(_ source: ChannelSource, log: StateLog, audio: Bool, within seconds: Double = 8,
                sourceLocation: Testing.SourceLocation = #_sourceLocation) async {
    let ok = await eventually(within: seconds) {
        source.state == .warm && source.cache.hasKeyframe && source.cache.videoCaps != nil
            && (!audio || source.cache.audioCaps != nil)
    }
    #expect(ok, "not warm within \(seconds) s; states: \(log.all.map(\.description))", sourceLocation: sourceLocation)
    guard ok else { return }
    let video = source.cache.videoCaps
    #expect(video?.mediaType == "video/x-h264", "video caps \(video?.description ?? "none")", sourceLocation: sourceLocation)
    #expect(video?.string("stream-format") == "byte-stream", "video caps \(video?.description ?? "none")", sourceLocation: sourceLocation)
    if audio {
        let caps = source.cache.audioCaps
        #expect(caps?.mediaType.hasPrefix("audio/") == true, "audio caps \(caps?.description ?? "none")", sourceLocation: sourceLocation)
    }
}

/// Checks that `source` stays warm and keeps delivering for `seconds` (no failure, no stall).
func expectStaysWarm(_ source: ChannelSource, log: StateLog, for seconds: Double,
                     sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws {
    let before = log.all.count
    let end = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    var worst: Duration = .zero
    while ContinuousClock.now < end {
        try await Task.sleep(for: .milliseconds(100))
        if let last = source.cache.lastDelivery { worst = max(worst, ContinuousClock.now - last) } else { worst = .seconds(99) }
    }
    let changes = log.all.dropFirst(before).map(\.description)
    #expect(changes.isEmpty && source.state == .warm, "left warm: \(changes), now \(source.state)", sourceLocation: sourceLocation)
    #expect(worst < .milliseconds(700), "delivery gap of \(worst)", sourceLocation: sourceLocation)
}

// MARK: - Ports

/// A port on 127.0.0.1 that is free right now for both UDP and TCP (see TestSupport).
func freePort() -> Int { freeLoopbackPort() }

// MARK: - Senders

/// A live H.264 (+ AAC) MPEG-TS stream sent over UDP to 127.0.0.1:`port`, optionally RTP-wrapped.
final class LoopbackSender: @unchecked Sendable {
    let port: Int
    private let pipeline: Pipeline

    /// `srt`: serve the stream as an SRT listener on `port` instead of sending UDP to it.
    init(port: Int, rtp: Bool = false, srt: Bool = false, audio: Bool = true, rgb: UInt32 = 0x00FF00) throws {
        self.port = port
        var d = "videotestsrc is-live=true pattern=solid-color foreground-color=\(0xFF00_0000 | rgb) ! video/x-raw,width=160,height=90,framerate=30/1 ! "
            + "x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 ! h264parse ! queue ! mux. "
        if audio {
            d += "audiotestsrc is-live=true freq=440 samplesperbuffer=1024 ! audioconvert ! avenc_aac ! aacparse ! queue ! mux. "
        }
        d += "mpegtsmux name=mux alignment=7 ! "
        if rtp { d += "rtpmp2tpay ! " }
        d += srt ? "srtsink uri=srt://127.0.0.1:\(port)?mode=listener wait-for-connection=false sync=false"
                 : "udpsink host=127.0.0.1 port=\(port) sync=false"
        pipeline = try Pipeline(description: d)
        try pipeline.setState(.playing)
    }

    func stop() { pipeline.shutdown() }
    deinit { pipeline.shutdown() }
}

/// Runs a finite (non-live) pipeline to its end, e.g. to write a file. Throws on error or timeout.
func runToEnd(_ description: String, timeout: Duration = .seconds(30)) async throws {
    let p = try Pipeline(description: description)
    defer { p.shutdown() }
    try p.setState(.playing)
    let outcome = await withTaskGroup(of: String?.self) { group in
        group.addTask {
            for await m in p.messages {
                switch m {
                case .endOfStream: return nil
                case .error(let s, let text, let debug): return "\(s): \(text) [\(debug ?? "")]"
                default: continue
                }
            }
            return "bus closed"
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return "timed out"
        }
        let first = await group.next()!
        group.cancelAll()
        p.shutdown() // ends the message stream so the other task returns
        return first
    }
    if let outcome { throw TestFailure("pipeline did not finish: \(outcome)") }
}

/// A fresh temporary directory, removed by `remove()`.
struct TempDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-headend-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// `python3 -m http.server` serving a directory on 127.0.0.1; killed with SIGKILL by `stop()`.
final class HTTPFileServer: @unchecked Sendable {
    let port: Int
    private let process: Process

    init(directory: URL) throws {
        var lastError = "no attempt"
        for _ in 0..<5 {
            let port = freePort()
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["python3", "-m", "http.server", "\(port)", "--bind", "127.0.0.1", "--directory", directory.path]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            p.standardInput = FileHandle.nullDevice
            try p.run()
            let deadline = Date().addingTimeInterval(5)
            while p.isRunning && Date() < deadline && !acceptsConnections(port: port) {
                Thread.sleep(forTimeInterval: 0.05)
            }
            if p.isRunning && acceptsConnections(port: port) {
                self.port = port
                self.process = p
                return
            }
            lastError = p.isRunning ? "not listening after 5 s" : "exited with \(p.terminationStatus)"
            if p.isRunning { kill(p.processIdentifier, SIGKILL) }
            p.waitUntilExit()
        }
        throw TestFailure("cannot start python3 -m http.server: \(lastError)")
    }

    func url(_ name: String) -> String { "http://127.0.0.1:\(port)/\(name)" }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

/// Runs a command to completion; throws with its output when it fails.
func run(_ executable: String, _ arguments: [String]) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = [executable] + arguments
    let out = Pipe()
    p.standardOutput = out
    p.standardError = out
    p.standardInput = FileHandle.nullDevice
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else {
        throw TestFailure("\(executable) failed: \(String(decoding: data.suffix(2000), as: UTF8.self))")
    }
}
