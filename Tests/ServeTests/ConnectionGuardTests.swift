@testable import ConnectionGuard
import Foundation
import Lineup
import Serve
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

extension ServeTests {
    /// Slowloris on the head-end, over real sockets: connections beyond the cap get 503 at once,
    /// a head sent slowly is cut at the header timeout, a stream being sent is never cut.
    @Suite struct ConnectionCaps {
        @Test func connectionsAreCappedAndSlowHeadsAreCut() async throws {
            let harness = try await ServeHarness(channels: [makeChannel("test://color/00ff00?size=160x90&fps=30&gop=15", number: 1)], policy: .none) {
                $0.connections = ConnectionLimits(maxConnections: 6, maxPerAddress: 6, headerTimeout: .seconds(1))
            }
            let port = harness.port
            // A stream that runs for 3 s, three times the header timeout: not cut.
            let stream = try await runTool("curl", ["-s", "--max-time", "3", "-o", "/dev/null", "-w", "%{http_code} %{size_download}",
                                                    harness.url("/stream/1.ts")], timeout: 20)
            let fields = stream.text.split(separator: " ")
            #expect(fields.first == "200" && (Int(fields.last ?? "") ?? 0) > 20_000, "the stream ran to curl's 3 s: \(stream.text)")

            // The stream's connection is let go once the server notices curl left.
            try await Task.sleep(for: .seconds(1.5))
            let answers = try await offPool {
                let held = try (0..<6).map { _ in try LoopbackSocket(port: port) }
                // One line of a request head every 200 ms on the first.
                try held[0].send("GET /lineup.json HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                Thread.sleep(forTimeInterval: 0.2)
                let seventh = try LoopbackSocket(port: port)
                let refused = seventh.readAll()
                for n in 0..<5 {
                    Thread.sleep(forTimeInterval: 0.2)
                    try? held[0].send("X-Slow-\(n): 1\r\n")
                }
                let started = Date()
                let cut = held.map { $0.readAll() }
                return (refused, cut, Date().timeIntervalSince(started))
            }
            #expect(answers.0.hasPrefix("HTTP/1.1 503") && answers.0.contains("already holds 6 connections"), "\(answers.0)")
            #expect(answers.1.allSatisfy { $0.hasPrefix("HTTP/1.1 408") && $0.contains("did not arrive within 1 s") }, "\(answers.1)")
            #expect(answers.2 < 3, "cut within the timeout: \(answers.2) s")
            // Places given back: served again.
            try await Task.sleep(for: .milliseconds(300))
            let again = try await runTool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", harness.url("/lineup.json")])
            #expect(again.text == "200", "\(again.text)")
            await harness.stop()
        }

        @Test func oneAddressHoldsAtMostItsShareButLoopbackAndProxiesMoreOf() {
            let counter = ConnectionCounter(limits: ConnectionLimits(maxConnections: 10, maxPerAddress: 2)) { $0 == "10.0.0.1" }
            #expect(counter.acquire("192.168.1.7") == nil)
            #expect(counter.acquire("192.168.1.7") == nil)
            #expect(counter.acquire("192.168.1.7")?.contains("192.168.1.7 already holds 2 connections") == true)
            #expect(counter.acquire("192.168.1.8") == nil, "another address has its own share")
            for _ in 0..<3 { #expect(counter.acquire("127.0.0.1") == nil, "programs on the box") }
            for _ in 0..<3 { #expect(counter.acquire("10.0.0.1") == nil, "a declared proxy") }
            #expect(counter.open == 9)
            #expect(counter.acquire("10.0.0.1") == nil)
            #expect(counter.acquire("127.0.0.1")?.contains("already holds 10 connections") == true, "the cap holds for everyone")
            counter.release("192.168.1.7")
            #expect(counter.acquire("192.168.1.7") == nil, "a closed connection gives its place back")
        }
    }
}

/// A loopback TCP connection that sends what it is told and reads until the server closes (at
/// most 10 s). Blocking: use it off the cooperative pool.
final class LoopbackSocket: @unchecked Sendable {
    private let fd: Int32

    init(port: Int) throws {
        guard let fd = connectedLoopbackSocket(port: port) else { throw POSIXError(.ECONNREFUSED) }
        self.fd = fd
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else { throw POSIXError(.EPIPE) }
    }

    /// Everything until the server closes (or 10 s of silence).
    func readAll() -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += buffer.prefix(count)
        }
        return String(decoding: received, as: UTF8.self)
    }
}
