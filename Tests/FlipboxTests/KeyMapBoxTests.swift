import Foundation
import GStreamer
import TestSupport
import Testing

/// A bad key map does not stop the box: `flipbox play` with an unknown key name in its key-map
/// file, a bad `keymap.` setting in the lineup, or no key-map file at all logs each with its place
/// and plays on, with the default key map and the entries that read; a remote's keys (an evdev
/// device) still flip.
@Suite(.serialized) struct KeyMapBoxTests {
    static let channelUp: UInt16 = 0x192, f2: UInt16 = 60

    /// A lineup of three colours with `settings` added to its settings, in a directory of its own
    /// with an empty `input` directory for ``EvdevFIFORemote``.
    func makeLineup(settings: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-keymap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("input"), withIntermediateDirectories: true)
        var yaml = "settings: {banner-seconds: 0\(settings)}\nchannels:\n"
        for (number, colour) in ["ff0000", "00ff00", "0000ff"].enumerated() {
            yaml += "  - {number: \(number + 1), name: Colour \(number + 1), source: \"test://color/\(colour)?size=160x90&fps=15&gop=15\"}\n"
        }
        let file = dir.appendingPathComponent("lineup.yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// Starts the box on channel 1 with keys from the lineup's `input` directory and `keymap`,
    /// waits until it plays, and plugs a remote in.
    func playing(_ lineup: URL, keymap: URL) throws -> (box: FlipboxProcess, remote: EvdevFIFORemote) {
        let devices = lineup.deletingLastPathComponent().appendingPathComponent("input")
        let box = try FlipboxProcess(arguments: [lineup.path, "--size", "320x180", "--start", "1",
                                                 "--input", "evdev:\(devices.path)", "--keymap", keymap.path], port: freePort())
        guard box.waitForStatus(seconds: 40, { channel($0) == "1" }) else {
            box.stop()
            throw TestFailure("the box did not start playing; log:\n\(box.logText)")
        }
        do { return (box, try EvdevFIFORemote(directory: devices)) } catch {
            box.stop()
            throw error
        }
    }

    func channel(_ status: [String: Any]) -> String? { (status["channel"] as? [String: Any])?["number"] as? String }

    @Test func anUnknownKeyNameIsLoggedWithFileAndLineAndTheRemoteStillFlips() async throws {
        try await offPool { try self.badEntries() }
    }

    func badEntries() throws {
        let lineup = try makeLineup(settings: ", keymap.KEY_F3: banana")
        let keymap = lineup.deletingLastPathComponent().appendingPathComponent("keys.conf")
        try "# the remote\nKEY_F2: page-up\nKEY_NOPE: info\n".write(to: keymap, atomically: true, encoding: .utf8)
        let (box, remote) = try playing(lineup, keymap: keymap)
        defer { remote.close(); box.stop() }
        #expect(box.logText.contains("keymap: \(keymap.path):3: 'KEY_NOPE' is not a Linux key code name"), "FILE:LINE in the log:\n\(box.logText)")
        #expect(box.logText.contains("keymap: \(lineup.path): settings.keymap.KEY_F3: 'banana' is not a key"), "the setting in the log:\n\(box.logText)")
        #expect(box.logText.contains("this entry is skipped, the others apply"), "\(box.logText)")

        // KEY_CHANNELUP from the default map flips.
        remote.press(Self.channelUp)
        #expect(box.waitForStatus(seconds: 15) { channel($0) == "2" }, "KEY_CHANNELUP flips to 2; log:\n\(box.logText)")
        // KEY_F2, line 2 of the file (before the bad line), applies too.
        remote.press(Self.f2)
        #expect(box.waitForStatus(seconds: 15) { channel($0) == "3" }, "KEY_F2 (page-up in the file) flips to 3; log:\n\(box.logText)")
        #expect(box.process.isRunning)
    }

    @Test func aMissingKeyMapFileIsLoggedAndTheDefaultMapApplies() async throws {
        try await offPool { try self.missingFile() }
    }

    func missingFile() throws {
        let lineup = try makeLineup(settings: "")
        let keymap = lineup.deletingLastPathComponent().appendingPathComponent("no-such-keys.conf")
        let (box, remote) = try playing(lineup, keymap: keymap)
        defer { remote.close(); box.stop() }
        #expect(box.logText.contains("keymap: --keymap \(keymap.path): there is no such file; the default key map applies"), "\(box.logText)")
        remote.press(Self.channelUp)
        #expect(box.waitForStatus(seconds: 15) { channel($0) == "2" }, "KEY_CHANNELUP flips to 2; log:\n\(box.logText)")
    }
}
