import ConnectionGuard
import Control
import Foundation
import Testing

/// Slowloris on the control API, over real sockets: a request head sent a line at a time is cut
/// at the header timeout, and connections beyond the cap are answered 503 at once; the API still
/// answers afterwards.
@Suite("Control API: connection limits")
struct ConnectionLimitTests {
    static var configuration: ControlServerConfiguration {
        var c = ControlServerConfiguration()
        c.connections = ConnectionLimits(maxConnections: 8, maxPerAddress: 8, headerTimeout: .milliseconds(800))
        return c
    }

    @Test func aHeadSentSlowlyIsCutAtTheHeaderTimeout() async throws {
        try await SameOriginTests.live(FakePlayer(), configuration: Self.configuration) { port in
            let (text, took) = try await RawHTTPClient.blocking {
                let connection = try RawHTTPClient(port: port)
                defer { connection.hangUp() }
                let started = Date()
                try connection.send("GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                // A header line every 200 ms, for 3 s unless the server cuts the connection first.
                for n in 0..<15 {
                    Thread.sleep(forTimeInterval: 0.2)
                    guard (try? connection.send("X-Slow-\(n): 1\r\n")) != nil else { break }
                }
                return (try connection.read(until: "\u{0}never"), Date().timeIntervalSince(started))
            }
            let answer = RawHTTPAnswer(parsing: text)
            #expect(answer.status == 408, "\(text.prefix(300))")
            #expect(answer.error.contains("did not arrive within 0.8 s"), "\(answer.error)")
            #expect(took < 5, "cut at the timeout, not kept: \(took) s")
            #expect(try await RawHTTPClient.exchange(port: port, "GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1").status == 200)
        }
    }

    @Test func connectionsBeyondTheCapAre503AndIdleOnesAreCut() async throws {
        try await SameOriginTests.live(FakePlayer(), configuration: Self.configuration) { port in
            let statuses = try await RawHTTPClient.blocking {
                // Twelve connections that never send a byte: those past the cap are refused at
                // once, the others cut at the header timeout.
                let connections = try (0..<12).map { _ in try RawHTTPClient(port: port) }
                defer { connections.forEach { $0.hangUp() } }
                return connections.map { RawHTTPAnswer(parsing: (try? $0.read(until: "\u{0}never")) ?? "") }
            }
            let held = statuses.filter { $0.status == 408 }, refused = statuses.filter { $0.status == 503 }
            #expect(held.count + refused.count == 12, "\(statuses.map(\.status))")
            #expect(held.count <= 8 && held.count >= 6, "at most 8 held at once (the test's own client may hold one): \(statuses.map(\.status))")
            #expect(refused.first?.headers["retry-after"] == "1" && refused.first?.error.contains("already holds 8 connections") == true,
                    "\(String(describing: refused.first))")
            #expect(held.first?.error.contains("did not arrive within 0.8 s") == true, "\(String(describing: held.first))")
            // Their places are given back.
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await RawHTTPClient.exchange(port: port, "GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1").status == 200)
        }
    }

    @Test func anEventStreamOutlivesTheHeaderTimeout() async throws {
        try await SameOriginTests.live(FakePlayer(), configuration: Self.configuration) { port in
            let text = try await RawHTTPClient.blocking {
                let connection = try RawHTTPClient(port: port)
                defer { connection.hangUp() }
                try connection.send("GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                _ = try connection.read(until: "}")
                // Quiet between requests for longer than the header timeout: the idle timeout's
                // business, not the header timeout's. Then a second request is answered.
                Thread.sleep(forTimeInterval: 1.5)
                try connection.send("GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                return try connection.read(until: "\u{0}never")
            }
            #expect(text.hasPrefix("HTTP/1.1 200"), "\(text.prefix(200))")
        }
    }
}
