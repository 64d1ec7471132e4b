import FlipboxCore
import Control
import Foundation
import Hummingbird
import HummingbirdTesting
import Lineup
import Switcher
import Testing

/// The overlay endpoints: statuses, bodies and what reaches the player. The overlays themselves
/// are tested on real pipelines in SwitcherTests (BannerTests, PiPTests, MultiviewTests).
@Suite struct OverlayRouteTests {
    /// A player that records overlay requests; everything else comes from `FakePlayer`.
    final class OverlayPlayer: PlayerControl, @unchecked Sendable {
        let base = FakePlayer()
        private let lock = NSLock()
        private var log: [String] = []
        var calls: [String] { lock.withLock { log } }
        private func record(_ s: String) { lock.withLock { log.append(s) } }
        static let one = ChannelSummary(number: "1", name: "One", id: "c1")
        static let two = ChannelSummary(number: "2", name: "Two", id: "c2")

        func flip(_ request: FlipRequest) async -> FlipResult { await base.flip(request) }
        func status() async -> PlayerStatus { await base.status() }
        func channels() async -> [ChannelStatus] { await base.channels() }
        func snapshotPNG(width: Int?) async throws -> [UInt8] { try await base.snapshotPNG(width: width) }
        func events() -> AsyncStream<PlayerEvent> { base.events() }

        func showBanner(seconds: Double?, long: Bool) async -> BannerStatus {
            record("banner \(seconds.map { "\($0)" } ?? "default")\(long ? " long" : "")")
            return BannerStatus(shown: true, channel: Self.one, form: long ? .long : .short)
        }
        func hideBanner() async -> BannerStatus {
            record("hide banner")
            return BannerStatus(shown: false, channel: Self.one)
        }
        func openPiP(number: ChannelNumber?, corner: LogoStyle.Corner?, size: Double?) async throws -> PiPStatus {
            record("pip \(number?.description ?? "last") \(corner?.rawValue ?? "-") \(size.map { "\($0)" } ?? "-")")
            if number == ChannelNumber(99) { throw OverlayError(.unknownChannel, "there is no channel 99") }
            if let size, size > 0.6 { throw OverlayError(.badValue, "size must be from 0.1 to 0.6 of the output width") }
            return PiPStatus(open: true, channel: Self.two, corner: corner?.rawValue ?? "bottom-right", size: size ?? 0.3)
        }
        func tunePiP(number: ChannelNumber) async throws -> PiPStatus {
            record("pip tune \(number)")
            return PiPStatus(open: true, channel: Self.two, corner: "bottom-right", size: 0.3)
        }
        func swapPiP() async throws -> FlipResult {
            record("swap")
            throw OverlayError(.notOpen, "there is no picture-in-picture window to swap with; open one with p")
        }
        func closePiP() async -> PiPStatus {
            record("close pip")
            return PiPStatus(open: false, channel: nil, corner: "bottom-right", size: 0.3)
        }
        func openMultiview(grid: Int) async throws -> MultiviewStatus {
            record("multiview \(grid)")
            guard (2...4).contains(grid) else { throw OverlayError(.badValue, "grid must be 2, 3 or 4 (a 2x2, 3x3 or 4x4 mosaic)") }
            return MultiviewStatus(open: true, grid: grid, channels: [Self.one, Self.two], highlight: Self.one)
        }
        func closeMultiview() async -> MultiviewStatus {
            record("close multiview")
            return MultiviewStatus(open: false, grid: 0, channels: [], highlight: nil)
        }
        func moveMultiview(_ move: MultiviewMove) async throws -> MultiviewStatus {
            record("move \(move.rawValue)")
            return MultiviewStatus(open: true, grid: 2, channels: [Self.one, Self.two], highlight: Self.two)
        }
    }

    func withAPI(_ player: OverlayPlayer, _ test: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let app = try makeControlApplication(player: player, configuration: ControlServerConfiguration(), logger: quietLogger)
        try await app.test(.router, test)
    }

