import Foundation
import GStreamer
import TestSupport
import Testing

/// Breaks from SCTE-35 cues over the API of the real binary, checked by pixels: a live UDP
/// channel muxed by `mpegtsmux` with an SCTE-35 PID cues a break while its picture turns blue;
/// `GET /api/v1/timeshift` lists it (`origin: scte35`), the position bar draws it, and with
/// `linear-breaks` a forward seek over it lands at its start, in blue.
@Suite(.serialized) struct SpliceCueEndToEndTests {
    static func date(_ value: Any?) -> Date? { TimeshiftMarkersEndToEndTests.date(value) }

    @Test func aCuedBreakIsListedDrawnAndStopsAForwardSeek() async throws {
        try await offPool {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-scte35-e2e-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let port = freePort()
            let sender = try CuedColourStream(port: port)
            defer { sender.stop() }
            let yaml = """
                channels:
                  - number: 1
                    name: Cued Colours
                    source: udp://127.0.0.1:\(port)
                    linear-breaks: true
                """
            let lineup = dir.appendingPathComponent("lineup.yaml")
            try yaml.write(to: lineup, atomically: true, encoding: .utf8)
            let box = try FlipboxProcess(arguments: [lineup.path, "--size", "640x360", "--timeshift", "5m"],
                                         port: freePort(), environment: ["XDG_CACHE_HOME": dir.path])
            defer { box.stop() }
            func shows(_ r: Double, _ g: Double, _ b: Double, within seconds: Double) -> Bool {
                box.waitForSnapshot(seconds: seconds) { $0.looks(r, g, b, atX: 320, y: 120, size: 40) } != nil
            }
            func post(_ path: String) -> (status: Int, object: [String: Any]) { box.json("POST", path) }

            #expect(shows(255, 0, 0, within: 30), "red on screen; log: \(box.logText.suffix(600))")
            Thread.sleep(forTimeInterval: 3)
            // Paused before the break: the viewer does not see it.
            #expect(post("/api/v1/timeshift/pause").status == 200)
            let start = Date().addingTimeInterval(2)
            sender.cueBreak(id: 42, at: start, seconds: 4)
            Thread.sleep(until: start.addingTimeInterval(4 + 2))

            let status = box.json("GET", "/api/v1/timeshift").object
            let breaks = status["breaks"] as? [[String: Any]] ?? []
            let cued = breaks.first { $0["origin"] as? String == "scte35" }
            let cuedStart = Self.date(cued?["start"]) ?? .distantPast, cuedEnd = Self.date(cued?["end"]) ?? .distantPast
            #expect(cued?["watched"] as? Bool == false, "\(breaks)")
            #expect(cuedStart.timeIntervalSince(start) > -0.2 && cuedStart.timeIntervalSince(start) < 1, "at the cue's splice time: \(cuedStart) vs \(start)")
            #expect(abs(cuedEnd.timeIntervalSince(cuedStart) - 4) < 0.05, "its break_duration: \(breaks)")

            // Forward over it lands at its start: blue, not live.
            let skip = post("/api/v1/timeshift/seek?by=+300s")
            let landed = Self.date(skip.object["position"]) ?? .distantPast
            #expect(skip.status == 200 && skip.object["live"] as? Bool == false
                    && (skip.object["adjustment"] as? [String: Any])?["reason"] as? String == "unwatchedBreak", "\(skip)")
            #expect(landed.timeIntervalSince(cuedStart) > -1.2 && landed <= cuedStart.addingTimeInterval(0.1), "\(landed) vs \(cuedStart)")
            #expect(shows(0, 0, 255, within: 5), "the break's colour (blue) on screen")

            // Paused, the position bar shows the break in amber.
            _ = post("/api/v1/timeshift/pause")
            let bar = try box.snapshot()
            let amber = bar.countPixels(x: 21, y: 245, width: 598, height: 15) { r, g, b in r > 200 && g > 120 && g < 210 && b < 60 }
            #expect(amber > 10, "the cued break on the position bar: \(amber) amber pixels")
        }
    }
}

/// A live MPEG-TS sender over UDP muxed with an SCTE-35 PID: solid red until a cued break, blue
/// during it, green after.
final class CuedColourStream: @unchecked Sendable {
    let pipeline: Pipeline

    init(port: Int) throws {
        try GStreamer.initialize()
        pipeline = try Pipeline(description: """
            videotestsrc name=picture is-live=true pattern=solid-color foreground-color=\(0xFFFF_0000 as UInt32) ! video/x-raw,width=320,height=180,framerate=30/1 ! \
            x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! h264parse ! queue ! \
            mpegtsmux name=mux alignment=7 scte-35-pid=500 ! udpsink host=127.0.0.1 port=\(port) sync=false
            """)
        try pipeline.setState(.playing)
    }

    /// Cues a break (splice_insert out of network with its duration) for wall-clock `start`,
    /// now, and turns the picture blue for it, green after.
    func cueBreak(id: UInt32, at start: Date, seconds: Double) {
        let at = ClockTime(Double(pipeline.runningTimeNow) + start.timeIntervalSinceNow * 1e9)
        #expect(pipeline.child(named: "mux")?.sendSpliceInsert(eventID: id, out: true, at: at, duration: ClockTime(seconds * 1e9)) == true)
        let picture = pipeline.child(named: "picture")
        Thread.detachNewThread {
            Thread.sleep(until: start)
            picture?.set("foreground-color", uint: 0xFF00_00FF)
            Thread.sleep(until: start.addingTimeInterval(seconds))
            picture?.set("foreground-color", uint: 0xFF00_FF00)
        }
    }

    func stop() { pipeline.shutdown() }
}
