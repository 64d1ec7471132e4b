import Foundation
import GStreamer
import Guide
import Headend
import Lineup
import Logging
import Serve
import ServiceLifecycle
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Every test here runs real pipelines and real clients on a 2-core machine: one suite, run
/// serially, with the concrete suites nested in it (one per file).
@Suite(.serialized) enum ServeTests {}

/// The head-end's log: kept in `recentLog` (the newest lines, for a failing test to show), and
/// printed too when `FLIPBOX_TEST_LOG=1`.
let testLogger: Logger = {
    let printing = ProcessInfo.processInfo.environment["FLIPBOX_TEST_LOG"] != nil
    var l = Logger(label: "flipbox.serve-tests") { label in
        printing ? MultiplexLogHandler([recentLog.handler, StreamLogHandler.standardError(label: label)]) : MultiplexLogHandler([recentLog.handler])
    }
    l.logLevel = .debug
    return l
}()

/// The newest lines the head-end logged in these tests (any thread).
let recentLog = RecentLog(keeping: 300)

/// Keeps the newest lines logged through its handlers.
final class RecentLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    private let keeping: Int
    init(keeping: Int) { self.keeping = keeping }

    func append(_ line: String) {
        lock.withLock {
            lines.append(line)
            if lines.count > keeping { lines.removeFirst(lines.count - keeping) }
        }
    }

    /// The newest `n` lines, oldest first.
    func text(last n: Int = 60) -> String { lock.withLock { lines.suffix(n).joined(separator: "\n") } }

    /// A handler writing into this log. A value: each logger copy has its own metadata.
    var handler: Handler { Handler(log: self) }

    struct Handler: LogHandler {
        let log: RecentLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .debug
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            log.append("\(Date().formatted(.iso8601.time(includingFractionalSeconds: true))) \(event.level) \(event.message)")
        }
    }
}

func makeChannel(_ source: String, number: Int, name: String = "Test") -> Channel {
    Channel(id: "ch\(number)", number: ChannelNumber(number), name: name, sources: [source])
}

/// A head-end serving `channels` on 127.0.0.1 (an ephemeral HTTP port), run in a service group
/// until `stop()`.
final class ServeHarness: @unchecked Sendable {
    let headend: Headend
    let server: StreamServer
    let hls: HLSServer
    let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    init(channels: [Channel], policy: WarmPolicy = .all, guide: Guide? = nil, guideURLs: [String] = [],
         hlsSegmentDuration: Duration = HLSServer.defaultSegmentDuration, recordings: (any RecordingLibrary)? = nil,
         configure: (inout ServeConfiguration) -> Void = { _ in }) async throws {
        try GStreamer.initialize()
        headend = Headend(lineup: Lineup(channels: channels, guideURLs: guideURLs), policy: policy, target: DecodeTarget(width: 160, height: 90),
                          logger: testLogger)
        await headend.applyPolicy(current: nil, last: nil)
        var configuration = ServeConfiguration(port: 0, hdhomerunProtocol: false)
        configure(&configuration)
        server = StreamServer(headend: headend, settings: configuration.streams, logger: testLogger)
        // As makeServeServices makes it: HLS channels take tuners of the device.
        hls = HLSServer(streams: server, tunerLimit: configuration.device.tunerCount, logger: testLogger, segmentDuration: hlsSegmentDuration)
        let bound = PortBox()
        let services = try makeServeServices(server: server, configuration: configuration, guide: guide, logos: LogoCache(directory: NSTemporaryDirectory() + "flipbox-serve-logos"),
                                             hls: hls, recordings: recordings, logger: testLogger) { bound.set($0) }
        let group = ServiceGroup(services: services, logger: testLogger)
        self.group = group
        task = Task { try await group.run() }
        let deadline = ContinuousClock.now + .seconds(10)
        while bound.value == nil && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        guard let port = bound.value else { throw TestFailure("the serving endpoints did not start") }
        self.port = port
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        await headend.shutdown()
    }

