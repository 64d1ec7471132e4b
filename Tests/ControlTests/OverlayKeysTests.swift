import FlipboxCore
import Control
import Headend
import Foundation
import Lineup
import Switcher
import Testing

/// The overlay keys: decoding and the keypad's multiview mode.
@Suite struct OverlayKeysTests {
    static let esc = "\u{1B}"

    @Test func lettersAndSideArrowsDecode() {
        var decoder = KeyDecoder()
        let input = "pPsSmM" + Self.esc + "[C" + Self.esc + "[D" + Self.esc + "OC" + Self.esc + "OD"
        #expect(decoder.decode(Array(input.utf8)) == [.pip, .pip, .swap, .swap, .multiview, .multiview, .right, .left, .right, .left])
    }

    @Test func outsideTheMultiviewArrowsFlipAndLettersAskForOverlays() {
        var keypad = RemoteKeypad()
        let now = ContinuousClock.now
        #expect(keypad.press(.up, now: now) == [.flip(.next)])
        #expect(keypad.press(.left, now: now) == [.timeshift(.seekBy(.seconds(-10)))])
        #expect(keypad.press(.pip, now: now) == [.pip])
        #expect(keypad.press(.swap, now: now) == [.swap])
        #expect(keypad.press(.info, now: now) == [.info])
        #expect(keypad.press(.multiview, now: now) == [.multiview])
    }

    @Test func insideTheMultiviewArrowsMoveAndEnterSelects() {
        var keypad = RemoteKeypad()
        keypad.multiviewOpen = true
        let now = ContinuousClock.now
        #expect(keypad.press(.up, now: now) == [.multiviewMove(.up)])
        #expect(keypad.press(.down, now: now) == [.multiviewMove(.down)])
        #expect(keypad.press(.left, now: now) == [.multiviewMove(.left)])
        #expect(keypad.press(.right, now: now) == [.multiviewMove(.right)])
        #expect(keypad.press(.enter, now: now) == [.multiviewSelect])
        #expect(keypad.press(.pageUp, now: now) == [.flip(.next)], "page keys still flip underneath")
        // A number being typed: Enter commits it instead.
        #expect(keypad.press(.digit(4), now: now) == [.showEntry("4")])
        #expect(keypad.press(.enter, now: now) == [.hideEntry, .flip(.tune(ChannelNumber(4)))])
        keypad.multiviewOpen = false
        #expect(keypad.press(.down, now: now) == [.flip(.previous)])
    }

    /// A player with a multiview that records what the keys ask of it.
    final class MultiviewPlayer: PlayerControl, @unchecked Sendable {
        let base = FakePlayer()
        private let lock = NSLock()
        private var log: [String] = []
        var calls: [String] { lock.withLock { log } }
        private func record(_ s: String) { lock.withLock { log.append(s) } }
        func flip(_ request: FlipRequest) async -> FlipResult {
            record("flip \(request)")
            return await base.flip(request)
        }
        func status() async -> PlayerStatus { await base.status() }
        func channels() async -> [ChannelStatus] { await base.channels() }
        func snapshotPNG(width: Int?) async throws -> [UInt8] { try await base.snapshotPNG(width: width) }
        func events() -> AsyncStream<PlayerEvent> { base.events() }
        func toggleBanner() async -> BannerStatus {
            record("banner")
            return BannerStatus(shown: true, channel: nil)
        }
        func toggleMultiview(grid: Int) async throws -> MultiviewStatus {
            record("multiview \(grid)")
            return MultiviewStatus(open: true, grid: grid, channels: [], highlight: nil)
        }
        func moveMultiview(_ move: MultiviewMove) async throws -> MultiviewStatus {
            record("move \(move.rawValue)")
            return MultiviewStatus(open: true, grid: 3, channels: [], highlight: nil)
        }
        func selectMultiview() async throws -> FlipResult {
            record("select")
            return await base.flip(.tune(ChannelNumber(5)))
        }
    }

    func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<100 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    @Test func theRemoteLearnsTheMultiviewIsOpenFromThePlayer() async throws {
        let player = MultiviewPlayer()
        let (keys, typing) = AsyncStream.makeStream(of: Key.self)
        let remote = KeyboardRemote(player: player, keys: keys, display: RemoteDisplay(showLine: { _ in }, showEntry: { _ in }),
                                    logger: quietLogger)
        let running = Task { try await remote.run() }
        typing.yield(.info)
        typing.yield(.multiview)
        #expect(await eventually { player.calls.contains("multiview 3") })
        try await Task.sleep(for: .milliseconds(100))
        for key in [Key.right, .down, .enter] { typing.yield(key) }
        #expect(await eventually { player.calls.contains("select") })
        // Closed by the select: the arrows flip again.
        typing.yield(.up)
        #expect(await eventually { player.calls.contains("flip next") })
        typing.finish()
        try await running.value
        let calls = player.calls.filter { !$0.hasPrefix("flip") }
        #expect(Set(calls.prefix(2)) == ["banner", "multiview 3"], "i and m run side by side")
        #expect(Array(calls.dropFirst(2)) == ["move right", "move down", "select"])
    }
}
