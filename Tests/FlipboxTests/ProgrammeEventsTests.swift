import Foundation
import GStreamer
import TestSupport
import Testing

/// Up next, `programme-changed` and a reminder's proposal on the real box, with a guide whose
/// programmes change a few seconds apart; the notices are checked by the snapshot's pixels and
/// the proposal is answered with OK on a remote (an evdev device).
@Suite(.serialized) struct ProgrammeEventsTests {
    static func guide(_ channels: [(id: String, programmes: [(title: String, start: Date, stop: Date)])]) -> String {
        var body = ""
        for c in channels {
            body += "  <channel id=\"\(c.id)\"><display-name>\(c.id)</display-name></channel>\n"
        }
        for c in channels {
            for p in c.programmes {
                body += """
                      <programme channel="\(c.id)" start="\(GuideStatusTests.xmltvTime(p.start))" stop="\(GuideStatusTests.xmltvTime(p.stop))"><title>\(p.title)</title></programme>

                    """
            }
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<tv>\n\(body)</tv>\n"
    }

    /// White pixels (text) in a box.
    static func whitePixels(_ img: BGRAImage, x: Int, y: Int, width: Int, height: Int) -> Int {
        img.countPixels(x: x, y: y, width: width, height: height) { $0 > 200 && $1 > 200 && $2 > 200 }
    }

    @Test func upNextProgrammeChangedAndAReminderProposalAnsweredWithOK() async throws {
        try await offPool { try self.programmeEvents() }
    }

    func programmeEvents() throws {
        try GStreamer.initialize()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-programmes-\(UUID().uuidString)")
        let devices = dir.appendingPathComponent("input")
        try FileManager.default.createDirectory(at: devices, withIntermediateDirectories: true)
        let guideFile = dir.appendingPathComponent("guide.xml")
        let now = Date()
        try Self.guide([
            ("one.example", [("Cartoon Hour", now.addingTimeInterval(-600), now.addingTimeInterval(3600))]),
            ("sport.example", [("Warm-up", now.addingTimeInterval(-600), now.addingTimeInterval(3600))]),
        ]).write(to: guideFile, atomically: true, encoding: .utf8)
        let yaml = """
            guide: guide.xml
            settings:
              up-next-seconds: 4
              banner-seconds: 0
            channels:
              - {number: 1, name: Green One, id: one.example, source: "test://color/00ff00?size=160x90&fps=15&gop=15"}
              - {number: 2, name: Red Sport, id: sport.example, source: "test://color/ff0000?size=160x90&fps=15&gop=15"}
            """
        let lineup = dir.appendingPathComponent("lineup.yaml")
        try yaml.write(to: lineup, atomically: true, encoding: .utf8)
        let box = try FlipboxProcess(arguments: [lineup.path, "--size", "640x360", "--input", "evdev:\(devices.path)"], port: freePort())
        defer { box.stop() }
        let started = box.waitForStatus(seconds: 40) { s in
            (s["channel"] as? [String: Any])?["number"] as? String == "1" && (s["now"] as? [String: Any])?["title"] as? String == "Cartoon Hour"
        }
        try #require(started, "the box did not start with its guide:\n\(box.logText.suffix(1500))")
        let remote = try EvdevFIFORemote(directory: devices)
        defer { remote.close() }
        let events = try EventRecorder(url: "http://127.0.0.1:\(box.port)/api/v1/events")

        // Channel 1's programme ends in 9 s; "The Match" starts on channel 2 in 14 s.
        let change = Date().addingTimeInterval(9), kickOff = change.addingTimeInterval(5)
        try Self.guide([
            ("one.example", [("Cartoon Hour", now.addingTimeInterval(-600), change), ("Evening News", change, change.addingTimeInterval(3600))]),
            ("sport.example", [("Warm-up", now.addingTimeInterval(-600), kickOff), ("The Match", kickOff, kickOff.addingTimeInterval(3600))]),
        ]).write(to: guideFile, atomically: true, encoding: .utf8)
        #expect(box.request("POST", "/api/v1/guide/refresh", timeout: 30).status == 200)
        let start = ISO8601DateFormatter().string(from: kickOff)
        let reminder = box.request("POST", "/api/v1/reminders", body: #"{"channel": "2", "programme": "\#(start)"}"#)
        #expect(reminder.status == 201, "\(String(decoding: reminder.body, as: UTF8.self))")
        let late = box.request("POST", "/api/v1/reminders", body: #"{"channel": "2", "programme": "2001-01-01T00:00:00Z"}"#)
        #expect(late.status == 404, "no such programme")

        // Before the last 4 s: the top of the picture is plain green.
        Thread.sleep(until: change.addingTimeInterval(-6))
        let before = try box.snapshot()
        #expect(Self.whitePixels(before, x: 120, y: 14, width: 400, height: 30) == 0, "no notice yet")
        // "Up next: Evening News at HH:MM" at the top, in the last 4 s.
        let upNext = box.waitForSnapshot(seconds: 8) { Self.whitePixels($0, x: 120, y: 14, width: 400, height: 30) > 40 }
        #expect(upNext != nil, "the up-next notice; log:\n\(box.logText.suffix(1000))")

        // The proposal at kick-off: a blue box in the middle of the green picture.
        let proposal = box.waitForSnapshot(seconds: 15) { $0.looks(31, 79, 191, atX: 140, y: 165, size: 4, tolerance: 40) }
        #expect(proposal != nil, "the proposal box; log:\n\(box.logText.suffix(1000))")
        #expect(box.waitForStatus(seconds: 3) { ($0["now"] as? [String: Any])?["title"] as? String == "Evening News" })

        // OK on the remote watches it: a normal flip to channel 2.
        remote.press(EvdevFIFORemote.enter)
        #expect(box.waitForStatus(seconds: 15) { ($0["channel"] as? [String: Any])?["number"] as? String == "2" },
                "OK flipped to the proposed channel; log:\n\(box.logText.suffix(1000))")
        #expect(box.waitForSnapshot(seconds: 10) { $0.looks(255, 0, 0, atX: 140, y: 165) && $0.looks(255, 0, 0, atX: 320, y: 250) } != nil,
                "channel 2's picture, the proposal gone")
        let list = box.json("GET", "/api/v1/reminders").object["reminders"] as? [Any]
        #expect(list?.isEmpty == true, "a proposed reminder is spent: \(String(describing: list))")
        #expect(box.json("POST", "/api/v1/proposal/dismiss").status == 409, "nothing proposed any more")

        Thread.sleep(forTimeInterval: 0.3)
        let recorded = events.stop()
        let changed = recorded.filter { $0.event == "programme-changed" }
        #expect(changed.contains { ($0.data["now"] as? [String: Any])?["title"] as? String == "Evening News" }, "\(changed)")
        #expect(recorded.contains { $0.event == "proposal-shown" && $0.data["title"] as? String == "The Match" })
        #expect(recorded.contains { $0.event == "proposal-hidden" })
        let flips = recorded.filter { $0.event == "flip-completed" && ($0.data["channel"] as? [String: Any])?["number"] as? String == "2" }
        #expect(flips.count == 1, "accepting is one flip with one result")
    }
}