    private final class PortBox: @unchecked Sendable {
        private let lock = NSLock()
        private var port: Int?
        func set(_ p: Int) { lock.withLock { port = p } }
        var value: Int? { lock.withLock { port } }
    }
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

/// What a command printed and how it ended.
struct ToolRun {
    var status: Int32
    var output: Data
    var errors: String
    var text: String { String(decoding: output, as: UTF8.self) }
}

/// Runs a tool (ffprobe, ffmpeg, curl, hdhomerun_config) to its end, killed after `timeout` seconds.
func runTool(_ executable: String, _ arguments: [String], timeout: Double = 30) async throws -> ToolRun {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = [executable] + arguments
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = FileHandle.nullDevice
    try p.run()
    let pid = p.processIdentifier
    let killer = Task {
        try await Task.sleep(for: .milliseconds(Int(timeout * 1000)))
        kill(pid, SIGKILL)
    }
    // Read both pipes off the cooperative pool, so a tool that writes a lot never blocks on a full pipe.
    let (output, errors) = await withCheckedContinuation { (continuation: CheckedContinuation<(Data, Data), Never>) in
        Thread.detachNewThread {
            let errors = ErrorsRead()
            Thread.detachNewThread { errors.finish(err.fileHandleForReading.readDataToEndOfFile()) }
            let output = out.fileHandleForReading.readDataToEndOfFile()
            let errorData = errors.wait()
            p.waitUntilExit()
            continuation.resume(returning: (output, errorData))
        }
    }
    killer.cancel()
    return ToolRun(status: p.terminationStatus, output: output, errors: String(decoding: errors, as: UTF8.self))
}

/// The standard error of a tool, read on its own thread.
private final class ErrorsRead: @unchecked Sendable {
    private let condition = NSCondition()
    private var data: Data?
    func finish(_ d: Data) { condition.lock(); data = d; condition.signal(); condition.unlock() }
    func wait() -> Data {
        condition.lock()
        defer { condition.unlock() }
        while data == nil { condition.wait() }
        return data!
    }
}

/// A plain TCP HTTP client on a socket of its own: sends one GET, then either reads the answer
/// on a thread (recording when bytes arrive) or never reads at all (a stuck client).
final class RawHTTPClient: @unchecked Sendable {
    private let fd: Int32
    private let lock = NSLock()
    private var received = 0
    private var arrivals: [(ContinuousClock.Instant, Int)] = []
    private var closedByServer = false
    private var reading = false
    private var open = true
    private let readerDone = DispatchSemaphore(value: 0)

    /// `receiveBuffer`: the socket's receive buffer, small for a client that will not read.
    init(port: Int, path: String, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { Glibc.close(fd); throw POSIXError(.ECONNREFUSED) }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The status code of the answer (reads the first line, blocking up to `timeout` seconds).
    func status(timeout: Int) -> Int? {
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.count < 64, recv(fd, &byte, 1, 0) == 1 {
            if byte == UInt8(ascii: "\n") { break }
            line.append(byte)
        }
        let parts = String(decoding: line, as: UTF8.self).split(separator: " ")
        return parts.count >= 2 ? Int(parts[1]) : nil
    }

    /// Reads until the server closes the connection, on a thread of its own.
    func startReading() {
        lock.withLock { reading = true }
        Thread.detachNewThread { [self] in
            defer { readerDone.signal() }
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { break }
                lock.withLock {
                    received += n
                    arrivals.append((.now, n))
                }
            }
            lock.withLock { closedByServer = true }
        }
    }

    var bytes: Int { lock.withLock { received } }

    /// The longest time between two arrivals since `instant`.
    func longestGap(since instant: ContinuousClock.Instant) -> Duration {
        let times = lock.withLock { arrivals.map(\.0).filter { $0 >= instant } }
        return zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? .seconds(999)
    }

    /// True once the reader saw the server close the connection.
    var isClosedByServer: Bool { lock.withLock { closedByServer } }

    /// Closes the connection. The reader is woken and waited for first: a thread still in
    /// `recv` on a closed descriptor could read the next socket that gets its number.
    func close() {
        let (wasReading, wasOpen) = lock.withLock {
            defer { reading = false; open = false }
            return (reading, open)
        }
        guard wasOpen else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        if wasReading { readerDone.wait() }
        Glibc.close(fd)
    }
}
