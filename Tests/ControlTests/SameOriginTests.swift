import Control
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Without a token, web pages must not drive the box: requests naming another host (DNS
/// rebinding) and state-changing requests from other origins (CSRF) get 403. Sent over a real
/// socket, as a browser would, with the headers a browser sets.
@Suite("Control API: Host and Origin checks without a token")
struct SameOriginTests {
    /// Runs `test` with a live server for `player`; passes its port.
    static func live(
        _ player: FakePlayer, configuration: ControlServerConfiguration = ControlServerConfiguration(),
        _ test: @escaping @Sendable (Int) async throws -> Void
    ) async throws {
        let app = try makeControlApplication(player: player, configuration: configuration, logger: quietLogger)
        try await app.test(.live) { client in try await test(try #require(client.port)) }
    }

    @Test(arguments: ["Origin: http://evil.example", "Origin: null", "Origin: http://127.0.0.1:1",
                      "Referer: http://evil.example/page.html", "Origin: http://localhost.evil.example"])
    func crossSiteFlipIsRefused(header: String) async throws {
        let player = FakePlayer()
        try await Self.live(player) { port in
            let answer = try await RawHTTPClient.exchange(port: port, "POST /api/v1/tune/7 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(header)\r\nContent-Length: 0")
            #expect(answer.status == 403, "\(header): \(answer.body)")
            #expect(answer.headers["content-type"] == "application/json; charset=utf-8")
            #expect(answer.error.contains("cross-site request defence"), "\(answer.error)")
            #expect(answer.error.contains("--token"), "says how to allow it: \(answer.error)")
        }
        #expect(player.flipRequests.isEmpty)
    }

    @Test(arguments: ["DELETE /api/v1/pip", "PUT /api/v1/status", "PATCH /api/v1/overlay/banner", "POST /api/v1/flip/next"])
    func everyStateChangingMethodIsChecked(requestLine: String) async throws {
        try await Self.live(FakePlayer()) { port in
            let answer = try await RawHTTPClient.exchange(port: port, "\(requestLine) HTTP/1.1\r\nHost: localhost:\(port)\r\nOrigin: http://evil.example\r\nContent-Length: 0")
            #expect(answer.status == 403, "\(requestLine): \(answer.body)")
        }
    }

    /// The web remote calls the API from the page the box served: same origin, allowed. Programs
    /// (curl) send no Origin and are allowed too. Reading is not a state change.
    @Test func ownOriginAndProgramsAreAllowed() async throws {
        let player = FakePlayer()
        try await Self.live(player) { port in
            let page = try await RawHTTPClient.exchange(port: port, "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)")
            #expect(page.status == 200)
            #expect(page.body.contains("fetch("))
            let own = try await RawHTTPClient.exchange(port: port, """
                POST /api/v1/tune/7 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\n\
                Referer: http://127.0.0.1:\(port)/\r\nContent-Length: 0
                """)
            #expect(own.status == 200, "\(own.body)")
            let referer = try await RawHTTPClient.exchange(port: port, "POST /api/v1/flip/next HTTP/1.1\r\nHost: localhost:\(port)\r\nReferer: http://localhost:\(port)/\r\nContent-Length: 0")
            #expect(referer.status == 200, "\(referer.body)")
            let curl = try await RawHTTPClient.exchange(port: port, "POST /api/v1/recall HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 0")
            #expect(curl.status == 200)
            let read = try await RawHTTPClient.exchange(port: port, "GET /api/v1/status HTTP/1.1\r\nHost: [::1]:\(port)\r\nOrigin: http://evil.example")
            #expect(read.status == 200, "\(read.body)")
        }
        #expect(player.flipRequests.count == 3)
    }

    @Test(arguments: ["evil.example", "evil.example:8642", "192.168.1.20", "localhost.evil.example", "127.0.0.1.nip.io", ""])
    func foreignHostIsRefused(host: String) async throws {
        let player = FakePlayer()
        try await Self.live(player) { port in
            for requestLine in ["GET /api/v1/status", "GET /api/v1/snapshot.png", "POST /api/v1/flip/next", "GET /"] {
                let answer = try await RawHTTPClient.exchange(port: port, "\(requestLine) HTTP/1.1\r\nHost: \(host)\r\nContent-Length: 0")
                #expect(answer.status == 403, "\(requestLine) Host: \(host): \(answer.body)")
                #expect(answer.error.contains("DNS rebinding defence"), "\(answer.error)")
                if !host.isEmpty { #expect(answer.error.contains("--allow-host"), "\(answer.error)") }
            }
        }
        #expect(player.flipRequests.isEmpty)
        #expect(player.snapshotRequests.isEmpty)
    }

    @Test func allowedHostsAndTheListenHostAreAccepted() async throws {
        let player = FakePlayer()
        let configuration = ControlServerConfiguration(host: "127.0.0.1", port: 0, allowedHosts: ["TV.lan", "flipbox.home."])
        try await Self.live(player, configuration: configuration) { port in
            for host in ["tv.lan:\(port)", "TV.LAN", "flipbox.home", "127.0.0.1:\(port)", "localhost"] {
                let answer = try await RawHTTPClient.exchange(port: port, "GET /api/v1/status HTTP/1.1\r\nHost: \(host)")
                #expect(answer.status == 200, "Host: \(host): \(answer.body)")
            }
            let flip = try await RawHTTPClient.exchange(port: port, "POST /api/v1/flip/next HTTP/1.1\r\nHost: tv.lan:\(port)\r\nOrigin: http://tv.lan:\(port)\r\nContent-Length: 0")
            #expect(flip.status == 200, "\(flip.body)")
            let other = try await RawHTTPClient.exchange(port: port, "POST /api/v1/flip/next HTTP/1.1\r\nHost: tv.lan:\(port)\r\nOrigin: http://flipbox.home:\(port)\r\nContent-Length: 0")
            #expect(other.status == 403, "another allowed name is still another origin")
        }
        #expect(player.flipRequests.count == 1)
    }

    /// With a token the checks step aside: a page cannot send `Authorization`, and a box on the
    /// network is reached by whatever name its users give it.
    @Test func aTokenReplacesTheChecks() async throws {
        let configuration = ControlServerConfiguration(host: "127.0.0.1", port: 0, token: "s3cret")
        try await Self.live(FakePlayer(), configuration: configuration) { port in
            let answer = try await RawHTTPClient.exchange(port: port, "POST /api/v1/flip/next HTTP/1.1\r\nHost: box.example\r\nOrigin: http://other.example\r\nAuthorization: Bearer s3cret\r\nContent-Length: 0")
            #expect(answer.status == 200, "\(answer.body)")
        }
    }

    @Test func badAllowedHostIsAConfigurationError() {
        for name in ["http://tv.lan", "tv.lan:8642", "", "tv lan", "a/b"] {
            let error = #expect(throws: ControlConfigurationError.self) {
                try ControlServerConfiguration(allowedHosts: [name]).validate()
            }
            #expect(error?.code == .invalidHost, "\(name)")
        }
        #expect(throws: Never.self) { try ControlServerConfiguration(allowedHosts: ["tv.lan", "192.168.1.20", "fe80::1"]).validate() }
    }
}
