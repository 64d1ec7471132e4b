import Foundation
import GStreamer
import TestSupport
import Testing

/// A recording's SCTE-35 break in a real box: a live UDP channel muxed with an SCTE-35 PID
/// (red, blue during a cued break, green after) is recorded; the break is kept with the
/// recording (its playback lists and marks it, the sidecar holds it), and played with
/// `--skip-breaks` the picture jumps from the break's start to its end: green, not blue.
@Suite(.serialized) struct RecordingBreaksBoxTests {
    static func date(_ value: Any?) -> Date? { RecordingPlaybackBoxTests.time(value) }

    @Test func aCuedBreakIsKeptWithTheRecordingAndSkippedInItsPlayback() async throws {
        try await offPool {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-recording-breaks-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let port = freePort()
            let sender = try CuedColourStream(port: port)
            defer { sender.stop() }
            let lineup = dir.appendingPathComponent("lineup.yaml")
            try """
                channels:
                  - number: 1
                    name: Cued Colours
                    source: udp://127.0.0.1:\(port)
                """.write(to: lineup, atomically: true, encoding: .utf8)
            let recordings = dir.appendingPathComponent("recordings")
            let box = try FlipboxProcess(arguments: [lineup.path, "--size", "640x360", "--recordings-dir", recordings.path],
                                         port: freePort(), stateDirectory: dir.appendingPathComponent("state"))
            defer { box.stop() }
            func shows(_ r: Double, _ g: Double, _ b: Double, within seconds: Double) -> Bool {
                box.waitForSnapshot(seconds: seconds) { $0.looks(r, g, b, atX: 320, y: 120, size: 40) } != nil
            }
            #expect(shows(255, 0, 0, within: 30), "red on screen; log: \(box.logText.suffix(600))")

            // 13 s recorded; a 5 s break cued 4 s in.
            let added = try RecordBoxTests.record(["add", "1", "--from", "now", "--to", "+13s", "--title", "Cued Match"], port: box.port)
            #expect(added.status == 0, "\(added.output)")
            let id = String(added.output.prefix { $0 != " " })
            Thread.sleep(forTimeInterval: 2)
            let cue = Date().addingTimeInterval(2)
            sender.cueBreak(id: 7, at: cue, seconds: 5)
            let done = try #require(RecordBoxTests.wait(box, for: id, state: "done", seconds: 30), "\(box.logText.suffix(1500))")

            // The sidecar keeps it.
            let sidecars = FileManager.default.enumerator(at: recordings, includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }.filter { $0.pathExtension == "json" } ?? []
            let sidecar = try JSONSerialization.jsonObject(with: Data(contentsOf: try #require(sidecars.first, "\(done)"))) as? [String: Any]
            let kept = sidecar?["breaks"] as? [[String: Any]] ?? []
            #expect(kept.count == 1 && kept.first?["origin"] as? String == "scte35", "\(sidecar ?? [:])")

            // Played from its start, skipping breaks: the status lists and marks it.
            let play = try RecordBoxTests.record(["play", id, "--from", "start", "--skip-breaks"], port: box.port)
            #expect(play.status == 0 && play.output.contains("skipping its 1 break"), "\(play.output) \(box.logText.suffix(1500))")
            let status = box.json("GET", "/api/v1/timeshift").object
            let breaks = status["breaks"] as? [[String: Any]] ?? []
            let start = try #require(Self.date(breaks.first?["start"]), "\(status)"), end = try #require(Self.date(breaks.first?["end"]))
            #expect(breaks.count == 1 && breaks[0]["origin"] as? String == "scte35", "\(breaks)")
            #expect(abs(start.timeIntervalSince(cue)) < 1, "kept at the cue's splice time, within a second: \(start) vs \(cue)")
            #expect(abs(end.timeIntervalSince(start) - 5) < 1, "its break_duration: \(start)...\(end)")
            let marks = (status["markers"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "break" }.compactMap { Self.date($0["time"]) }
            #expect(marks == [start, end], "its start and end are marks: \(status["markers"] ?? [])")

            // The picture reaches the break's start and goes on after its end at once.
            var position = Date.distantPast
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline, position < start.addingTimeInterval(-0.3) {
                Thread.sleep(forTimeInterval: 0.1)
                position = Self.date(box.json("GET", "/api/v1/timeshift").object["position"]) ?? position
            }
            #expect(position >= start.addingTimeInterval(-0.3), "it played up to the break: \(position) vs \(start)")
            #expect(shows(0, 255, 0, within: 3), "green (after the break) on screen, not its 5 s of blue; log: \(box.logText.suffix(1500))")
            let after = try #require(Self.date(box.json("GET", "/api/v1/timeshift").object["position"]))
            #expect(after >= end, "the position jumped past the break's end: \(after) vs \(end)")

            // A seek back into the break plays it.
            let into = start.addingTimeInterval(1).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            #expect(box.request("POST", "/api/v1/timeshift/seek?to=\(into)").status == 200)
            #expect(shows(0, 0, 255, within: 4), "the break chosen plays: blue")
            #expect(box.request("POST", "/api/v1/recordings/\(id)/play?skip-breaks=maybe").status == 400)
        }
    }
}
