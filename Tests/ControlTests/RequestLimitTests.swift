import Control
import Foundation
import Hummingbird
import HummingbirdTesting
import Lineup
import Switcher
import Testing

/// What one request, and all of them together, may take: answered with JSON errors that name the
/// limit, over a real socket.
@Suite("Control API: request limits")
struct RequestLimitTests {
    @Test func overLongURLIs414() async throws {
        let player = FakePlayer()
        try await SameOriginTests.live(player) { port in
            let long = String(repeating: "7", count: 9000)
            let answer = try await RawHTTPClient.exchange(port: port, "POST /api/v1/tune/\(long) HTTP/1.1\r\nHost: 127.0.0.1")
            #expect(answer.status == 414, "\(answer.status) \(answer.body.prefix(200))")
            #expect(answer.headers["content-type"] == "application/json; charset=utf-8")
            #expect(answer.error.contains("longer than 8192 bytes"), "\(answer.error)")
            // Far beyond SwiftNIO's own limit (80 KB), still a JSON 414, not a bare 400.
            let huge = try await RawHTTPClient.exchange(port: port, "GET /api/v1/status?x=\(String(repeating: "a", count: 100_000)) HTTP/1.1\r\nHost: 127.0.0.1")
            #expect(huge.status == 414)
            // The connection after it works as ever.
            let status = try await RawHTTPClient.exchange(port: port, "GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1")
            #expect(status.status == 200)
        }
        #expect(player.flipRequests.isEmpty)
    }

    @Test func overLongHeadersAre431() async throws {
        try await SameOriginTests.live(FakePlayer()) { port in
            let cookie = "Cookie: " + String(repeating: "c", count: 20_000)
            let one = try await RawHTTPClient.exchange(port: port, "GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\n\(cookie)")
            #expect(one.status == 431, "\(one.status) \(one.body.prefix(200))")
            #expect(one.error.contains("more than 16384 bytes"), "\(one.error)")
            let many = (0..<2000).map { "X-Filler-\($0): 1" }.joined(separator: "\r\n")
            let lots = try await RawHTTPClient.exchange(port: port, "GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\n\(many)")
            #expect(lots.status == 431)
            // Just under the limit passes.
            let fine = try await RawHTTPClient.exchange(port: port, "GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: \(String(repeating: "f", count: 15_000))")
            #expect(fine.status == 200)
        }
    }

    /// Keep-alive: the limits count each request's head afresh.
    @Test func limitsCountEachRequestOnAConnection() async throws {
        try await SameOriginTests.live(FakePlayer()) { port in
            let text = try await RawHTTPClient.blocking {
                let connection = try RawHTTPClient(port: port)
                defer { connection.hangUp() }
                var answers = ""
                for _ in 0..<3 {
                    let filler = String(repeating: "f", count: 6000)
                    try connection.send("POST /api/v1/pip HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: \(filler)\r\nContent-Length: 2\r\n\r\n{}")
                    answers += try connection.read(until: "}")
                }
                return answers
            }
            #expect(text.components(separatedBy: "HTTP/1.1 501").count == 4, "three answers of the player without overlays: \(text.prefix(300))")
        }
    }

    @Test func overLargeBodyIs413() async throws {
        try await SameOriginTests.live(FakePlayer()) { port in
            let declared = try await RawHTTPClient.exchange(port: port, "POST /api/v1/pip HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000")
            #expect(declared.status == 413, "\(declared.body)")
            #expect(declared.error.contains("100000 bytes"), "\(declared.error)")
            #expect(declared.error.contains("65536"), "\(declared.error)")
            // A chunked body has no length up front: found too long as it is read.
            let chunk = String(repeating: " ", count: 40_000)
            let size = String(chunk.utf8.count, radix: 16)
            let chunked = try await RawHTTPClient.exchange(
                port: port, "POST /api/v1/pip HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked",
                body: "\(size)\r\n\(chunk)\r\n\(size)\r\n\(chunk)\r\n0\r\n\r\n")
            #expect(chunked.status == 413, "\(chunked.status) \(chunked.body)")
        }
    }

