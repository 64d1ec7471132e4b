import FlipboxCore
import Control
import Foundation
import Lineup
import Logging
import ServiceLifecycle
import Switcher
import Testing
import TestSupport

/// The notifier's rules against a real datagram socket, with a player whose answers can be held.
@Suite("SystemdNotifier")
struct SystemdNotifierTests {
    /// A player whose `status()` does not answer while held, as a hung player would not.
    final class HoldablePlayer: PlayerControl, @unchecked Sendable {
        private let lock = NSLock()
        private var held = false
        private var blocked = 0
        let fake = FakePlayer()
        let (eventStream, eventSink) = AsyncStream.makeStream(of: PlayerEvent.self)

        func hold(_ on: Bool) { lock.withLock { held = on } }
        var isHeld: Bool { lock.withLock { held } }
        /// How many status requests are waiting for an answer now.
        var waiting: Int { lock.withLock { blocked } }

        func flip(_ request: FlipRequest) async -> FlipResult { await fake.flip(request) }
        func status() async -> PlayerStatus {
            if isHeld {
                lock.withLock { blocked += 1 }
                while isHeld { try? await Task.sleep(for: .milliseconds(5)) }
                lock.withLock { blocked -= 1 }
            }
            return await fake.status()
        }
        func channels() async -> [ChannelStatus] { await fake.channels() }
        func snapshotPNG(width: Int?) async throws -> [UInt8] { try await fake.snapshotPNG(width: width) }
        func events() -> AsyncStream<PlayerEvent> { eventStream }
    }

    @Test func readyAfterTheFirstFlipPingsOnlyWhileThePlayerAnswersAndStoppingAtShutdown() async throws {
        let listener = try NotifyListener()
        defer { listener.stop() }
        let player = HoldablePlayer()
        let environment = ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "100000"] // pings every 50 ms
        let notifier = try #require(SystemdNotifier(environment: environment, player: player,
                                                    events: player.events(), logger: quietLogger))
        #expect(SystemdNotifier(environment: [:], player: player, events: player.events(), logger: quietLogger) == nil,
                "no NOTIFY_SOCKET: not a notify service")
        let group = ServiceGroup(services: [notifier], logger: quietLogger)
        let running = Task { try await group.run() }

        // Up to 90 s: this starts with the parallel phase, when every suite's first clips are
        // made and the 2-core machine's task threads can all be busy for tens of seconds.
        #expect(try await EvdevKeysTests.waitUntil(seconds: 90) { listener.lines("WATCHDOG=1").count >= 3 }, "watchdog pings")
        #expect(listener.lines("READY=1").isEmpty, "not ready before the first flip has its result")
        let red = ChannelSummary(number: "7", name: "Red Test", id: "red")
        player.eventSink.yield(.flipCompleted(FlipResult(requestID: 1, outcome: .completed, channel: red)))
        #expect(try await EvdevKeysTests.waitUntil { !listener.lines("READY=1").isEmpty })
        #expect(listener.lines("STATUS=playing 7 Red Test").count == 1)

        player.hold(true)
        // Once the watchdog's status request waits, its previous ping has been sent.
        #expect(try await EvdevKeysTests.waitUntil { player.waiting == 1 })
        try await Task.sleep(for: .milliseconds(100)) // for the listener's thread to take it
        let whileHeld = listener.lines("WATCHDOG=1").count
        try await Task.sleep(for: .milliseconds(300))
        #expect(listener.lines("WATCHDOG=1").count == whileHeld, "no pings while the player does not answer")
        player.hold(false)
        #expect(try await EvdevKeysTests.waitUntil { listener.lines("WATCHDOG=1").count > whileHeld }, "pings again once it answers")

        await group.triggerGracefulShutdown()
        try await running.value
        #expect(try await EvdevKeysTests.waitUntil { !listener.lines("STOPPING=1").isEmpty })
        #expect(listener.lines("READY=1").count == 1)
    }
}

@Suite("EvdevKeys errors")
struct EvdevErrorTests {
    @Test func aDeviceThatCannotBeOpenedIsSaidOnceWithItsPathAndReason() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-evdev-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let broken = dir.appendingPathComponent("event9").path
        try FileManager.default.createSymbolicLink(atPath: broken, withDestinationPath: "/nonexistent/event9")
        let recorder = LogRecorder(minimum: .warning)
        let evdev = EvdevKeys(directory: dir.path, logger: Logger(label: "test") { _ in recorder })
        #expect(try await EvdevKeysTests.waitUntil { !recorder.messages.isEmpty })
        // Its attributes change (as udev does to new nodes): tried again, not said again.
        for _ in 0..<3 { #expect(lchown(broken, getuid(), getgid()) == 0) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(recorder.messages == ["input: cannot open \(broken): No such file or directory"])
        #expect(evdev.openDevices.isEmpty)

        let missing = EvdevKeys(directory: dir.appendingPathComponent("absent").path, logger: Logger(label: "test") { _ in recorder })
        #expect(try await EvdevKeysTests.waitUntil { recorder.messages.count == 2 })
        #expect(recorder.messages.last?.hasPrefix("input: cannot watch \(dir.path)/absent for input devices: No such file or directory") == true)
        evdev.stop()
        missing.stop()
    }
}
