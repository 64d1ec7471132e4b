import Foundation
import GStreamer
import TestSupport
import Testing

/// Markers and breaks over the API of the real binary, checked by pixels: a live UDP channel
/// whose colour follows the wall clock (red, green, blue, yellow, 6 s each; every other blue is
/// one of the lineup's breaks), so the colour on screen says where in time the picture is.
@Suite(.serialized) struct TimeshiftMarkersEndToEndTests {
    static let colours: [(UInt32, (Double, Double, Double))] = [(0xFF0000, (255, 0, 0)), (0x00FF00, (0, 255, 0)),
                                                               (0x0000FF, (0, 0, 255)), (0xFFFF00, (255, 255, 0))]
    static func colourIndex(_ time: Date) -> Int { Int(time.timeIntervalSince1970 / 6) % 4 }
    static let iso = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    static func date(_ value: Any?) -> Date? { (value as? String).flatMap { try? iso.parse($0) } }

    @Test func markersAndLinearBreaksLandWhereTheColourSays() async throws {
        try await offPool {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-markers-e2e-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let port = freePort()
            let sender = try ClockColourStream(port: port, colours: Self.colours.map(\.0))
            defer { sender.stop() }
            let yaml = """
                channels:
                  - number: 1
                    name: Clock Colours
                    source: udp://127.0.0.1:\(port)
                    linear-breaks: true
                    breaks: every 48s at 12s for 6s
                """
            let lineup = dir.appendingPathComponent("lineup.yaml")
            try yaml.write(to: lineup, atomically: true, encoding: .utf8)
            let box = try FlipboxProcess(arguments: [lineup.path, "--size", "640x360", "--timeshift", "5m"],
                                         port: freePort(), environment: ["XDG_CACHE_HOME": dir.path])
            defer { box.stop() }
            func shows(_ index: Int, within seconds: Double) -> Bool {
                let (r, g, b) = Self.colours[index].1
                return box.waitForSnapshot(seconds: seconds) { $0.looks(r, g, b, atX: 320, y: 120, size: 40) } != nil
            }
            func post(_ path: String) -> (status: Int, object: [String: Any]) { box.json("POST", path) }
            func error(_ r: (status: Int, object: [String: Any])) -> String { r.object["error"] as? String ?? "\(r)" }

            #expect(shows(Self.colourIndex(Date()), within: 30) || shows(Self.colourIndex(Date()), within: 8),
                    "the clock's colour on screen; log: \(box.logText.suffix(600))")
            Thread.sleep(forTimeInterval: 26)

            // Two markers in the middle of two past colours.
            let current = (Date().timeIntervalSince1970 / 6).rounded(.down) * 6
            let a = Date(timeIntervalSince1970: current - 18 + 3), b = Date(timeIntervalSince1970: current - 6 + 3)
            let markA = post("/api/v1/timeshift/markers?at=\(Self.iso.format(a))&name=A")
            let markB = post("/api/v1/timeshift/markers?at=\(Self.iso.format(b))")
            #expect(markA.status == 201 && markA.object["name"] as? String == "A" && markA.object["kind"] as? String == "set", "\(markA)")
            #expect(markB.status == 201 && (markB.object["name"] as? String)?.hasPrefix("Marker") == true, "\(markB)")
            let listed = box.json("GET", "/api/v1/timeshift")
            #expect((listed.object["markers"] as? [[String: Any]])?.count == 2, "\(listed)")

            // Live so far: pause outside a break (so the next one is not seen at all).
            while (Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 48) - 15).magnitude < 4 { Thread.sleep(forTimeInterval: 0.2) }
            let paused = post("/api/v1/timeshift/pause")
            #expect(paused.status == 200, "\(paused)")
            let pausedAt = Self.date(paused.object["position"]) ?? Date()
            let period = (pausedAt.timeIntervalSince1970 / 48).rounded(.down) * 48
            var breakStart = Date(timeIntervalSince1970: period + 12)
            if breakStart <= pausedAt { breakStart.addTimeInterval(48) }
            // Wait until that break aired in full (the viewer did not see it: paused before it).
            Thread.sleep(until: breakStart.addingTimeInterval(6 + 2))

            // Forward over it lands at its start: blue, not live.
            let skip = post("/api/v1/timeshift/seek?by=+300s")
            let skipAdjustment = skip.object["adjustment"] as? [String: Any]
            let landed = Self.date(skip.object["position"]) ?? .distantPast
            #expect(skip.status == 200 && skip.object["live"] as? Bool == false && skipAdjustment?["reason"] as? String == "unwatchedBreak", "\(skip)")
            #expect(landed.timeIntervalSince(breakStart) > -1.6 && landed <= breakStart.addingTimeInterval(0.1), "at the break's start: \(landed) vs \(breakStart)")
            #expect(shows(2, within: 5), "the break's colour (blue) on screen")
            // While paused the position bar stays up: grey buffer, a white handle, amber breaks.
            _ = post("/api/v1/timeshift/pause")
            let withBar = try box.snapshot()
            let amber = withBar.countPixels(x: 21, y: 245, width: 598, height: 15) { r, g, b in r > 200 && g > 120 && g < 210 && b < 60 }
            let white = withBar.countPixels(x: 21, y: 245, width: 598, height: 15) { r, g, b in r > 240 && g > 240 && b > 240 }
            #expect(amber > 10 && white > 10, "the position bar: \(amber) amber and \(white) white pixels")
            if let path = ProcessInfo.processInfo.environment["FLIPBOX_POSITION_BAR_PNG"] {
                try Data(box.request("GET", "/api/v1/snapshot.png").body).write(to: URL(fileURLWithPath: path))
            }
            let breaks = box.json("GET", "/api/v1/timeshift").object["breaks"] as? [[String: Any]] ?? []
            let thatBreak = breaks.first { abs((Self.date($0["start"]) ?? .distantPast).timeIntervalSince(breakStart)) < 0.5 }
            #expect(thatBreak?["watched"] as? Bool == false && thatBreak?["origin"] as? String == "lineup", "\(breaks)")

