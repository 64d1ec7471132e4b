import FlipboxCore
import Control
import Foundation
import Hummingbird
import HummingbirdTesting
import Lineup
import Switcher
import Testing

/// `POST /api/v1/unlock`: statuses, `Retry-After`, and what reaches the player. The rule itself
/// (PINGate, PINBackoff) is tested in ParentalTests, the lock on real pipelines end to end.
@Suite struct UnlockRouteTests {
    /// A player with one locked channel, 5, and the PIN 2468; the third wrong PIN starts a 30 s wait.
    final class LockedPlayer: PlayerControl, @unchecked Sendable {
        let base = FakePlayer()
        private let lock = NSLock()
        private var wrong = 0
        private var asked: [String] = []
        var channelsAsked: [String] { lock.withLock { asked } }

        func flip(_ request: FlipRequest) async -> FlipResult { await base.flip(request) }
        func status() async -> PlayerStatus { await base.status() }
        func channels() async -> [ChannelStatus] { await base.channels() }
        func snapshotPNG(width: Int?) async throws -> [UInt8] { try await base.snapshotPNG(width: width) }
        func events() -> AsyncStream<PlayerEvent> { base.events() }

        func unlock(pin: String, channel: ChannelNumber?) async throws -> UnlockStatus {
            lock.withLock { asked.append(channel?.description ?? "on screen") }
            if let channel, channel != ChannelNumber(5) {
                if channel == ChannelNumber(99) { throw UnlockError(.unknownChannel, "there is no channel 99") }
                throw UnlockError(.notLocked, "channel \(channel) is not locked")
            }
            guard pin.count >= 4, pin.allSatisfy(\.isNumber) else { throw UnlockError(.malformed, "a PIN is 4 to 8 digits (0-9)") }
            let count = lock.withLock { () -> Int? in
                if wrong >= 3 { return nil }
                if pin != "2468" { wrong += 1 }
                return wrong
            }
            guard let count else { throw UnlockError(.tooManyAttempts, "too many wrong PINs. try again in 30 s", retryAfter: 29.2) }
            if pin != "2468" { throw UnlockError(.wrongPIN, "wrong pin", retryAfter: count == 3 ? 30 : nil) }
            return UnlockStatus(channel: ChannelSummary(number: "5", name: "Film", id: "film"), until: Date(timeIntervalSince1970: 1_800_000_000))
        }
    }

    func post(_ client: some TestClientProtocol, _ body: String) async throws -> TestResponse {
        try await client.execute(uri: "/api/v1/unlock", method: .post, body: ByteBuffer(string: body))
    }

    @Test func theRightPINUnlocksAndTheWrongOnesWaitWithRetryAfter() async throws {
        let player = LockedPlayer()
        let app = try makeControlApplication(player: player, configuration: ControlServerConfiguration(), logger: quietLogger)
        try await app.test(.router) { client in
            let ok = try await post(client, #"{"pin": "2468"}"#)
            #expect(ok.status == .ok)
            let json = try jsonObject(ok)
            #expect((json["channel"] as? [String: Any])?["number"] as? String == "5")
            #expect(json["until"] as? String == "2027-01-15T08:00:00Z")
            #expect(!String(buffer: ok.body).contains("2468"), "the PIN is never echoed")

            #expect(try await post(client, #"{"pin": "1111"}"#).status == .forbidden)
            #expect(try await post(client, #"{"pin": "1111"}"#).status == .forbidden)
            let third = try await post(client, #"{"pin": "1111"}"#)
            #expect(third.status == .forbidden && third.headers[.retryAfter] == "30")
            let waiting = try await post(client, #"{"pin": "2468", "channel": "5"}"#)
            #expect(waiting.status == .tooManyRequests)
            #expect(waiting.headers[.retryAfter] == "30", "rounded up")
            #expect(try jsonObject(waiting)["error"] as? String == "too many wrong PINs. try again in 30 s")
        }
    }

    @Test func badRequestsSayWhy() async throws {
        let player = LockedPlayer()
        let app = try makeControlApplication(player: player, configuration: ControlServerConfiguration(), logger: quietLogger)
        try await app.test(.router) { client in
            #expect(try await post(client, "").status == .badRequest)
            #expect(try await post(client, #"{"code": "1234"}"#).status == .badRequest)
            #expect(try await post(client, #"{"pin": "12"}"#).status == .badRequest)
            #expect(try await post(client, #"{"pin": "1234", "channel": "x"}"#).status == .badRequest)
            #expect(try await post(client, #"{"pin": "1234", "channel": "99"}"#).status == .notFound)
            let notLocked = try await post(client, #"{"pin": "1234", "channel": "7"}"#)
            #expect(notLocked.status == .conflict)
            #expect(try jsonObject(notLocked)["error"] as? String == "channel 7 is not locked")
            let get = try await client.execute(uri: "/api/v1/unlock", method: .get)
            #expect(get.status == .methodNotAllowed)
        }
        #expect(player.channelsAsked == ["on screen", "99", "7"])
    }
}
