import Control
import Foundation
import Lineup
import Logging
import Switcher
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The evdev reader on the kernel's own record format: `struct input_event` records written into
/// FIFOs named `event*` in a directory the reader watches, as devices in /dev/input would deliver
/// them (there is no /dev/uinput here to make a real device).
@Suite("EvdevKeys")
struct EvdevKeysTests {
    /// A FIFO that plays an input device: written as the kernel lays out `struct input_event` on
    /// 64-bit Linux (a 16-byte timeval, then type, code and value), one record per write.
    final class FakeDevice: @unchecked Sendable {
        let path: String
        private var fd: Int32 = -1

        init(directory: URL, name: String) throws {
            path = directory.appendingPathComponent(name).path
            guard mkfifo(path, 0o600) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        }

        /// Opens the writing end once the reader has opened the FIFO (until then the open fails with ENXIO).
        func connect(seconds: Double = 5) throws {
            let deadline = Date().addingTimeInterval(seconds)
            while fd < 0 {
                fd = open(path, O_WRONLY | O_NONBLOCK)
                if fd < 0 {
                    guard Date() < deadline else { throw POSIXError(.ENXIO) }
                    Thread.sleep(forTimeInterval: 0.02)
                }
            }
        }

        func record(type: UInt16, code: UInt16, value: Int32) {
            var bytes = [UInt8](repeating: 0, count: 16) // struct timeval: seconds, microseconds
            bytes += withUnsafeBytes(of: type.littleEndian, Array.init)
            bytes += withUnsafeBytes(of: code.littleEndian, Array.init)
            bytes += withUnsafeBytes(of: value.littleEndian, Array.init)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        }

        /// A press (1), optional auto-repeats (2), a release (0), each followed by a SYN_REPORT as the kernel sends.
        func tap(_ code: UInt16, repeats: Int = 0) {
            record(type: 4, code: 4, value: Int32(code)) // EV_MSC/MSC_SCAN, as keyboards send first
            for value in [1] + Array(repeating: 2, count: repeats) + [0] {
                record(type: 1, code: code, value: Int32(value))
                record(type: 0, code: 0, value: 0)
            }
        }

        /// Unplugs: the node goes away and the writer closes.
        func unplug() {
            unlink(path)
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }

    final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var storage: [Key] = []
        func append(_ key: Key) { lock.withLock { storage.append(key) } }
        var all: [Key] { lock.withLock { storage } }
    }

    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-evdev-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Generous: the whole suite runs in parallel on two cores; a condition that holds returns at once.
    static func waitUntil(seconds: Double = 30, _ condition: () -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    // KEY_* codes from linux/input-event-codes.h
    static let channelUp: UInt16 = 0x192, channelDown: UInt16 = 0x193, key5: UInt16 = 6, numeric7: UInt16 = 0x207
    static let ok: UInt16 = 0x160, red: UInt16 = 0x18e, f1: UInt16 = 59, last: UInt16 = 0x195, key1: UInt16 = 2, key2: UInt16 = 3

    @Test func pressesAndRepeatsBecomeKeysFromDevicesThatComeAndGo() async throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = try FakeDevice(directory: dir, name: "event0")
        let ignored = dir.appendingPathComponent("mouse0").path
        _ = mkfifo(ignored, 0o600)
        let evdev = EvdevKeys(directory: dir.path, logger: quietLogger)
        let collected = Collected()
        let reading = Task { for await key in evdev.keys { collected.append(key) } }

        #expect(try await Self.waitUntil { evdev.openDevices == [first.path] }, "a device present at start is opened; other names are not")
        try first.connect()
        first.tap(Self.channelUp)
        first.tap(Self.channelDown, repeats: 2)
        first.tap(Self.key5)
        first.tap(Self.f1) // not in the default map
        #expect(try await Self.waitUntil { collected.all.count >= 5 })
        #expect(collected.all == [.pageUp, .pageDown, .pageDown, .pageDown, .digit(5)], "press and auto-repeat give keys, release does not")

        // Hotplug: a device that appears after start.
        let second = try FakeDevice(directory: dir, name: "event7")
        #expect(try await Self.waitUntil { evdev.openDevices == [first.path, second.path] })
        try second.connect()
        second.tap(Self.numeric7)
        second.tap(Self.ok)
        second.tap(Self.red)
        #expect(try await Self.waitUntil { collected.all.count >= 8 })
        #expect(collected.all.suffix(3) == [.digit(7), .enter, .red])

        // The first goes away, mid-press; the second keeps working.
        first.record(type: 1, code: Self.channelUp, value: 1)
        first.unplug()
        #expect(try await Self.waitUntil { evdev.openDevices == [second.path] }, "a device that disappears is closed")
        second.tap(Self.last)
        #expect(try await Self.waitUntil { collected.all.count >= 10 })
        #expect(collected.all.suffix(2) == [.pageUp, .back])

        evdev.stop()
        await reading.value // the keys end after stop
        #expect(evdev.openDevices.isEmpty)
        second.unplug()
    }

    @Test func theKeyMapFromAFileReplacesAndAddsKeys() async throws {
        var map = EvdevKeyMap.standard
        #expect(map.apply(file: "# remote\nKEY_F1: info\nkeymap.KEY_RED = multiview\nKEY_CHANNELUP: none\n", path: "keys.conf").isEmpty)
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let device = try FakeDevice(directory: dir, name: "event3")
        let evdev = EvdevKeys(directory: dir.path, map: map, logger: quietLogger)
        let collected = Collected()
        let reading = Task { for await key in evdev.keys { collected.append(key) } }
        #expect(try await Self.waitUntil { !evdev.openDevices.isEmpty })
        try device.connect()
        for code in [Self.f1, Self.red, Self.channelUp, Self.channelDown] { device.tap(code) }
        #expect(try await Self.waitUntil { collected.all.count >= 3 })
        try await Task.sleep(for: .milliseconds(100))
        #expect(collected.all == [.info, .multiview, .pageDown])
        evdev.stop()
        await reading.value
        device.unplug()
    }

