import FlipboxCore
import Control
import Foundation
import Headend
import Hummingbird
import HummingbirdTesting
import Lineup
import Switcher
import Testing

/// The subtitle endpoints: statuses, bodies, error shapes and what reaches the player. Showing
/// them is tested on real streams in SwitcherTests (SubtitlePlayerTests).
@Suite struct SubtitleRouteTests {
    /// A player whose channel on screen has German DVB subtitles, an English teletext page and
    /// closed captions; it picks with the real selection rules.
    final class SubtitlePlayer: PlayerControl, @unchecked Sendable {
        let base = FakePlayer()
        let onScreen: Bool
        private let lock = NSLock()
        private var showing: Int?
        private var log: [String] = []
        var calls: [String] { lock.withLock { log } }
        static let tracks = [SubtitleTrack(index: 0, kind: .dvb, language: "deu"),
                             SubtitleTrack(index: SubtitleTrack.teletextIndex(stream: 1, page: 888), kind: .teletext(page: 888, stream: 1), language: "eng"),
                             SubtitleTrack.closedCaptions]

        init(onScreen: Bool = true) { self.onScreen = onScreen }

        func flip(_ request: FlipRequest) async -> FlipResult { await base.flip(request) }
        func status() async -> PlayerStatus { await base.status() }
        func channels() async -> [ChannelStatus] { await base.channels() }
        func snapshotPNG(width: Int?) async throws -> [UInt8] { try await base.snapshotPNG(width: width) }
        func events() -> AsyncStream<PlayerEvent> { base.events() }

        func subtitleStatus() async -> SubtitleStatus {
            SubtitleStatus(channel: ChannelSummary(FakePlayer.red), subtitles: SubtitleState(tracks: Self.tracks, showing: lock.withLock { showing }))
        }
        func selectSubtitles(_ spec: String) async throws -> SubtitleStatus {
            lock.withLock { log.append(spec) }
            guard let request = SubtitleRequest(spec) else { throw TrackSelectionError(code: .badRequest, message: "'\(spec)' is no subtitle track") }
            guard onScreen else { throw TrackSelectionError(code: .notPlaying, message: "no channel is playing") }
            let current = lock.withLock { showing }
            let target: Int? = switch request {
            case .off: nil
            case .captions: SubtitleTrack.captionsIndex
            case .pick(.next): SubtitleSelection.next(Self.tracks, after: current)
            case .pick(let pick): try TrackSelection.target(pick, among: Self.tracks, current: current, channel: "7",
                                                            kind: "subtitle track", speech: "subtitles")?.index
            }
            lock.withLock { showing = target }
            return await subtitleStatus()
        }
    }

    func withAPI(_ player: some PlayerControl, _ test: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let app = try makeControlApplication(player: player, configuration: ControlServerConfiguration(), logger: quietLogger)
        try await app.test(.router, test)
    }

    @Test func listsTheTracksAndShowsByNumberLanguageCaptionsNextOrOff() async throws {
        let player = SubtitlePlayer()
        try await withAPI(player) { client in
            let list = try await client.execute(uri: "/api/v1/subtitles", method: .get)
            #expect(list.status == .ok)
            let body = try jsonObject(list)
            let tracks = try #require(body["tracks"] as? [[String: Any]])
            #expect(tracks.map { $0["track"] as? Int } == [1, 2, 3])
            #expect(tracks.map { $0["language"] as? String } == ["deu", "eng", nil])
            #expect(tracks.map { $0["languageName"] as? String } == ["German", "English", nil])
            #expect(tracks.map { $0["format"] as? String } == ["DVB", "Teletext", "CC1"])
            #expect(tracks.map { $0["page"] as? Int } == [nil, 888, nil])
            #expect(tracks.allSatisfy { $0.keys.contains("page") }, "page is null for the others, not left out")
            #expect(tracks.map { $0["showing"] as? Bool } == [false, false, false])
            #expect(body["showing"] is NSNull, "off at first")
            #expect((body["channel"] as? [String: Any])?["number"] as? String == "7")

            for (path, showing) in [("eng", 2), ("1", 1), ("next", 2), ("next", 3), ("cc", 3), ("German", 1), ("off", nil), ("next", 1)] {
                let r = try await client.execute(uri: "/api/v1/subtitles/\(path)", method: .post)
                #expect(r.status == .ok, "\(path)")
                #expect(try jsonObject(r)["showing"] as? Int == showing, "\(path)")
            }
            #expect(try jsonObject(try await client.execute(uri: "/api/v1/subtitles/3", method: .post))["showing"] as? Int == 3)
            #expect(try jsonObject(try await client.execute(uri: "/api/v1/subtitles/next", method: .post))["showing"] is NSNull,
                    "next after the last track is off")

            let missing = try await client.execute(uri: "/api/v1/subtitles/fra", method: .post)
            #expect(missing.status == .notFound)
            #expect((try jsonObject(missing)["error"] as? String)?.contains("it has deu, eng") == true, "the 404 lists the languages")
            let noTrack = try await client.execute(uri: "/api/v1/subtitles/4", method: .post)
            #expect(noTrack.status == .notFound)
            let nonsense = try await client.execute(uri: "/api/v1/subtitles/xyz%20123", method: .post)
            #expect(nonsense.status == .badRequest)
            #expect((try jsonObject(nonsense)["error"] as? String)?.contains("no subtitle track") == true)
            let get = try await client.execute(uri: "/api/v1/subtitles/eng", method: .get)
            #expect(get.status == .methodNotAllowed)
        }
    }

    @Test func withoutAChannelOnScreenItIsAConflict() async throws {
        try await withAPI(SubtitlePlayer(onScreen: false)) { client in
            let r = try await client.execute(uri: "/api/v1/subtitles/next", method: .post)
            #expect(r.status == .conflict)
            #expect((try jsonObject(r)["error"] as? String)?.contains("no channel is playing") == true)
        }
    }
}
