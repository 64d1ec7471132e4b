import Foundation
import GStreamer
import TestSupport
import Testing

/// Watching recordings on the box, as a person does (`flipbox record play`, then the timeshift's
/// controls): a red channel recorded, played back while a blue one is on, its picture checked by
/// its pixels; pause, seek, its resume point after a flip away, its end; and one still being
/// recorded watched as it grows.
@Suite(.serialized) struct RecordingPlaybackBoxTests {
    static func isRed(_ img: BGRAImage) -> Bool {
        let c = img.meanRGB(x: img.width / 2 - 20, y: img.height / 2 - 20, width: 40, height: 40)
        return c.r > 150 && c.g < 80 && c.b < 80
    }

    static func isBlue(_ img: BGRAImage) -> Bool {
        let c = img.meanRGB(x: img.width / 2 - 20, y: img.height / 2 - 20, width: 40, height: 40)
        return c.b > 150 && c.r < 80 && c.g < 80
    }

    static func time(_ any: Any?) -> Date? {
        (any as? String).flatMap { try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse($0) }
    }

    /// A box with a red channel 1 and a blue channel 2, keeping recordings; its directory.
    /// `pool` puts both in one pool of that many streams.
    static func startBox(pool: Int? = nil) throws -> (FlipboxProcess, URL) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-playback-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let pools = pool.map { "pools:\n  - name: Tuner\n    match: test://color/\n    streams: \($0)\n" } ?? ""
        let yaml = pools + """
            channels:
              - number: 1
                name: Red
                source: test://color/ff0000?size=320x180&fps=25&gop=25&tone=440&bitrate=300
              - number: 2
                name: Blue
                source: test://color/0000ff?size=320x180&fps=25&gop=25&tone=660&bitrate=300
            """
        let lineup = dir.appendingPathComponent("lineup.yaml")
        try yaml.write(to: lineup, atomically: true, encoding: .utf8)
        let box = try FlipboxProcess(arguments: [lineup.path, "--recordings-dir", dir.appendingPathComponent("recordings").path],
                                     port: freePort(), stateDirectory: dir.appendingPathComponent("state"))
        #expect(box.waitForStatus(seconds: 30) { _ in true }, "the box started: \(box.logText.suffix(1500))")
        return (box, dir)
    }

    @Test func aRecordingPlaysOnScreenWithTheTimeshiftsControlsAndResumes() async throws {
        try GStreamer.initialize()
        try await offPool {
            let (box, dir) = try Self.startBox()
            defer { box.stop(); try? FileManager.default.removeItem(at: dir) }
            let port = box.port

            // 8 s of the red channel.
            let added = try RecordBoxTests.record(["add", "1", "--from", "now", "--to", "+8s", "--title", "Red Hour"], port: port)
            #expect(added.status == 0, "\(added.output)")
            let id = String(added.output.prefix { $0 != " " })
            let done = try #require(RecordBoxTests.wait(box, for: id, state: "done", seconds: 25), "\(box.logText.suffix(1500))")
            #expect(done["file"] is String)

            // Blue on screen, then the red recording.
            #expect(box.request("POST", "/api/v1/tune/2").status == 200)
            #expect(box.waitForSnapshot(seconds: 10, Self.isBlue) != nil, "channel 2 is blue on screen")
            let play = try RecordBoxTests.record(["play", id, "--from", "start"], port: port)
            #expect(play.status == 0 && play.output.hasPrefix("playing Red Hour"), "\(play.output) \(box.logText.suffix(1500))")
            #expect(box.waitForSnapshot(seconds: 8, Self.isRed) != nil, "the recording's red picture is on screen")
            let status = box.json("GET", "/api/v1/timeshift").object
            let place = try #require(status["recording"] as? [String: Any], "\(status)")
            #expect(place["id"] as? String == id && place["title"] as? String == "Red Hour", "\(place)")
            #expect(status["live"] as? Bool == false)
            let start = try #require(Self.time(status["bufferStart"])), end = try #require(Self.time(status["liveEdge"]))
            #expect(abs(end.timeIntervalSince(start) - 8) < 2.5, "the span is the 8 s recorded: \(start)...\(end)")

            // Pause holds the position; a seek moves it.
            let paused = box.json("POST", "/api/v1/timeshift/pause").object
            #expect(paused["paused"] as? Bool == true, "\(paused)")
            let pausedAt = try #require(Self.time(paused["position"]))
            Thread.sleep(forTimeInterval: 1.5)
            let still = box.json("GET", "/api/v1/timeshift").object
            #expect(Self.time(still["position"]) == pausedAt, "paused stays: \(still)")
            let target = start.addingTimeInterval(4)
            let seek = box.json("POST", "/api/v1/timeshift/seek?to=\(target.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))").object
            let seekedTo = try #require(Self.time(seek["position"]), "\(seek) \(box.logText.suffix(1000))")
            #expect(abs(seekedTo.timeIntervalSince(target)) < 0.6, "the seek lands at 4 s: \(seek)")
            #expect(seek["paused"] as? Bool == false)
            #expect(box.waitForSnapshot(seconds: 5, Self.isRed) != nil)

            // A flip away keeps where it was left; playing it again resumes there.
            Thread.sleep(forTimeInterval: 1)
            #expect(box.request("POST", "/api/v1/tune/2").status == 200)
            #expect(box.waitForSnapshot(seconds: 10, Self.isBlue) != nil)
            let again = box.json("POST", "/api/v1/recordings/\(id)/play").object
            let resumed = try #require(Self.time(again["position"]), "\(again)")
            #expect(resumed.timeIntervalSince(start) > 4.5 && resumed.timeIntervalSince(start) < 7.5,
                    "resumed near where it was left (about 5 s in): \(resumed.timeIntervalSince(start)) s \(again) \(box.logText.suffix(2500))")
            #expect(box.waitForSnapshot(seconds: 8, Self.isRed) != nil)

            // It plays to its end and stands there.
            let deadline = Date().addingTimeInterval(12)
            var last: [String: Any] = [:]
            while Date() < deadline {
                last = box.json("GET", "/api/v1/timeshift").object
                if (last["recording"] as? [String: Any])?["ended"] as? Bool == true { break }
                Thread.sleep(forTimeInterval: 0.3)
            }
            #expect((last["recording"] as? [String: Any])?["ended"] as? Bool == true && last["paused"] as? Bool == true, "\(last)")

            // Live goes back to the channel.
            let live = box.json("POST", "/api/v1/timeshift/live").object
            #expect(live["recording"] == nil && live["live"] as? Bool == true, "\(live)")
            #expect(box.waitForSnapshot(seconds: 8, Self.isRed) != nil, "channel 1 live")

            // The list of recordings on screen: it covers the picture, OK plays the focused one.
            let list = box.json("POST", "/api/v1/recording-list").object
            #expect(list["open"] as? Bool == true && list["count"] as? Int == 1 && list["focused"] as? String == id, "\(list)")
            let listed = box.waitForSnapshot(seconds: 8) { img in
                let row = img.meanRGB(x: img.width / 2 - 100, y: img.height * 318 / 720, width: 200, height: 8)
                return row.r > 200 && row.g > 150 && row.b < 90
            }
            #expect(listed != nil, "the focused recording's row is yellow on screen")
            #expect(box.request("POST", "/api/v1/recording-list/move/left").status == 400)
            let picked = box.json("POST", "/api/v1/recording-list/select").object
            #expect((picked["recording"] as? [String: Any])?["id"] as? String == id, "\(picked)")
            #expect(box.json("GET", "/api/v1/recording-list").object["open"] as? Bool == false)
            #expect(box.waitForSnapshot(seconds: 8, Self.isRed) != nil, "the list closed on the recording")

            // What cannot play is said.
            #expect(box.request("POST", "/api/v1/recordings/o-nothere/play").status == 404)
            let later = try RecordBoxTests.record(["add", "1", "--from", "+1h", "--to", "+2h"], port: port)
            let laterID = String(later.output.prefix { $0 != " " })
            let notYet = box.response("POST", "/api/v1/recordings/\(laterID)/play", body: "")
            #expect(notYet.status == 409 && notYet.body.contains("nothing recorded"), "\(notYet.body)")
            #expect(box.request("POST", "/api/v1/recordings/\(id)/play?from=yesterday").status == 400)
        }
    }

    /// Two recordings at once in a pool of one stream: the conflict is listed on screen above
    /// the recordings, each option a row with a warning sign; OK on one takes it (the other
    /// recording is dropped), the list shows what is left and the API agrees. A stale option
    /// is refused with 409, a body that is no option with 400.
    @Test func aConflictIsSettledFromTheListOnScreen() async throws {
        try GStreamer.initialize()
        try await offPool {
            let (box, dir) = try Self.startBox(pool: 1)
            defer { box.stop(); try? FileManager.default.removeItem(at: dir) }
            let port = box.port
            let first = try RecordBoxTests.record(["add", "1", "--from", "+1h", "--to", "+2h", "--title", "Red Late"], port: port)
            let second = try RecordBoxTests.record(["add", "2", "--from", "+1h", "--to", "+2h", "--title", "Blue Late"], port: port)
            #expect(first.status == 0 && second.status == 0, "\(first.output) \(second.output)")
            let conflicts = box.json("GET", "/api/v1/recording-conflicts").object["conflicts"] as? [[String: Any]] ?? []
            let options = conflicts.first?["options"] as? [[String: Any]] ?? []
            #expect(conflicts.count == 1 && options.count == 2 && options.allSatisfy { $0["kind"] as? String == "drop" },
                    "one conflict in the pool of one, its two drops: \(conflicts) \(box.logText.suffix(1500))")

            let list = box.json("POST", "/api/v1/recording-list").object
            #expect(list["choices"] as? Int == 2 && list["count"] as? Int == 0, "\(list)")
            let choice = try #require(list["choice"] as? String, "a choice is focused first: \(list)")
            #expect(choice.hasPrefix("Drop "), "\(choice)")
            // The second row, not focused, is a choice: its warning sign is orange.
            let warned = box.waitForSnapshot(seconds: 8) { img in
                let sign = img.meanRGB(x: img.width * 68 / 1280, y: img.height * 401 / 720, width: max(2, img.width * 6 / 1280),
                                       height: max(2, img.height * 5 / 720))
                return sign.r > 200 && sign.g > 110 && sign.g < 200 && sign.b < 70
            }
            #expect(warned != nil, "the conflict's rows carry an orange warning sign on screen")

            let settled = box.json("POST", "/api/v1/recording-list/select").object
            let said = try #require(settled["settled"] as? String, "\(settled) \(box.logText.suffix(1500))")
            #expect(said.hasPrefix("Dropped "), "\(said)")
            let after = try #require(settled["list"] as? [String: Any])
            #expect(after["open"] as? Bool == true && after["choices"] as? Int == 0, "the conflict is gone from the list: \(after)")
            let left = box.json("GET", "/api/v1/recording-conflicts").object["conflicts"] as? [Any]
            #expect(left?.isEmpty == true, "\(String(describing: left))")
            let states = RecordBoxTests.recordings(box).values.compactMap { $0["state"] as? String }.sorted()
            #expect(states == ["cancelled", "scheduled"], "one dropped, one to record: \(states)")

            let stale = try JSONSerialization.data(withJSONObject: options[0])
            let again = box.response("POST", "/api/v1/recording-conflicts", body: String(decoding: stale, as: UTF8.self))
            #expect(again.status == 409 && again.body.contains("not offered"), "\(again.status) \(again.body)")
            #expect(box.response("POST", "/api/v1/recording-conflicts", body: #"{"kind": "burn"}"#).status == 400)
        }
    }

    /// A box stopped while a recording plays keeps where it stood: after the restart the
    /// recording resumes there.
    @Test func aRecordingPlayingWhenTheBoxStopsResumesWhereItStood() async throws {
        try GStreamer.initialize()
        try await offPool {
            let (box, dir) = try Self.startBox()
            defer { box.stop(); try? FileManager.default.removeItem(at: dir) }
            let added = try RecordBoxTests.record(["add", "1", "--from", "now", "--to", "+8s", "--title", "Red Hour"], port: box.port)
            let id = String(added.output.prefix { $0 != " " })
            _ = try #require(RecordBoxTests.wait(box, for: id, state: "done", seconds: 25), "\(box.logText.suffix(1500))")
            let played = box.json("POST", "/api/v1/recordings/\(id)/play?from=start").object
            let start = try #require(Self.time(played["bufferStart"]), "\(played)")
            let target = start.addingTimeInterval(4)
            let seek = box.json("POST", "/api/v1/timeshift/seek?to=\(target.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))").object
            #expect(seek["paused"] as? Bool == false, "\(seek)")
            _ = box.json("POST", "/api/v1/timeshift/pause")
            box.stop()

            let again = try FlipboxProcess(arguments: [dir.appendingPathComponent("lineup.yaml").path, "--recordings-dir",
                                                       dir.appendingPathComponent("recordings").path],
                                           port: freePort(), stateDirectory: dir.appendingPathComponent("state"))
            defer { again.stop() }
            #expect(again.waitForStatus(seconds: 30) { _ in true }, "\(again.logText.suffix(1500))")
            let resumed = again.json("POST", "/api/v1/recordings/\(id)/play").object
            let at = try #require(Self.time(resumed["position"]), "\(resumed) \(again.logText.suffix(1500))")
            #expect(abs(at.timeIntervalSince(target)) < 1.5, "resumed where the box stopped (4 s in): \(at.timeIntervalSince(start)) s")
        }
    }

    @Test func aRecordingBeingWrittenIsWatchedAsItGrows() async throws {
        try GStreamer.initialize()
        try await offPool {
            let (box, dir) = try Self.startBox()
            defer { box.stop(); try? FileManager.default.removeItem(at: dir) }
            let port = box.port
            let added = try RecordBoxTests.record(["add", "1", "--from", "now", "--to", "+25s", "--title", "Long Red"], port: port)
            let id = String(added.output.prefix { $0 != " " })
            _ = try #require(RecordBoxTests.wait(box, for: id, state: "recording", seconds: 10), "\(box.logText.suffix(1500))")
            #expect(box.request("POST", "/api/v1/tune/2").status == 200)
            #expect(box.waitForSnapshot(seconds: 10, Self.isBlue) != nil)
            Thread.sleep(forTimeInterval: 3)

            let first = box.json("POST", "/api/v1/recordings/\(id)/play?from=start").object
            let place = try #require(first["recording"] as? [String: Any], "\(first) \(box.logText.suffix(1500))")
            #expect(place["growing"] as? Bool == true, "\(place)")
            #expect(box.waitForSnapshot(seconds: 8, Self.isRed) != nil, "the recording being written is on screen")
            let p1 = try #require(Self.time(first["position"]))
            let e1 = try #require(Self.time(first["liveEdge"]))
            Thread.sleep(forTimeInterval: 4)
            let later = box.json("GET", "/api/v1/timeshift").object
            let p2 = try #require(Self.time(later["position"])), e2 = try #require(Self.time(later["liveEdge"]))
            #expect(p2.timeIntervalSince(p1) > 3, "it plays on: \(p1) → \(p2)")
            #expect(e2.timeIntervalSince(e1) > 3, "its end grows: \(e1) → \(e2)")
            // Past the written end the picture follows it: a seek far ahead stays within it.
            let ahead = box.json("POST", "/api/v1/timeshift/seek?by=+60s").object
            let p3 = try #require(Self.time(ahead["position"]), "\(ahead)")
            #expect(p3 <= Date(), "never ahead of what is written: \(p3)")
            #expect(box.waitForSnapshot(seconds: 8, Self.isRed) != nil)
            #expect(box.json("GET", "/api/v1/timeshift").object["paused"] as? Bool == false)
        }
    }
}
