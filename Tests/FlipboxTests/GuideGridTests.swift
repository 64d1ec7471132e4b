import Foundation
import GStreamer
import TestSupport
import Testing

/// The on-screen guide on the real box, opened and moved with a remote's keys (an evdev device),
/// checked by the pixels of the snapshot: the focused programme described on top, the channel
/// logos, the focused programme in yellow, the now line in red, OK tuning the focused channel.
@Suite(.serialized) struct GuideGridTests {
    static let epg: UInt16 = 365, right: UInt16 = 106, down: UInt16 = 108, left: UInt16 = 105, red: UInt16 = 398
    static let focused = (242.0, 194.0, 0.0), cell = (34.0, 49.0, 79.0)

    /// A point of the 1280x720 design on the 640x360 output.
    static func px(_ x: Double, _ y: Double) -> (x: Int, y: Int) { (Int(x / 2), Int(y / 2)) }
    /// The x of `date` in the design, with the window starting at `windowStart` (8 units a minute).
    static func designX(_ date: Date, _ windowStart: Date) -> Double { 300 + date.timeIntervalSince(windowStart) / 60 * 8 }

    @Test func theGuideOpensOnTheProgrammeOnNowMovesAndTunes() async throws {
        try await offPool { try self.guideGrid() }
    }

    func guideGrid() throws {
        try GStreamer.initialize()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-grid-\(UUID().uuidString)")
        let devices = dir.appendingPathComponent("input")
        try FileManager.default.createDirectory(at: devices, withIntermediateDirectories: true)
        // The grid's window starts at the last half hour: the box must draw in the same half hour
        // as the one this test lays out, so a start less than 90 s before a boundary waits it out.
        let toBoundary = 1800 - Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 1800)
        if toBoundary < 90 { Thread.sleep(forTimeInterval: toBoundary + 1) }
        let now = Date()
        let window = Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 1800).rounded(.down) * 1800)
        // On channel 1 the programme on now ends 40 minutes from now; every channel has programmes.
        let firstEnd = now.addingTimeInterval(2400)
        var programmes: [(String, String, Date, Date)] = [
            ("one.example", "Green Morning", window.addingTimeInterval(-1800), firstEnd),
            ("one.example", "Green Afternoon", firstEnd, firstEnd.addingTimeInterval(5400)),
        ]
        for c in 2...6 {
            programmes.append(("c\(c).example", "Show \(c)", window.addingTimeInterval(-600), window.addingTimeInterval(3000)))
            programmes.append(("c\(c).example", "Later \(c)", window.addingTimeInterval(3000), window.addingTimeInterval(9000)))
        }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<tv>\n"
        for id in ["one.example"] + (2...6).map({ "c\($0).example" }) {
            xml += "<channel id=\"\(id)\"><display-name>\(id)</display-name></channel>\n"
        }
        for (channel, title, start, stop) in programmes {
            xml += "<programme channel=\"\(channel)\" start=\"\(GuideStatusTests.xmltvTime(start))\" stop=\"\(GuideStatusTests.xmltvTime(stop))\"><title>\(title)</title></programme>\n"
        }
        xml += "</tv>\n"
        try xml.write(to: dir.appendingPathComponent("guide.xml"), atomically: true, encoding: .utf8)
        let yellow = try writeLogo(dir, name: "yellow", color: "#ffff00")
        var yaml = """
            guide: guide.xml
            settings: {banner-seconds: 0}
            channels:
              - {number: 1, name: Green One, id: one.example, logo: \(yellow), source: "test://color/00ff00?size=160x90&fps=15&gop=15"}

            """
        for c in 2...6 {
            yaml += "  - {number: \(c), name: Red \(c), id: c\(c).example, source: \"test://color/ff0000?size=160x90&fps=15&gop=15\"}\n"
        }
        let lineup = dir.appendingPathComponent("lineup.yaml")
        try yaml.write(to: lineup, atomically: true, encoding: .utf8)
        let box = try FlipboxProcess(arguments: [lineup.path, "--size", "640x360", "--input", "evdev:\(devices.path)"], port: freePort())
        defer { box.stop() }
        let started = box.waitForStatus(seconds: 40) { s in
            (s["channel"] as? [String: Any])?["number"] as? String == "1" && (s["now"] as? [String: Any])?["title"] as? String == "Green Morning"
        }
        try #require(started, "the box did not start with its guide:\n\(box.logText.suffix(1500))")
        let remote = try EvdevFIFORemote(directory: devices)
        defer { remote.close() }
        remote.press(Self.epg)

        // Row 0 is channel 1 (design y 376-438): the programme on now is focused (yellow) right of
        // the now line; channel 2's row below it holds plain cells.
        let focusedAt = Self.px(Self.designX(firstEnd, window) - 14, 396)
        let nowAt = Self.px(Self.designX(now, window), 470)
        let open = box.waitForSnapshot(seconds: 15) { img in
            let (r, g, b) = Self.focused
            return img.looks(r, g, b, atX: focusedAt.x, y: focusedAt.y, size: 4, tolerance: 40)
        }
        try #require(open != nil, "the guide with the focused programme; log:\n\(box.logText.suffix(1500))")
        if let img = open {
            try? Data(try ImageCodec.png(image: img)).write(to: FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-guide-grid.png"))
            #expect(img.looks(18, 28, 51, atX: 600, y: 120, tolerance: 20), "the guide covers the picture: \(img.describe(atX: 600, y: 120))")
            #expect(img.countPixels(x: 30, y: 50, width: 250, height: 22) { $0 > 200 && $1 > 200 && $2 > 200 } > 40,
                    "the focused programme's title on top")
            let playing = box.json("GET", "/api/v1/channels").object["channels"] as? [[String: Any]]
            #expect(playing?.first { $0["number"] as? String == "1" }?["state"] as? String == "hot", "channel 1 plays on underneath")
            // The line is drawn at the time of drawing, a little after `now`: within a minute (8 px) of it.
            #expect(img.countPixels(x: nowAt.x - 2, y: nowAt.y - 20, width: 12, height: 40) { $0 > 150 && $1 < 110 && $2 < 110 } >= 30,
                    "the now line near x \(nowAt.x)")
            let (cr, cg, cb) = Self.cell
            let below = Self.px(Self.designX(window.addingTimeInterval(3000), window) - 14, 396 + 62)
            #expect(img.looks(cr, cg, cb, atX: below.x, y: below.y, size: 4, tolerance: 30), "channel 2's programme, not focused: \(img.describe(atX: below.x, y: below.y))")
            #expect(img.looks(255, 255, 0, atX: 30, y: 203, size: 4, tolerance: 60), "channel 1's logo: \(img.describe(atX: 30, y: 203))")
            #expect(img.countPixels(x: 50, y: 190, width: 90, height: 26) { $0 > 200 && $1 > 200 && $2 > 200 } > 20, "the channel's name")
        }

        // Right: the next programme on channel 1 is focused; the one on now is not any more.
        remote.press(Self.right)
        let nextAt = Self.px(Self.designX(firstEnd, window) + 100, 396)
        let moved = box.waitForSnapshot(seconds: 10) { img in
            let (r, g, b) = Self.focused
            return img.looks(r, g, b, atX: nextAt.x, y: nextAt.y, size: 4, tolerance: 40)
        }
        #expect(moved != nil, "Right focuses Green Afternoon")
        if let moved {
            let (cr, cg, cb) = Self.cell
            #expect(moved.looks(cr, cg, cb, atX: focusedAt.x, y: focusedAt.y, size: 4, tolerance: 30), "Green Morning is plain again")
        }

        // Red on Green Afternoon (not started yet) sets a reminder; the API lists it.
        remote.press(Self.red)
        var reminders: [[String: Any]] = []
        let deadline = Date().addingTimeInterval(10)
        while reminders.isEmpty, Date() < deadline {
            reminders = box.json("GET", "/api/v1/reminders").object["reminders"] as? [[String: Any]] ?? []
            if reminders.isEmpty { usleep(100_000) }
        }
        let reminded = !reminders.isEmpty
        #expect(reminded, "the red key stored a reminder; log:\n\(box.logText.suffix(1000))")
        #expect(reminders.map { "\(($0["channel"] as? [String: Any])?["number"] as? String ?? "?") \($0["title"] as? String ?? "?")" }
                == ["1 Green Afternoon"], "\(reminders)")
        let start = (reminders.first?["start"] as? String).flatMap { try? Date($0, strategy: .iso8601) }
        #expect(start.map { abs($0.timeIntervalSince(firstEnd)) < 1 } == true, "the programme's start: \(String(describing: start))")
        // Left, back on Green Morning, which has started: red sets nothing.
        remote.press(Self.left)
        #expect(box.waitForSnapshot(seconds: 10) { img in
            let (r, g, b) = Self.focused
            return img.looks(r, g, b, atX: focusedAt.x, y: focusedAt.y, size: 4, tolerance: 40)
        } != nil, "Left focuses Green Morning again")
        remote.press(Self.red)
        // Checked again at the end, seconds later, so a slow key cannot pass unnoticed.
        func reminderCount() -> Int { (box.json("GET", "/api/v1/reminders").object["reminders"] as? [[String: Any]])?.count ?? -1 }
        usleep(1_000_000)
        #expect(reminderCount() == 1, "no reminder for a programme that has started")

        // Down, then OK: channel 2 is tuned, a normal flip, and the guide closes.
        remote.press(Self.down)
        remote.press(EvdevFIFORemote.enter)
        #expect(box.waitForStatus(seconds: 15) { ($0["channel"] as? [String: Any])?["number"] as? String == "2" },
                "OK tuned the focused channel; log:\n\(box.logText.suffix(1000))")
        #expect(box.waitForSnapshot(seconds: 10) { $0.looks(255, 0, 0, atX: 320, y: 300) && $0.looks(255, 0, 0, atX: 320, y: 40) } != nil,
                "channel 2 full screen, the guide closed")

        // The same guide over the API: open on the channel on screen, move, tune, closed.
        func focusedNumber(_ answer: (status: Int, object: [String: Any])) -> String? {
            (answer.object["channel"] as? [String: Any])?["number"] as? String
        }
        let opened = box.json("POST", "/api/v1/guide/grid")
        #expect(opened.status == 200 && opened.object["open"] as? Bool == true && focusedNumber(opened) == "2", "\(opened)")
        #expect(box.waitForSnapshot(seconds: 10) { $0.looks(18, 28, 51, atX: 600, y: 120, tolerance: 20) } != nil, "the guide is on screen")
        let sideways = box.json("POST", "/api/v1/guide/grid/move/sideways")
        #expect(sideways.status == 400 && (sideways.object["error"] as? String)?.contains("page-down") == true, "\(sideways)")
        let down = box.json("POST", "/api/v1/guide/grid/move/down")
        #expect(down.status == 200 && focusedNumber(down) == "3", "\(down)")
        let selected = box.json("POST", "/api/v1/guide/grid/select")
        #expect(selected.status == 200 && focusedNumber(selected) == "3", "select answers like a flip: \(selected)")
        #expect(box.json("GET", "/api/v1/guide/grid").object["open"] as? Bool == false)
        #expect(box.json("POST", "/api/v1/guide/grid/move/down").status == 409, "no guide open to move")
        #expect(reminderCount() == 1, "still only the reminder for Green Afternoon")
    }
}
