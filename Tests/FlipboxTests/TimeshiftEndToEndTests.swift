import Foundation
import TestSupport
import Testing

/// Pause and rewind on a live UDP channel, over the API of the real binary: the picture goes
/// back to what the channel showed before, and comes back to live.
@Suite(.serialized) struct TimeshiftEndToEndTests {
    @Test func rewindShowsWhatWasOnAndLiveComesBack() async throws {
        try await offPool {
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
        try await offPool {
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

    /// A real full disk under the box's cache (a 16 MB tmpfs, filled before the box starts):
    /// `GET /api/v1/timeshift` says `disk: full`, naming the directory and the reason, the
    /// buffer holds no more than `--timeshift-memory` while the disk refuses, nothing crashes,
    /// and once space is freed the buffer goes back to disk and its window grows past what
    /// memory held.
    @Test(.enabled(if: SmallFilesystem.canMount, "mounts a small tmpfs: needs root"))
    func aFullDiskIsSaidAndTheBufferStaysWithinItsMemoryUntilSpaceFrees() async throws {
        try await offPool {
            let disk = try SmallFilesystem(bytes: 16 << 20)
            defer { disk.unmount() }
            try disk.fill()
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-timeshift-full-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let lineup = dir.appendingPathComponent("lineup.yaml")
            try "channels:\n  - number: 1\n    name: Ball\n    source: test://ball?size=320x180&fps=30&gop=15&bitrate=800\n"
                .write(to: lineup, atomically: true, encoding: .utf8)
            let cap = 256 << 10
            let box = try FlipboxProcess(arguments: [lineup.path, "--size", "320x180", "--timeshift", "5m", "--timeshift-memory", "256KB"],
                                         port: freePort(), environment: ["XDG_CACHE_HOME": disk.directory.path])
            defer { box.stop() }
            #expect(box.waitForStatus(seconds: 30) { ($0["channel"] as? [String: Any]) != nil }, "playing; log: \(box.logText.suffix(600))")

            func timeshift() -> [String: Any] { box.json("GET", "/api/v1/timeshift").object }
            func held(_ status: [String: Any]) -> Double {
                let time = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
                guard let start = (status["bufferStart"] as? String).flatMap({ try? time.parse($0) }),
                      let edge = (status["liveEdge"] as? String).flatMap({ try? time.parse($0) }) else { return 0 }
                return edge.timeIntervalSince(start)
            }
            /// The first answer within `seconds` whose `disk` is `state` and that holds more than
            /// `over` seconds (when given), or nil.
            func poll(seconds: Double, disk state: String? = nil, over: Double? = nil) -> [String: Any]? {
                let deadline = Date().addingTimeInterval(seconds)
                while Date() < deadline {
                    let status = timeshift()
                    let diskMatches = state == nil || (status["disk"] as? String) == state
                    let windowMatches = over == nil || held(status) > (over ?? 0)
                    if diskMatches && windowMatches { return status }
                    Thread.sleep(forTimeInterval: 0.25)
                }
                return nil
            }

            let full = poll(seconds: 20, disk: "full")
            #expect(full != nil, "disk full said; last answer: \(timeshift()); log: \(box.logText.suffix(600))")
            let message = full?["diskMessage"] as? String ?? ""
            #expect(message.contains("No space left on device") && message.contains("\(disk.directory.path)/flipbox/timeshift"), "\(message)")
            #expect(box.logText.contains("No space left on device"), "and the log says so")

            // For 6 s, four times a second: within the cap, the window no longer than that holds.
            var overCap: [Int] = []
            var windows: [Double] = []
            for _ in 0..<24 {
                let status = timeshift()
                let bytes = status["bytesInMemory"] as? Int ?? -1
                if bytes > cap || bytes < 0 { overCap.append(bytes) }
                windows.append(held(status))
                Thread.sleep(forTimeInterval: 0.25)
            }
            #expect(overCap.isEmpty, "memory over the 256 KB cap (or no answer): \(overCap)")
            let fullWindow = windows.max() ?? 0
            #expect(fullWindow > 0 && timeshift()["disk"] as? String == "full", "still full, something held: \(windows)")
            #expect(box.process.isRunning)

            // The event stream hears the change without being asked.
            let events = try EventRecorder(url: "http://127.0.0.1:\(box.port)/api/v1/events")
            Thread.sleep(forTimeInterval: 0.5)
            disk.free()
            let back = poll(seconds: 20, disk: "ok")
            #expect(back != nil, "the disk takes segments again: \(timeshift())")
            Thread.sleep(forTimeInterval: 0.5)
            let told = events.stop().filter { $0.event == "timeshift" }.map { $0.data["disk"] as? String ?? "?" }
            #expect(told.contains("ok"), "a timeshift event with the disk taking segments again: \(told)")
            #expect(back?["diskMessage"] as? String == nil, "and no message stays: \(back ?? [:])")
            let grown = poll(seconds: 20, over: fullWindow + 5)
            #expect(grown != nil, "the window grows past what memory held (\(fullWindow) s): \(held(timeshift())) s")
            let segments = FileManager.default.enumerator(atPath: disk.directory.appendingPathComponent("flipbox/timeshift").path)?
                .compactMap { $0 as? String }.filter { $0.hasSuffix(".seg") } ?? []
            #expect(!segments.isEmpty, "segment files on the disk again")
            #expect(box.process.isRunning, "nothing crashed")
        }
    }

    /// `--timeshift-warm` (over the lineup's `timeshift: {minutes: 5}`): a channel warm but not
    /// on screen keeps its last seconds, so right after a flip to it the buffer reaches back
    /// before the flip.
    @Test func warmSecondsFromTheCommandLineReachBackBeforeAFlip() async throws {
        try await offPool {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-timeshift-warm-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let lineup = dir.appendingPathComponent("lineup.yaml")
            try """
                settings:
                  timeshift: {minutes: 5}
                channels:
                  - {number: 1, name: Red, source: "test://color/ff0000?size=160x90&fps=15&gop=15"}
                  - {number: 2, name: Blue, source: "test://color/0000ff?size=160x90&fps=15&gop=15"}
                """.write(to: lineup, atomically: true, encoding: .utf8)
            let box = try FlipboxProcess(arguments: [lineup.path, "--size", "320x180", "--timeshift-warm", "20s", "--start", "1"],
                                         port: freePort(), environment: ["XDG_CACHE_HOME": dir.path])
            defer { box.stop() }
            #expect(box.waitForStatus(seconds: 30) { ($0["channel"] as? [String: Any])?["number"] as? String == "1" }, "\(box.logText.suffix(600))")
            #expect(box.json("GET", "/api/v1/timeshift").status == 200, "timeshift on from the lineup's group form")
            Thread.sleep(forTimeInterval: 8)
            let flip = Date()
            #expect(box.json("POST", "/api/v1/tune/2").status == 200)
            let status = box.json("GET", "/api/v1/timeshift").object
            let time = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
            let start = try #require((status["bufferStart"] as? String).flatMap { try? time.parse($0) }, "\(status)")
            #expect(status["channel"] as? String == "2")
            #expect(flip.timeIntervalSince(start) > 5, "the buffer reaches \(flip.timeIntervalSince(start)) s before the flip: \(status)")
        }
    }
}
