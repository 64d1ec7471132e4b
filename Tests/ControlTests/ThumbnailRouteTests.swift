import FlipboxCore
import Control
import Foundation
import Hummingbird
import HummingbirdTesting
import Lineup
import Switcher
import Testing

/// `GET /api/v1/channels/{number}/thumbnail.jpg`: statuses and bodies; the real thumbnails are
/// tested on real pipelines in HeadendTests.
@Suite struct ThumbnailRouteTests {
    /// A player that makes thumbnails of channel 7 only; everything else comes from `FakePlayer`.
    final class ThumbnailPlayer: PlayerControl, @unchecked Sendable {
        let base = FakePlayer()
        static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3, 0xFF, 0xD9]
        private let lock = NSLock()
        private var asked: [(ChannelNumber, Int?)] = []
        var requests: [(ChannelNumber, Int?)] { lock.withLock { asked } }

        func flip(_ request: FlipRequest) async -> FlipResult { await base.flip(request) }
        func status() async -> PlayerStatus { await base.status() }
        func channels() async -> [ChannelStatus] { await base.channels() }
        func snapshotPNG(width: Int?) async throws -> [UInt8] { try await base.snapshotPNG(width: width) }
        func events() -> AsyncStream<PlayerEvent> { base.events() }

        func thumbnailJPEG(number: ChannelNumber, width: Int?) async throws -> [UInt8] {
            lock.withLock { asked.append((number, width)) }
            switch number {
            case ChannelNumber(7): return Self.jpeg
            case ChannelNumber(9, 1): throw ThumbnailError(.notWarm, "channel 9.1 News One is not warm: connecting")
            case ChannelNumber(8): throw ThumbnailError(.noPicture, "channel 8 Eight: no keyframe cached yet")
            default: throw ThumbnailError(.unknownChannel, "unknown channel \(number)")
            }
        }
    }

    func withAPI(_ player: some PlayerControl, _ test: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let app = try makeControlApplication(player: player, configuration: ControlServerConfiguration(), logger: quietLogger)
        try await app.test(.router, test)
    }

    @Test func aWarmChannelsThumbnailIsAJPEG() async throws {
        let player = ThumbnailPlayer()
        try await withAPI(player) { client in
            let response = try await client.execute(uri: "/api/v1/channels/7/thumbnail.jpg?width=320", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "image/jpeg")
            #expect(Array(response.body.readableBytesView) == ThumbnailPlayer.jpeg)
            let plain = try await client.execute(uri: "/api/v1/channels/7/thumbnail.jpg", method: .get)
            #expect(plain.status == .ok)
        }
        #expect(player.requests.map(\.0) == [ChannelNumber(7), ChannelNumber(7)])
        #expect(player.requests.map(\.1) == [320, nil])
    }

    @Test func errorsSayWhatIsWrong() async throws {
        let player = ThumbnailPlayer()
        try await withAPI(player) { client in
            let cases: [(String, HTTPResponse.Status, String)] = [
                ("/api/v1/channels/9.1/thumbnail.jpg", .conflict, "channel 9.1 News One is not warm: connecting"),
                ("/api/v1/channels/8/thumbnail.jpg", .conflict, "channel 8 Eight: no keyframe cached yet"),
                ("/api/v1/channels/42/thumbnail.jpg", .notFound, "unknown channel 42"),
                ("/api/v1/channels/seven/thumbnail.jpg", .badRequest, "'seven' is not a channel number; use a number such as 7 or 9.1"),
                ("/api/v1/channels/7/thumbnail.jpg?width=0", .badRequest, "width must be a whole number from 16 to 7680"),
                ("/api/v1/channels/7/thumbnail.jpg?width=wide", .badRequest, "width must be a whole number from 16 to 7680"),
                ("/api/v1/channels/7/thumbnail.jpg?width=7681", .badRequest, "width must be a whole number from 16 to 7680"),
            ]
            for (uri, status, message) in cases {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == status, "\(uri)")
                #expect(response.headers[.contentType] == "application/json; charset=utf-8", "\(uri)")
                #expect(try jsonObject(response)["error"] as? String == message, "\(uri)")
            }
            let post = try await client.execute(uri: "/api/v1/channels/7/thumbnail.jpg", method: .post)
            #expect(post.status == .methodNotAllowed)
            #expect(post.headers[.allow] == "GET")
        }
        #expect(player.requests.count == 3, "bad numbers and widths never reach the player")
    }

    /// The status comes from the failure's kind (FailureKind+HTTP.swift), the message from the failure.
    @Test func aPlayerWithoutThumbnailsSaysSo() async throws {
        try await withControlAPI(FakePlayer()) { client in
            let response = try await client.execute(uri: "/api/v1/channels/7/thumbnail.jpg", method: .get)
            #expect(response.status == .notImplemented)
            #expect(try jsonObject(response)["error"] as? String == "this test player has no thumbnails")
        }
    }
}
