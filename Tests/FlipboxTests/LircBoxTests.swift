import Foundation
import GStreamer
import Testing
import TestSupport

/// `flipbox play --input lirc:SOCKET`: the real binary driven by a real Unix socket that speaks as
/// lircd does, checked through the HTTP API's status and snapshots.
@Suite(.serialized) struct LircBoxTests {
    static let colours = ["ff0000", "00ff00", "0000ff", "ffffff"]

    func makeLineup() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-lirc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        var yaml = "channels:\n"
        for (index, colour) in Self.colours.enumerated() {
            yaml += "  - number: \(index + 1)\n    name: Colour \(index + 1)\n    source: test://color/\(colour)?size=320x180&fps=30&gop=30\n"
        }
        let file = dir.appendingPathComponent("lineup.yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    func channel(_ status: [String: Any]) -> String? { (status["channel"] as? [String: Any])?["number"] as? String }

    @Test func lircdButtonsFlipTuneAndSurviveLircdRestarting() async throws {
        try await offPool { try self.lircFlips() }
    }

    func lircFlips() throws {
        try GStreamer.initialize() // for decoding the snapshot
        let lineup = try makeLineup()
        let socket = lineup.deletingLastPathComponent().appendingPathComponent("lircd").path
        let port = freePort()
        // lircd is not running yet when the box starts.
        let box = try FlipboxProcess(arguments: [lineup.path, "--size", "320x180", "--input", "lirc:\(socket)", "--start", "1"], port: port)
        defer { box.stop() }
        #expect(box.waitForStatus(seconds: 30) { channel($0) == "1" }, "log:\n\(box.logText)")
        let missing = "lirc: cannot connect to lircd at \(socket)"
        #expect(box.logText.contains(missing), "the missing socket is said; log:\n\(box.logText)")

        let lircd = try LircdSocket(path: socket)
        #expect(lircd.waitForConnections(1), "the box connects once lircd is there; log:\n\(box.logText)")
        lircd.send("0000000000f40bf0 00 KEY_CHANNELUP samsung\n")
        #expect(box.waitForStatus(seconds: 15) { channel($0) == "2" }, "KEY_CHANNELUP flips; log:\n\(box.logText)")
        #expect(box.waitForSnapshot(seconds: 10) { $0.looks(0, 255, 0, atX: 160, y: 120) } != nil, "channel 2's green on screen; log:\n\(box.logText)")

        // Digits and OK tune.
        lircd.send("0000000000f40b04 00 KEY_4 samsung\n0000000000f40b10 00 KEY_OK samsung\n")
        #expect(box.waitForStatus(seconds: 15) { channel($0) == "4" }, "KEY_4 KEY_OK tunes 4; log:\n\(box.logText)")

        // A held button: the press and its repeats each step, retargeting the flip: 4 → 2.
        lircd.send("0000000000f40bf1 00 KEY_CHANNELDOWN samsung\n0000000000f40bf1 01 KEY_CHANNELDOWN samsung\n")
        #expect(box.waitForStatus(seconds: 15) { channel($0) == "2" }, "a press and a repeat step twice; log:\n\(box.logText)")

        // A garbage line is logged and skipped; a reply block (with a button-like line) is skipped.
        lircd.send("this is not lircd\nBEGIN\nLIST samsung\nSUCCESS\nDATA\n1\n0000000000f40bf0 00 KEY_CHANNELUP samsung\nEND\n")
        lircd.send("0000000000f40b03 00 KEY_3 samsung\n0000000000f40b10 00 KEY_OK samsung\n")
        #expect(box.waitForStatus(seconds: 15) { channel($0) == "3" }, "log:\n\(box.logText)")
        #expect(box.waitForSnapshot(seconds: 10) { $0.looks(0, 0, 255, atX: 160, y: 120) } != nil, "channel 3's blue on screen; log:\n\(box.logText)")
        #expect(box.logText.contains("lirc: ignored a line from \(socket) that is not lircd's protocol: 'this is not lircd'"), "log:\n\(box.logText)")

        // lircd restarts: its socket vanishes and comes back. The box keeps playing and reads again.
        lircd.stop()
        let deadline = Date().addingTimeInterval(15)
        while !box.logText.contains("lirc: lircd at \(socket) went away") && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(box.logText.contains("lirc: lircd at \(socket) went away"), "log:\n\(box.logText)")
        Thread.sleep(forTimeInterval: 1)
        #expect(box.process.isRunning)
        #expect(box.request("POST", "/api/v1/tune/1").status == 200, "the box plays on without lircd; log:\n\(box.logText)")
        let restarted = try LircdSocket(path: socket)
        defer { restarted.stop() }
        #expect(restarted.waitForConnections(1), "the box reconnects; log:\n\(box.logText)")
        restarted.send("0000000000f40bf0 00 KEY_CHANNELUP samsung\n")
        #expect(box.waitForStatus(seconds: 15) { channel($0) == "2" }, "keys work again after lircd restarted; log:\n\(box.logText)")
        #expect(box.logText.components(separatedBy: missing).count == 2, "the missing socket is said once; log:\n\(box.logText)")
    }

    @Test func doctorReportsTheSocket() throws {
        let lineup = try makeLineup()
        let dir = lineup.deletingLastPathComponent()
        let socket = dir.appendingPathComponent("lircd").path
        let none = dir.appendingPathComponent("dri")
        try FileManager.default.createDirectory(at: none, withIntermediateDirectories: true)
        let arguments = ["doctor", "--", lineup.path, "--output", "headless", "--state-dir", dir.path, "--input", "lirc:\(socket)"]
        let missing = try FlipboxProcess.runToEnd(arguments, environment: ["FLIPBOX_DRI_DIR": none.path])
        #expect(missing.status == 0, "no lircd is a note, the box plays: \(missing.output)")
        #expect(missing.output.contains("NOTE  lirc      no lircd socket at \(socket)"), "\(missing.output)")
        let lircd = try LircdSocket(path: socket)
        defer { lircd.stop() }
        let present = try FlipboxProcess.runToEnd(arguments, environment: ["FLIPBOX_DRI_DIR": none.path])
        #expect(present.output.contains("ok    lirc      lircd at \(socket): its remotes drive the box"), "\(present.output)")
    }
}
