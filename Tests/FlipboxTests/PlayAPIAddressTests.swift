import Foundation
import GStreamer
import Testing
import TestSupport

/// `flipbox play` whose API port is taken by another program: the picture, the remote's keys and
/// systemd's READY do not wait for the API; the log says once why it cannot listen and what to do;
/// the API answers once the port is free.
@Suite(.serialized) struct PlayAPIAddressTests {
    @Test func aTakenPortIsSaidTheBoxPlaysAndFlipsAndTheAPIComesUpOnceItIsFree() async throws {
        try await offPool { try self.takenPort() }
    }

    func takenPort() throws {
        try GStreamer.initialize() // for decoding the snapshot
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-api-taken-\(UUID().uuidString)")
        let devices = dir.appendingPathComponent("input"), state = dir.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: devices, withIntermediateDirectories: true)
        let lineup = dir.appendingPathComponent("lineup.yaml")
        try """
            channels:
              - {number: 1, name: Red One, source: "test://color/ff0000?size=160x90&fps=15&gop=15"}
              - {number: 2, name: Green Two, source: "test://color/00ff00?size=160x90&fps=15&gop=15"}
            """.write(to: lineup, atomically: true, encoding: .utf8)
        let holder = try ListeningSocket()
        defer { holder.close() }
        let notify = try NotifyListener()
        defer { notify.stop() }
        let port = holder.port
        let box = try FlipboxProcess(arguments: [lineup.path, "--size", "320x180", "--input", "evdev:\(devices.path)"], port: port,
                                     environment: ["NOTIFY_SOCKET": notify.path], stateDirectory: state)
        defer { box.stop() }

        // The picture plays and systemd hears so, with the API down.
        #expect(notify.wait(for: "READY=1", seconds: 40), "READY=1 with the port taken; log:\n\(box.logText)")
        let said = "control API: 127.0.0.1:\(port) is in use by another program: flipbox could not listen there "
            + "(fix: `ss -ltnp 'sport = :\(port)'` shows which; stop it, or choose another port with --http HOST:PORT); "
            + "the box plays on without it and tries again every 2 s, then less often (every 30 s at most)"
        #expect(Self.waitUntil(seconds: 10) { box.logText.contains(said) }, "the log says why and the fix; log:\n\(box.logText)")
        #expect(box.process.isRunning, "the box runs on; log:\n\(box.logText)")

        // A key from a remote flips the channel: the flip is in the log and the state file.
        let remote = try EvdevFIFORemote(directory: devices)
        defer { remote.close() }
        remote.press(0x192) // KEY_CHANNELUP
        #expect(Self.waitUntil(seconds: 15) { box.logText.contains("completed on 2 in") }, "KEY_CHANNELUP flipped to 2; log:\n\(box.logText)")
        let stateFile = state.appendingPathComponent("state.json")
        #expect(Self.waitUntil(seconds: 10) {
            guard let data = try? Data(contentsOf: stateFile),
                  let record = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return false }
            return record["number"] as? String == "2"
        }, "channel 2 remembered in \(stateFile.path)")

        // Tried again every 2 s for the same reason: said once.
        Thread.sleep(forTimeInterval: 3)
        let lines = box.logText.split(separator: "\n")
        #expect(lines.filter { $0.contains("control API: ") && $0.contains("could not listen") }.count == 1,
                "one line while the reason stays the same; log:\n\(box.logText)")
        #expect(!lines.contains { $0.contains("control API listening") })

        // The port is freed: the API answers within a few seconds, on the channel the remote chose.
        holder.close()
        let freed = Date()
        let up = box.waitForStatus(seconds: 8) { ($0["channel"] as? [String: Any])?["number"] as? String == "2" }
        #expect(up, "the API answers /api/v1/status once the port is free; log:\n\(box.logText)")
        #expect(Date().timeIntervalSince(freed) < 8)
        #expect(box.logText.contains("control API: listening on 127.0.0.1:\(port) at last, "), "log:\n\(box.logText)")
        if up {
            let img = try box.snapshot()
            #expect(img.looks(0, 255, 0, atX: 160, y: 90), "green on screen, is \(img.describe(atX: 160, y: 90))")
        }
        #expect(notify.lines("READY=1").count == 1)
    }

    static func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return condition()
    }
}
