import Foundation
import Testing

/// Pause and rewind on a live UDP channel, over the API of the real binary: the picture goes
/// back to what the channel showed before, and comes back to live.
@Suite(.serialized) struct TimeshiftEndToEndTests {
    @Test func rewindShowsWhatWasOnAndLiveComesBack() async throws {
        try await onOwnThread {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-timeshift-e2e-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let port = freePort()
            var sender = try UDPTestStream(port: port, rgb: 0xFF0000)
            defer { sender.stop() }
            let yaml = """
                channels:
                  - number: 1
                    name: Live Red Then Blue
                    source: udp://127.0.0.1:\(port)
                """
            let lineup = dir.appendingPathComponent("lineup.yaml")
            try yaml.write(to: lineup, atomically: true, encoding: .utf8)
            let box = try FlipboxProcess(arguments: [lineup.path, "--size", "320x180", "--timeshift", "5m", "--timeshift-memory", "64KB"],
                                         port: freePort(), environment: ["XDG_CACHE_HOME": dir.path])
            defer { box.stop() }
            func centre(_ r: Double, _ g: Double, _ b: Double, within seconds: Double) -> Bool {
                let end = Date().addingTimeInterval(seconds)
                while Date() < end {
                    if let image = try? box.snapshot(), image.looks(r, g, b, atX: 160, y: 90, size: 40) { return true }
                    Thread.sleep(forTimeInterval: 0.2)
                }
                return false
            }
            #expect(centre(255, 0, 0, within: 30), "red on screen; log: \(box.logText.suffix(600))")
            let redSeen = Date()
            Thread.sleep(forTimeInterval: 3)
            sender.stop()
            sender = try UDPTestStream(port: port, rgb: 0x0000FF)
            #expect(centre(0, 0, 255, within: 15), "the sender's blue on screen")
            Thread.sleep(forTimeInterval: 1)

            let live = box.json("GET", "/api/v1/timeshift")
            #expect(live.status == 200 && live.object["live"] as? Bool == true, "\(live)")
            // A moment of the red part (red was on screen then, and stayed 3 s more).
            let redMoment = Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(redSeen.addingTimeInterval(1.5))
            let back = box.json("POST", "/api/v1/timeshift/seek?to=\(redMoment)")
            #expect(back.status == 200 && back.object["live"] as? Bool == false, "\(back)")
            #expect((back.object["behind"] as? Double ?? 0) >= 3, "\(back)")
            #expect(centre(255, 0, 0, within: 8), "rewound to the red part")
            // And a relative step: back 1 s from there is still red, and not live.
            let step = box.json("POST", "/api/v1/timeshift/seek?by=-1s")
            #expect(step.status == 200 && step.object["live"] as? Bool == false, "\(step)")

            let paused = box.json("POST", "/api/v1/timeshift/pause")
            #expect(paused.status == 200 && paused.object["paused"] as? Bool == true, "\(paused)")
            Thread.sleep(forTimeInterval: 1)
            let still = box.json("GET", "/api/v1/timeshift")
            #expect(still.object["position"] as? String == paused.object["position"] as? String, "the position holds while paused")

            let live2 = box.json("POST", "/api/v1/timeshift/live")
            #expect(live2.status == 200 && live2.object["live"] as? Bool == true, "\(live2)")
            #expect(centre(0, 0, 255, within: 5), "back to live blue")

            #expect(box.request("POST", "/api/v1/timeshift/seek?by=yesterday").status == 400)
            #expect(box.request("POST", "/api/v1/timeshift/seek").status == 400)
            #expect(box.request("POST", "/api/v1/timeshift/seek?to=2026-13-45").status == 400)
        }
    }

    @Test func withoutTimeshiftTheAPISaysSo() async throws {
        try await onOwnThread {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-timeshift-off-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let lineup = dir.appendingPathComponent("lineup.yaml")
            try "channels:\n  - number: 1\n    name: Red\n    source: test://color/ff0000?size=160x90&fps=15\n".write(to: lineup, atomically: true, encoding: .utf8)
            let box = try FlipboxProcess(arguments: [lineup.path, "--size", "320x180"], port: freePort())
            defer { box.stop() }
            #expect(box.waitForStatus(seconds: 30) { ($0["channel"] as? [String: Any]) != nil })
            let get = box.json("GET", "/api/v1/timeshift")
            #expect(get.status == 409, "\(get)")
            let pause = box.json("POST", "/api/v1/timeshift/pause")
            #expect(pause.status == 409 && (pause.object["error"] as? String ?? "").contains("--timeshift"), "\(pause)")
        }
    }
}