    @Test func eventStreamsAreBounded() async throws {
        let player = FakePlayer(eventsOpenFor: .seconds(30))
        let configuration = ControlServerConfiguration(limits: RequestLimits(eventStreams: 2))
        try await SameOriginTests.live(player, configuration: configuration) { port in
            let streams = try await RawHTTPClient.blocking {
                try (0..<2).map { _ in
                    let connection = try RawHTTPClient(port: port)
                    try connection.send("GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    _ = try connection.read(until: "\r\n\r\n")
                    return connection
                }
            }
            let third = try await RawHTTPClient.exchange(port: port, "GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1")
            #expect(third.status == 503)
            #expect(third.headers["retry-after"] == "1")
            #expect(third.error.contains("2 event streams are open already"), "\(third.error)")
            // Closing one frees its place.
            streams[0].hangUp()
            var admitted = false
            for _ in 0..<50 where !admitted {
                try await Task.sleep(for: .milliseconds(100))
                let again = try await RawHTTPClient.blocking {
                    let connection = try RawHTTPClient(port: port)
                    defer { connection.hangUp() }
                    try connection.send("GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    return try connection.read(until: "\r\n\r\n")
                }
                admitted = again.hasPrefix("HTTP/1.1 200")
            }
            #expect(admitted, "a place opens when a stream closes")
            streams[1].hangUp()
        }
    }

    @Test func flipsInFlightAreBounded() async throws {
        let player = FakePlayer(flipTakes: .milliseconds(1500))
        let configuration = ControlServerConfiguration(limits: RequestLimits(flipsInFlight: 2))
        try await SameOriginTests.live(player, configuration: configuration) { port in
            let answers = try await withThrowingTaskGroup(of: RawHTTPAnswer.self) { group in
                for i in 0..<3 {
                    group.addTask {
                        try await Task.sleep(for: .milliseconds(200 * i))
                        return try await RawHTTPClient.exchange(port: port, "POST /api/v1/flip/next HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0")
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.map(\.status).sorted() == [200, 200, 503], "\(answers.map(\.status))")
            let refused = answers.first { $0.status == 503 }
            #expect(refused?.error.contains("2 flips are in flight already") == true, "\(refused?.error ?? "")")
            // Places come back when flips end.
            let later = try await RawHTTPClient.exchange(port: port, "POST /api/v1/flip/next HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0")
            #expect(later.status == 200)
        }
        #expect(player.flipRequests.count == 3)
    }

    @Test func headIsAnsweredLikeGetWithoutABody() async throws {
        try await SameOriginTests.live(FakePlayer()) { port in
            let get = try await RawHTTPClient.exchange(port: port, "GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1")
            let head = try await RawHTTPClient.exchange(port: port, "HEAD /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1")
            #expect(head.status == 200)
            #expect(head.headers["content-type"] == "application/json; charset=utf-8")
            #expect(head.headers["content-length"] == get.headers["content-length"])
            #expect(head.body.isEmpty)
            let snapshot = try await RawHTTPClient.exchange(port: port, "HEAD /api/v1/snapshot.png HTTP/1.1\r\nHost: 127.0.0.1")
            #expect(snapshot.status == 200)
            #expect(snapshot.headers["content-type"] == "image/png")
            #expect(snapshot.body.isEmpty)
            let post = try await RawHTTPClient.exchange(port: port, "HEAD /api/v1/flip/next HTTP/1.1\r\nHost: 127.0.0.1")
            #expect(post.status == 405)
            #expect(post.headers["allow"] == "POST")
            let missing = try await RawHTTPClient.exchange(port: port, "HEAD /api/v1/nothing HTTP/1.1\r\nHost: 127.0.0.1")
            #expect(missing.status == 404)
        }
    }
}