    @Test func bannerShowAndHide() async throws {
        let player = OverlayPlayer()
        try await withAPI(player) { client in
            let shown = try await client.execute(uri: "/api/v1/overlay/banner?seconds=2.5", method: .post)
            #expect(shown.status == .ok)
            let body = try jsonObject(shown)
            #expect(body["shown"] as? Bool == true && (body["channel"] as? [String: Any])?["name"] as? String == "One")
            #expect(body["form"] as? String == "short")
            #expect(try await client.execute(uri: "/api/v1/overlay/banner", method: .post).status == .ok)
            let long = try await client.execute(uri: "/api/v1/overlay/banner?form=long", method: .post)
            #expect(try jsonObject(long)["form"] as? String == "long")
            let hidden = try await client.execute(uri: "/api/v1/overlay/banner", method: .delete)
            let hiddenBody = try jsonObject(hidden)
            #expect(hidden.status == .ok && hiddenBody["shown"] as? Bool == false && hiddenBody["form"] == nil)
            #expect(try await client.execute(uri: "/api/v1/overlay/banner?seconds=soon", method: .post).status == .badRequest)
            let tall = try await client.execute(uri: "/api/v1/overlay/banner?form=tall", method: .post)
            #expect(tall.status == .badRequest && String(buffer: tall.body).contains("form must be short or long, not 'tall'"))
            let get = try await client.execute(uri: "/api/v1/overlay/banner", method: .get)
            #expect(get.status == .methodNotAllowed && get.headers[.allow] == "DELETE, POST")
        }
        #expect(player.calls == ["banner 2.5", "banner default", "banner default long", "hide banner"])
    }

    @Test func pipFromQueryOrBodyAndItsErrors() async throws {
        let player = OverlayPlayer()
        try await withAPI(player) { client in
            let query = try await client.execute(uri: "/api/v1/pip?channel=2&corner=top-left&size=0.25", method: .post)
            #expect(query.status == .ok)
            let body = try jsonObject(query)
            #expect(body["open"] as? Bool == true && body["corner"] as? String == "top-left" && body["size"] as? Double == 0.25)
            let json = try await client.execute(uri: "/api/v1/pip", method: .post,
                                                body: ByteBuffer(string: #"{"channel": 9.1, "corner": "bottom-left"}"#))
            #expect(json.status == .badRequest, "9.1 as a JSON number is ambiguous: \(String(buffer: json.body))")
            let text = try await client.execute(uri: "/api/v1/pip", method: .post, body: ByteBuffer(string: #"{"channel": "9.1", "corner": "bottom-left"}"#))
            #expect(text.status == .ok)
            #expect(try await client.execute(uri: "/api/v1/pip", method: .post).status == .ok)
            #expect(try await client.execute(uri: "/api/v1/pip?channel=99", method: .post).status == .notFound)
            #expect(try await client.execute(uri: "/api/v1/pip?size=0.9", method: .post).status == .badRequest)
            #expect(try await client.execute(uri: "/api/v1/pip?corner=middle", method: .post).status == .badRequest)
            #expect(try await client.execute(uri: "/api/v1/pip/tune/2", method: .post).status == .ok)
            let swap = try await client.execute(uri: "/api/v1/pip/swap", method: .post)
            #expect(swap.status == .conflict)
            let swapBody = try jsonObject(swap)
            #expect(swapBody["error"] as? String == "there is no picture-in-picture window to swap with; open one with p")
            #expect(try await client.execute(uri: "/api/v1/pip", method: .delete).status == .ok)
        }
        #expect(player.calls == ["pip 2 top-left 0.25", "pip 9.1 bottom-left -", "pip last - -", "pip 99 - -", "pip last - 0.9",
                                 "pip tune 2", "swap", "close pip"])
    }

    @Test func multiviewOpenMoveClose() async throws {
        let player = OverlayPlayer()
        try await withAPI(player) { client in
            let opened = try await client.execute(uri: "/api/v1/multiview?grid=2", method: .post)
            let openedBody = try jsonObject(opened)
            #expect(opened.status == .ok && openedBody["grid"] as? Int == 2)
            #expect(try await client.execute(uri: "/api/v1/multiview", method: .post).status == .ok)
            #expect(try await client.execute(uri: "/api/v1/multiview?grid=5", method: .post).status == .badRequest)
            #expect(try await client.execute(uri: "/api/v1/multiview/move/right", method: .post).status == .ok)
            #expect(try await client.execute(uri: "/api/v1/multiview/move/sideways", method: .post).status == .badRequest)
            #expect(try await client.execute(uri: "/api/v1/multiview/select", method: .post).status == .notImplemented,
                    "a player without a multiview says so")
            #expect(try await client.execute(uri: "/api/v1/multiview", method: .delete).status == .ok)
        }
        #expect(player.calls == ["multiview 2", "multiview 3", "multiview 5", "move right", "close multiview"])
    }
}
