import FlipboxCore
import Control
import Foundation
import Headend
import Hummingbird
import HummingbirdTesting
import Lineup
import Switcher
import Testing

/// The audio endpoints: statuses, bodies and what reaches the player. Switching itself is tested
/// on real streams in HeadendTests (BroadcastStreams) and SwitcherTests (BroadcastPlayerTests).
@Suite struct AudioRouteTests {
    /// A player whose channel on screen has a German and an English AC-3 track.
    final class AudioPlayer: PlayerControl, @unchecked Sendable {
        let base = FakePlayer()
        private let lock = NSLock()
        private var playing = 0
        private var log: [String] = []
        var calls: [String] { lock.withLock { log } }
        static let tracks = [AudioTrack(index: 0, family: .ac3, language: "deu", channels: 2),
                             AudioTrack(index: 1, family: .ac3, language: "eng", channels: 6, passedThrough: true)]

        func flip(_ request: FlipRequest) async -> FlipResult { await base.flip(request) }
        func status() async -> PlayerStatus { await base.status() }
        func channels() async -> [ChannelStatus] { await base.channels() }
        func snapshotPNG(width: Int?) async throws -> [UInt8] { try await base.snapshotPNG(width: width) }
        func events() -> AsyncStream<PlayerEvent> { base.events() }

        func audioStatus() async -> AudioStatus {
            AudioStatus(channel: ChannelSummary(FakePlayer.red), audio: AudioState(tracks: Self.tracks, playing: lock.withLock { playing }))
        }
        func selectAudio(_ spec: String) async throws -> AudioStatus {
            lock.withLock { log.append(spec) }
            guard let request = AudioRequest(spec) else { throw AudioSelectionError(code: .badRequest, message: "'\(spec)' is not an audio track") }
            switch request {
            case .next: lock.withLock { playing = (playing + 1) % 2 }
            case .track(let i):
                guard i < 2 else { throw AudioSelectionError(code: .noSuchTrack, message: "there is no track \(i + 1)") }
                lock.withLock { playing = i }
            case .language(let code):
                guard let i = Self.tracks.firstIndex(where: { $0.language == code }) else {
                    throw AudioSelectionError(code: .noSuchTrack, message: "no sound in \(code)")
                }
                lock.withLock { playing = i }
            }
            return await audioStatus()
        }
    }

    func withAPI(_ player: some PlayerControl, _ test: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let app = try makeControlApplication(player: player, configuration: ControlServerConfiguration(), logger: quietLogger)
        try await app.test(.router, test)
    }

    @Test func listsTheTracksAndSwitchesByNumberLanguageOrNext() async throws {
        let player = AudioPlayer()
        try await withAPI(player) { client in
            let list = try await client.execute(uri: "/api/v1/audio", method: .get)
            #expect(list.status == .ok)
            let body = try jsonObject(list)
            let tracks = try #require(body["tracks"] as? [[String: Any]])
            #expect(tracks.map { $0["track"] as? Int } == [1, 2])
            #expect(tracks.map { $0["language"] as? String } == ["deu", "eng"])
            #expect(tracks.map { $0["languageName"] as? String } == ["German", "English"])
            #expect(tracks.map { $0["codec"] as? String } == ["AC-3", "AC-3"])
            #expect(tracks.map { $0["passthrough"] as? Bool } == [false, true])
            #expect(tracks.map { $0["playing"] as? Bool } == [true, false])
            #expect(body["playing"] as? Int == 1)
            #expect((body["channel"] as? [String: Any])?["number"] as? String == "7")

            for (path, playing) in [("eng", 2), ("1", 1), ("next", 2), ("German", 1), ("de", 1)] {
                let r = try await client.execute(uri: "/api/v1/audio/\(path)", method: .post)
                #expect(r.status == .ok, "\(path)")
                #expect(try jsonObject(r)["playing"] as? Int == playing, "\(path)")
            }
            #expect(player.calls == ["eng", "1", "next", "German", "de"])

            let missing = try await client.execute(uri: "/api/v1/audio/fra", method: .post)
            #expect(missing.status == .notFound)
            let noTrack = try await client.execute(uri: "/api/v1/audio/3", method: .post)
            #expect(noTrack.status == .notFound)
            let nonsense = try await client.execute(uri: "/api/v1/audio/xyz%20123", method: .post)
            #expect(nonsense.status == .badRequest)
            #expect((try jsonObject(nonsense)["error"] as? String)?.contains("not an audio track") == true)
            let get = try await client.execute(uri: "/api/v1/audio/eng", method: .get)
            #expect(get.status == .methodNotAllowed)
        }
    }

    @Test func aPlayerWithoutAudioTracksSaysSo() async throws {
        try await withAPI(FakePlayer()) { client in
            let r = try await client.execute(uri: "/api/v1/audio/next", method: .post)
            #expect(r.status == .notImplemented)
            let list = try await client.execute(uri: "/api/v1/audio", method: .get)
            #expect(list.status == .ok)
            #expect((try jsonObject(list)["tracks"] as? [Any])?.isEmpty == true)
        }
    }
}