            // Watched through, it can be skipped.
            _ = post("/api/v1/timeshift/resume")
            Thread.sleep(forTimeInterval: 7.5)
            let after = box.json("GET", "/api/v1/timeshift").object["breaks"] as? [[String: Any]] ?? []
            #expect(after.contains { abs((Self.date($0["start"]) ?? .distantPast).timeIntervalSince(breakStart)) < 0.5 && $0["watched"] as? Bool == true },
                    "watched after playing it: \(after)")
            let free = post("/api/v1/timeshift/seek?by=+300s")
            #expect(free.status == 200 && free.object["live"] as? Bool == true, "a watched break does not stop it: \(free)")

            // Before A, then next, next, previous: each lands on its marker's colour.
            let before = post("/api/v1/timeshift/seek?to=\(Self.iso.format(a.addingTimeInterval(-5)))")
            #expect(before.status == 200 && before.object["live"] as? Bool == false, "\(before)")
            let toA = post("/api/v1/timeshift/seek?marker=next")
            #expect(toA.status == 200, "\(toA)")
            let landedA = Self.date(toA.object["position"]) ?? .distantPast
            #expect(landedA.timeIntervalSince(a) > -1.6 && landedA <= a.addingTimeInterval(0.1), "at the keyframe before A: \(landedA) vs \(a)")
            #expect(shows(Self.colourIndex(a), within: 5), "next marker shows A's colour")
            let toB = post("/api/v1/timeshift/seek?marker=next")
            let landedB = Self.date(toB.object["position"]) ?? .distantPast
            #expect(toB.status == 200 && landedB.timeIntervalSince(b) > -1.6 && landedB <= b.addingTimeInterval(0.1), "\(toB)")
            #expect(shows(Self.colourIndex(b), within: 5), "next marker shows B's colour")
            let backToA = post("/api/v1/timeshift/seek?marker=previous")
            #expect(backToA.status == 200 && (Self.date(backToA.object["position"]) ?? .distantPast).timeIntervalSince(a) > -1.6, "\(backToA)")
            #expect(shows(Self.colourIndex(a), within: 5), "previous marker shows A's colour again")

            // After the last marker there is none.
            _ = post("/api/v1/timeshift/seek?to=\(Self.iso.format(b))")
            let noneAhead = post("/api/v1/timeshift/seek?marker=next")
            #expect(noneAhead.status == 409 && error(noneAhead).contains("no marker after"), "\(noneAhead)")

            // Outside the buffer: clamped to its start, and the answer says the range.
            let old = post("/api/v1/timeshift/seek?to=\(Self.iso.format(Date().addingTimeInterval(-3600)))")
            let adjustment = old.object["adjustment"] as? [String: Any]
            #expect(old.status == 200 && adjustment?["reason"] as? String == "beforeBuffer", "\(old)")
            #expect((adjustment?["message"] as? String)?.contains(old.object["bufferStart"] as? String ?? "?") == true, "\(old)")

            // Bad requests say what is wrong.
            #expect(post("/api/v1/timeshift/seek?marker=sideways").status == 400)
            #expect(post("/api/v1/timeshift/seek?marker=next&by=10s").status == 400)
            #expect(post("/api/v1/timeshift/markers?at=yesterday").status == 400)
            let far = post("/api/v1/timeshift/markers?at=2020-01-01T00:00:00Z")
            #expect(far.status == 409 && error(far).contains("outside the timeshift buffer"), "\(far)")
            #expect(box.request("DELETE", "/api/v1/timeshift/markers/999").status == 404)
            #expect(box.request("DELETE", "/api/v1/timeshift/markers/abc").status == 400)
            let id = markA.object["id"] as? Int ?? -1
            #expect(box.request("DELETE", "/api/v1/timeshift/markers/\(id)").status == 204)
            #expect((box.json("GET", "/api/v1/timeshift").object["markers"] as? [[String: Any]])?.count == 1)
        }
    }
}

/// A live MPEG-TS sender over UDP whose solid colour follows the wall clock: colour
/// `colours[(unix seconds / 6) % count]`, changed on its own thread at each 6 s boundary.
final class ClockColourStream: @unchecked Sendable {
    let pipeline: Pipeline
    private let lock = NSLock()
    private var running = true

    init(port: Int, colours: [UInt32]) throws {
        try GStreamer.initialize()
        let first = colours[Int(Date().timeIntervalSince1970 / 6) % colours.count]
        pipeline = try Pipeline(description: """
            videotestsrc name=picture is-live=true pattern=solid-color foreground-color=\(0xFF00_0000 | first) ! video/x-raw,width=320,height=180,framerate=30/1 ! \
            x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! h264parse ! queue ! mux. \
            audiotestsrc is-live=true freq=440 ! audioconvert ! avenc_aac ! aacparse ! queue ! mux. \
            mpegtsmux name=mux alignment=7 ! udpsink host=127.0.0.1 port=\(port) sync=false
            """)
        try pipeline.setState(.playing)
        let picture = pipeline.child(named: "picture")
        let thread = Thread { [self] in
            var shown = -1
            while lock.withLock({ running }) {
                let index = Int(Date().timeIntervalSince1970 / 6) % colours.count
                if index != shown {
                    picture?.set("foreground-color", uint: 0xFF00_0000 | colours[index])
                    shown = index
                }
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
        thread.start()
    }

    func stop() {
        lock.withLock { running = false }
        pipeline.shutdown()
    }
}