    @Test func evdevKeysFlipAPlayerThroughTheSameRemoteAsTheTerminal() async throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let player = FakePlayer()
        let evdev = EvdevKeys(directory: dir.path, logger: quietLogger)
        let (terminal, typing) = AsyncStream.makeStream(of: Key.self)
        let remote = KeyboardRemote(player: player, keys: mergeKeys([terminal, evdev.keys]),
                                    display: RemoteDisplay(showLine: { _ in }, showEntry: { _ in }), logger: quietLogger)
        let run = Task { try await remote.run() }
        let device = try FakeDevice(directory: dir, name: "event1") // plugged in after start
        #expect(try await Self.waitUntil { !evdev.openDevices.isEmpty })
        try device.connect()
        device.tap(Self.channelUp)
        #expect(try await Self.waitUntil { player.flipRequests.count == 1 })
        device.tap(Self.key1)
        device.tap(Self.key2)
        device.tap(Self.ok)
        #expect(try await Self.waitUntil { player.flipRequests.count == 2 })
        typing.yield(.down) // the terminal still works alongside
        #expect(try await Self.waitUntil { player.flipRequests.count == 3 })
        #expect(Set(player.flipRequests) == [.next, .tune(ChannelNumber(12)), .previous])
        device.tap(Self.last)
        #expect(try await Self.waitUntil { player.flipRequests.count == 4 })
        #expect(player.flipRequests.last == .recall)
        typing.finish()
        evdev.stop()
        try await run.value // the remote ends when every input has ended
        device.unplug()
    }
}

@Suite("EvdevKeyMap")
struct EvdevKeyMapTests {
    @Test func theDefaultMapCoversTheRemoteKeys() {
        let map = EvdevKeyMap.standard
        let expected: [String: Key] = [
            "KEY_CHANNELUP": .pageUp, "KEY_CHANNELDOWN": .pageDown, "KEY_PAGEUP": .pageUp, "KEY_PAGEDOWN": .pageDown,
            "KEY_UP": .up, "KEY_DOWN": .down, "KEY_LEFT": .left, "KEY_RIGHT": .right,
            "KEY_0": .digit(0), "KEY_9": .digit(9), "KEY_NUMERIC_0": .digit(0), "KEY_NUMERIC_9": .digit(9),
            "KEY_ENTER": .enter, "KEY_OK": .enter, "KEY_BACK": .back, "KEY_BACKSPACE": .backspace, "KEY_LAST": .back,
            "KEY_INFO": .info, "KEY_EPG": .guide, "KEY_RED": .red, "KEY_GREEN": .green, "KEY_YELLOW": .yellow,
            "KEY_BLUE": .blue, "KEY_PLAYPAUSE": .playPause, "KEY_REWIND": .rewind, "KEY_FASTFORWARD": .fastForward,
            "KEY_STOP": .stop, "KEY_AUDIO": .audio, "KEY_SUBTITLE": .subtitle, "KEY_FAVORITES": .favourites,
        ]
        for (name, key) in expected {
            #expect(EvdevKeyMap.code(named: name).flatMap(map.key(for:)) == key, "\(name)")
        }
        #expect(EvdevKeyMap.code(named: "KEY_CHANNELUP") == 0x192)
        #expect(EvdevKeyMap.code(named: "KEY_NUMERIC_0") == 0x200)
        #expect(map.key(for: 59) == nil, "KEY_F1 does nothing by default")
    }

    @Test func badEntriesAreSkippedAndSayWhereAndWhat() {
        var map = EvdevKeyMap.standard
        let fromFile = map.apply(file: "KEY_F1: info\nKEY_NOPE: info\njust words\nKEY_F2: page-up\n", path: "keys.conf")
        #expect(fromFile == [
            KeyMapError(.unknownCode, "keys.conf:2: 'KEY_NOPE' is not a Linux key code name (KEY_F1, KEY_RED, ... as in linux/input-event-codes.h, or a number; lirc.NAME for a LIRC button of another name)"),
            KeyMapError(.unreadable, "keys.conf:3: expected 'KEY_NAME: key', e.g. 'KEY_F1: info'"),
        ])
        #expect(map.key(for: 59) == .info, "line 1 applies")
        #expect(map.key(for: 60) == .pageUp, "line 4, after the bad ones, applies")

        let fromSettings = map.apply(settings: ["keymap.KEY_F2": "banana", "keymap.KEY_F3": "guide", "warm": "all"], lineupPath: "lineup.yaml")
        #expect(fromSettings.map(\.code) == [.unknownKey])
        #expect(fromSettings.first?.message.hasPrefix("lineup.yaml: settings.keymap.KEY_F2: 'banana' is not a key; use one of up, down, page-up") == true)
        #expect(map.key(for: 60) == .pageUp, "a skipped entry leaves the key as it was")
        #expect(map.key(for: 61) == .guide, "the good setting applies")
        var untouched = EvdevKeyMap.standard
        #expect(untouched.apply(file: "KEY_NOPE: info\n", path: "k").count == 1)
        #expect(untouched == EvdevKeyMap.standard, "nothing but bad entries: the default map")
    }

    @Test func everyNamedKeyRoundTrips() {
        for key in Key.named { #expect(Key(name: key.name) == key) }
        #expect(Key(name: "EPG") == .guide)
        #expect(Key(name: "favorites") == .favourites)
    }
}
