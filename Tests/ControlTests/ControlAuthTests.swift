import Control
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Control API: configuration and bearer token")
struct ControlAuthTests {
    @Test(arguments: ["127.0.0.1", "127.1.2.3", "localhost", "LocalHost", "::1", "[::1]", "0:0:0:0:0:0:0:1"])
    func loopbackNeedsNoToken(host: String) throws {
        let configuration = ControlServerConfiguration(host: host)
        #expect(configuration.isLoopback)
        try configuration.validate()
    }

    @Test(arguments: ["0.0.0.0", "::", "192.168.1.20", "box.local", "128.0.0.1", "127.0.0", "::2"])
    func otherHostsRequireAToken(host: String) throws {
        let configuration = ControlServerConfiguration(host: host)
        #expect(!configuration.isLoopback)
        let error = #expect(throws: ControlConfigurationError.self) {
            try makeControlApplication(player: FakePlayer(), configuration: configuration, logger: quietLogger)
        }
        #expect(error?.code == .tokenRequired)
        #expect(error?.message.contains("token") == true)
        try ControlServerConfiguration(host: host, token: "s3cret").validate()
    }

    @Test func defaults() {
        let configuration = ControlServerConfiguration()
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 8642)
        #expect(configuration.token == nil)
    }

    @Test func badTokenAndPortAreRejected() {
        #expect(throws: ControlConfigurationError(.invalidToken, "control API: the token must be non-empty printable ASCII without spaces [invalid-token]")) {
            try ControlServerConfiguration(token: "two words").validate()
        }
        let empty = #expect(throws: ControlConfigurationError.self) { try ControlServerConfiguration(token: "").validate() }
        #expect(empty?.code == .invalidToken)
        #expect(throws: ControlConfigurationError(.invalidPort, "control API: port 70000 is not between 0 and 65535 [invalid-port]")) {
            try ControlServerConfiguration(port: 70000).validate()
        }
    }

    static let secured = ControlServerConfiguration(host: "0.0.0.0", token: "s3cret")

    @Test func missingOrWrongTokenIs401() async throws {
        let player = FakePlayer()
        try await withControlAPI(player, configuration: Self.secured) { client in
            for (uri, method) in [("/api/v1/status", HTTPRequest.Method.get), ("/api/v1/flip/next", .post),
                                  ("/api/v1/nope", .get), ("/api/v1/events", .get)] {
                for headers: HTTPFields in [[:], [.authorization: "Bearer wrong"], [.authorization: "Basic czNjcmV0"],
                                            [.authorization: "Bearer s3cret2"]] {
                    let response = try await client.execute(uri: uri, method: method, headers: headers)
                    #expect(response.status == .unauthorized, "\(method) \(uri) \(headers)")
                    #expect(response.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
                    #expect(try jsonObject(response)["error"] is String)
                }
            }
        }
        #expect(player.flipRequests.isEmpty)
    }

    @Test func bearerTokenLetsRequestsThrough() async throws {
        try await withControlAPI(FakePlayer(), configuration: Self.secured) { client in
            for headers: HTTPFields in [[.authorization: "Bearer s3cret"], [.authorization: "bearer  s3cret"]] {
                let response = try await client.execute(uri: "/api/v1/status", method: .get, headers: headers)
                #expect(response.status == .ok)
            }
            let flip = try await client.execute(uri: "/api/v1/tune/7", method: .post, headers: [.authorization: "Bearer s3cret"])
            #expect(flip.status == .ok)
        }
    }

    @Test func queryTokenOnlyForBrowserURLs() async throws {
        try await withControlAPI(FakePlayer(), configuration: Self.secured) { client in
            let snapshot = try await client.execute(uri: "/api/v1/snapshot.png?width=64&token=s3cret", method: .get)
            #expect(snapshot.status == .ok)
            #expect(snapshot.headers[.contentType] == "image/png")
            let events = try await client.execute(uri: "/api/v1/events?token=s3cret", method: .get)
            #expect(events.status == .ok)
            let wrong = try await client.execute(uri: "/api/v1/snapshot.png?token=nope", method: .get)
            #expect(wrong.status == .unauthorized)
            let status = try await client.execute(uri: "/api/v1/status?token=s3cret", method: .get)
            #expect(status.status == .unauthorized)
            // Thumbnails are pictures too (the fake player has none: 501, past the token check).
            let thumbnail = try await client.execute(uri: "/api/v1/channels/7/thumbnail.jpg?token=s3cret", method: .get)
            #expect(thumbnail.status != .unauthorized)
            let wrongThumbnail = try await client.execute(uri: "/api/v1/channels/7/thumbnail.jpg?token=nope", method: .get)
            #expect(wrongThumbnail.status == .unauthorized)
        }
    }

    @Test func webRemotePageNeedsNoToken() async throws {
        try await withControlAPI(FakePlayer(), configuration: Self.secured) { client in
            let response = try await client.execute(uri: "/", method: .get)
            #expect(response.status == .ok)
        }
    }

    /// The router drops empty path segments; the token check must see the same path. Sent over a
    /// real socket so the path arrives exactly as written (`curl --path-as-is`).
    @Test(arguments: ["POST //api/v1/tune/2", "POST /api//v1/tune/2", "POST ///api/v1/flip/next", "GET //api/v1/status",
                      "GET //api/v1/events", "GET //api/v1/snapshot.png", "POST //api/v1/overlay/banner", "POST //api/v1/pip",
                      "GET /API/v1/status", "GET /%61pi/v1/status", "POST /./api/v1/tune/2", "GET //api/v1/channels/7/thumbnail.jpg",
                      "GET //api/v1/snapshot.png?token=nope"])
    func extraSlashesAndSpellingsNeedTheToken(requestLine: String) async throws {
        let player = FakePlayer()
        let app = try makeControlApplication(player: player, configuration: Self.secured, logger: quietLogger)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let answer = try await RawHTTPClient.blocking {
                let connection = try RawHTTPClient(port: port)
                defer { connection.hangUp() }
                try connection.send("\(requestLine) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                return try connection.read(until: "\r\n\r\n")
            }
            #expect(answer.hasPrefix("HTTP/1.1 401"), "\(requestLine): \(answer.prefix(80))")
        }
        #expect(player.flipRequests.isEmpty)
        #expect(player.snapshotRequests.isEmpty)
        #expect(player.openSubscriptions == 0)
    }
}
