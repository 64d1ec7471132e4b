import Control
import Foundation
import Logging
import Testing
import TestSupport

/// lircd's socket protocol, pure: button lines, repeats, reply blocks skipped, garbage reported.
@Suite("LircProtocol")
struct LircProtocolTests {
    @Test func buttonLinesRepeatsAndSplitReads() {
        var parser = LircProtocol()
        #expect(parser.feed(Array("0000000000f40bf0 00 KEY_CHANNELUP samsung\n".utf8)) == [.button(name: "KEY_CHANNELUP", repeat: 0, remote: "samsung")])
        // A line split across reads comes out whole once its newline arrives; repeats count in hex.
        #expect(parser.feed(Array("0000000000f40bf0 0a KEY_VOL".utf8)) == [])
        #expect(parser.feed(Array("UMEUP my remote\r\n".utf8)) == [.button(name: "KEY_VOLUMEUP", repeat: 10, remote: "my remote")])
    }

    @Test func replyBlocksAreSkippedEvenWhenTheirLinesLookLikeButtons() {
        var parser = LircProtocol()
        let reply = "BEGIN\nSIGHUP\nEND\nBEGIN\nLIST samsung\nSUCCESS\nDATA\n2\n0000000000000001 00 KEY_1 samsung\n0000000000000002 KEY_2\nEND\n"
        #expect(parser.feed(Array((reply + "0000000000000003 01 KEY_3 samsung\n").utf8)) == [.button(name: "KEY_3", repeat: 1, remote: "samsung")])
    }

    @Test func otherLinesAreGarbageAndALongLineIsCut() {
        var parser = LircProtocol()
        #expect(parser.feed(Array("hello there\nzz 00 KEY_1 r\n00 xyz KEY_1 r\n\n".utf8))
            == [.garbage("hello there"), .garbage("zz 00 KEY_1 r"), .garbage("00 xyz KEY_1 r")])
        let long = String(repeating: "x", count: LircProtocol.longestLine + 10) + "\n0 0 KEY_OK r\n"
        let events = parser.feed(Array(long.utf8))
        #expect(events == [.garbage(String(repeating: "x", count: LircProtocol.longestLine)), .button(name: "KEY_OK", repeat: 0, remote: "r")])
    }

    @Test func lircButtonNamesUseTheKeyMap() throws {
        var map = EvdevKeyMap.standard
        #expect(map.key(button: "KEY_CHANNELUP") == .pageUp)
        #expect(map.key(button: "key_numeric_4") == .digit(4))
        #expect(map.key(button: "ch_up") == nil)
        #expect(map.apply(file: "lirc.ch_up: page-up\nlirc.KEY_INFO: guide\nKEY_OK: none\n", path: "keys.conf").isEmpty)
        #expect(map.key(button: "ch_up") == .pageUp)
        #expect(map.key(button: "KEY_INFO") == .guide, "a lirc. entry wins over the Linux code's")
        #expect(map.key(button: "KEY_OK") == nil)
        #expect(map.apply(file: "lirc.ch_up: banana\n", path: "keys.conf")
                == [KeyMapError(.unknownKey, "keys.conf:1: 'banana' is not a key; use one of \(Key.named.map(\.name).joined(separator: ", "))")])
        #expect(map.key(button: "ch_up") == .pageUp, "the skipped entry leaves the button as it was")
    }
}

/// ``LircKeys`` against a real Unix socket that speaks as lircd does (``LircdSocket``).
@Suite("LircKeys")
struct LircKeysTests {
    @Test func buttonsFromASocketThatAppearsGoesAwayAndComesBack() async throws {
        let dir = try EvdevKeysTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("lircd").path
        let recorder = LogRecorder(minimum: .info)
        var map = EvdevKeyMap.standard
        #expect(map.apply(file: "lirc.ch_down: page-down\n", path: "keys.conf").isEmpty)
        let lirc = LircKeys(socket: path, map: map, logger: Logger(label: "lirc") { _ in recorder })
        let collected = EvdevKeysTests.Collected()
        let reading = Task { for await key in lirc.keys { collected.append(key) } }

        // No lircd yet: said once, however many times it retries.
        #expect(try await EvdevKeysTests.waitUntil { recorder.messages.contains { $0.contains("cannot connect to lircd at \(path)") } })
        try await Task.sleep(for: .seconds(1))
        #expect(recorder.messages.filter { $0.contains("cannot connect to lircd") }.count == 1, "\(recorder.messages)")

        let lircd = try LircdSocket(path: path)
        #expect(try await EvdevKeysTests.waitUntil { lirc.isConnected && lircd.connections == 1 }, "picked up when it appears")
        lircd.send("0000000000f40bf0 00 KEY_CHANNELUP samsung\n0000000000f40bf0 01 KEY_CHANNELUP samsung\n")
        lircd.send("BEGIN\nSIGHUP\nEND\nnot lircd\n")
        lircd.send("0000000000000010 00 ch_down custom\n0000000000000011 00 KEY_5 samsung\n0000000000000012 00 KEY_F13 samsung\n")
        #expect(try await EvdevKeysTests.waitUntil { collected.all.count >= 4 })
        #expect(collected.all == [.pageUp, .pageUp, .pageDown, .digit(5)], "a press and a repeat give keys; a reply block gives none")
        #expect(recorder.messages.contains { $0.contains("ignored a line from \(path) that is not lircd's protocol: 'not lircd'") }, "\(recorder.messages)")
        #expect(recorder.messages.contains { $0.contains("button KEY_F13 of remote samsung has no key") })

        // lircd goes away (the socket with it) and comes back: read again, nothing else to do.
        lircd.stop()
        #expect(try await EvdevKeysTests.waitUntil { !lirc.isConnected })
        #expect(try await EvdevKeysTests.waitUntil { recorder.messages.contains { $0.contains("lircd at \(path) went away") } })
        try await Task.sleep(for: .seconds(1))
        let again = try LircdSocket(path: path)
        defer { again.stop() }
        #expect(try await EvdevKeysTests.waitUntil { lirc.isConnected && again.connections == 1 })
        #expect(lirc.connections == 2)
        again.send("0000000000000001 00 KEY_OK samsung\n")
        #expect(try await EvdevKeysTests.waitUntil { collected.all.count >= 5 })
        #expect(collected.all.last == .enter)
        #expect(recorder.messages.filter { $0.contains("cannot connect to lircd") }.count == 1, "a restart is said as 'went away', not again as missing")

        lirc.stop()
        await reading.value
        #expect(!lirc.isConnected)
    }

    @Test func theInputOptionTakesLirc() throws {
        #expect(try RemoteInputs(parsing: "evdev,lirc").lircSocket == LircKeys.defaultSocket)
        #expect(try RemoteInputs(parsing: "lirc:/run/lirc/lircd").lircSocket == "/run/lirc/lircd")
        #expect(try RemoteInputs(parsing: "lirc:/tmp/x").usesKeyMap)
        #expect(try RemoteInputs(parsing: "terminal").lircSocket == nil)
        let error = #expect(throws: RemoteInputsError.self) { try RemoteInputs(parsing: "lirc:") }
        #expect(error?.code == .unknownInput)
        #expect(error?.message.hasSuffix("or none; not 'lirc:'") == true, "\(String(describing: error))")
    }
}
