import Foundation
import GStreamer
import TestSupport
import Testing

/// Parental locks on the real box: a generated XMLTV guide whose programmes change a few seconds
/// apart, `flipbox pin set`, a remote typing the PIN through an evdev device, the API. The lock
/// card and the PIN dots are checked by the pixels of the snapshot.
@Suite(.serialized) struct ParentalLockTests {
    // Output 640x360: the lock card's 1280x720 design at half size.
    static let cardBackground = (21.0, 19.0, 31.0)
    static let padlock = (240.0, 192.0, 96.0)

    struct Programme {
        var title: String
        var start: Date
        var stop: Date
        var rating: String?
    }

    static func guide(_ programmes: [Programme]) -> String {
        let body = programmes.map { p in
            """
              <programme channel="one.example" start="\(GuideStatusTests.xmltvTime(p.start))" stop="\(GuideStatusTests.xmltvTime(p.stop))">
                <title>\(p.title)</title>\(p.rating.map { #"<rating system="VCHIP"><value>\#($0)</value></rating>"# } ?? "")
              </programme>
            """
        }.joined(separator: "\n")
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <tv>
              <channel id="one.example"><display-name>Green One</display-name></channel>
            \(body)
            </tv>
            """
    }

    /// The lock card: its dark background, the padlock, and bright title text.
    static func showsLockCard(_ img: BGRAImage) -> Bool {
        let (r, g, b) = cardBackground
        let (pr, pg, pb) = padlock
        return img.looks(r, g, b, atX: 40, y: 40, tolerance: 20) && img.looks(r, g, b, atX: 600, y: 330, tolerance: 20)
            && img.looks(pr, pg, pb, atX: 302, y: 92, size: 4, tolerance: 40)
            && brightPixels(img, x: 250, y: 112, width: 140, height: 34) > 60
    }

    static func brightPixels(_ img: BGRAImage, x: Int, y: Int, width: Int, height: Int) -> Int {
        img.countPixels(x: x, y: y, width: width, height: height) { 0.299 * $0 + 0.587 * $1 + 0.114 * $2 > 200 }
    }

    /// The luma at the centre of PIN dot `index` of four (dots at y 260, x 272, 304, 336, 368).
    static func dotLuma(_ img: BGRAImage, _ index: Int) -> Double {
        let m = img.meanRGB(x: 272 + 32 * index - 2, y: 258, width: 4, height: 4)
        return 0.299 * m.r + 0.587 * m.g + 0.114 * m.b
    }

    @Test func aBoundaryIntoLockedContentShowsTheLockCardAndThePINUnlocksIt() async throws {
        try await offPool { try self.lockAtTheBoundary() }
    }

    func lockAtTheBoundary() throws {
        try GStreamer.initialize()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-parental-\(UUID().uuidString)")
        let state = dir.appendingPathComponent("state")
        let devices = dir.appendingPathComponent("input")
        try FileManager.default.createDirectory(at: devices, withIntermediateDirectories: true)

        // The PIN, set as a person would (not a terminal: one line on standard input).
        let pinSet = runFlipbox(["pin", "set", "--state-dir", state.path], input: "2468\n")
        #expect(pinSet.status == 0, "\(pinSet.output)")
        let pinFile = state.appendingPathComponent("pin.json").path
        #expect((try? FileManager.default.attributesOfItem(atPath: pinFile))?[.posixPermissions] as? Int == 0o600)
        #expect(!(try String(contentsOfFile: pinFile, encoding: .utf8)).contains("2468"))
        #expect(runFlipbox(["pin", "set", "--state-dir", state.path], input: "12\n").output.contains("4 to 8 digits"))

        let guideFile = dir.appendingPathComponent("guide.xml")
        let now = Date()
        try Self.guide([Programme(title: "Cartoon Hour", start: now.addingTimeInterval(-600), stop: now.addingTimeInterval(3600), rating: "TV-G")])
            .write(to: guideFile, atomically: true, encoding: .utf8)
        let yaml = """
            guide: guide.xml
            settings:
              parental:
                VCHIP: TV-PG
            channels:
              - number: 1
                name: Green One
                id: one.example
                source: test://color/00ff00?size=160x90&fps=15&gop=15&tone=440
              - number: 2
                name: Late Blue
                id: blue
                rating: TV-MA
                source: test://color/0000ff?size=160x90&fps=15&gop=15
            """
        let lineup = dir.appendingPathComponent("lineup.yaml")
        try yaml.write(to: lineup, atomically: true, encoding: .utf8)
        let box = try FlipboxProcess(arguments: [lineup.path, "--size", "640x360", "--input", "evdev:\(devices.path)"],
                                     port: freePort(), stateDirectory: state)
        defer { box.stop() }
        let started = box.waitForStatus(seconds: 40) { s in
            (s["channel"] as? [String: Any])?["number"] as? String == "1" && (s["now"] as? [String: Any])?["title"] as? String == "Cartoon Hour"
        }
        try #require(started, "the box did not start on channel 1 with its guide:\n\(box.logText.suffix(1500))")
        #expect(box.waitForSnapshot(seconds: 10) { $0.looks(0, 255, 0, atX: 320, y: 200) } != nil, "an allowed programme plays")
        let remote = try EvdevFIFORemote(directory: devices)
        defer { remote.close() }

        // The guide changes: a TV-MA programme a few seconds from now, allowed again after it.
        let boundary = Date().addingTimeInterval(6)
        try Self.guide([
            Programme(title: "Cartoon Hour", start: now.addingTimeInterval(-600), stop: boundary, rating: "TV-G"),
            Programme(title: "Midnight Thriller", start: boundary, stop: boundary.addingTimeInterval(60), rating: "TV-MA"),
            Programme(title: "Morning News", start: boundary.addingTimeInterval(60), stop: boundary.addingTimeInterval(3600), rating: "TV-G"),
        ]).write(to: guideFile, atomically: true, encoding: .utf8)
        let events = try EventRecorder(url: "http://127.0.0.1:\(box.port)/api/v1/events")
        #expect(box.request("POST", "/api/v1/guide/refresh", timeout: 30).status == 200)
        #expect(box.waitForStatus(seconds: 10) { ($0["next"] as? [String: Any])?["title"] as? String == "Midnight Thriller" })
        Thread.sleep(until: boundary.addingTimeInterval(-1.5))
        #expect(box.json("GET", "/api/v1/status").object["locked"] is NSNull, "not locked before the boundary")
        #expect((try box.snapshot()).looks(0, 255, 0, atX: 320, y: 200), "green until the boundary")

        // At the boundary: the lock card, on the live channel, with no flip asked for.
        let card = box.waitForSnapshot(seconds: 15) { Self.showsLockCard($0) }
        #expect(card != nil, "the lock card after the boundary; log:\n\(box.logText.suffix(1500))")
        let status = box.json("GET", "/api/v1/status").object
        #expect(status["locked"] as? String == "Rated TV-MA, over VCHIP TV-PG", "\(status)")
        #expect((status["channel"] as? [String: Any])?["number"] as? String == "1")

        // A wrong PIN from the remote: still locked, said on screen.
        remote.type([2, 2, 2, 2])
        remote.press(EvdevFIFORemote.enter)
        #expect(box.waitForStatus(seconds: 10) { _ in box.logText.contains("a wrong PIN was given for channel 1") })
        #expect(!box.logText.contains("2222"), "the PIN is never logged")
        #expect(box.json("GET", "/api/v1/status").object["locked"] as? String != nil)

        // Two digits: two filled dots, two empty places.
        remote.type([2, 4])
        let dots = box.waitForSnapshot(seconds: 10) { Self.dotLuma($0, 0) > 200 && Self.dotLuma($0, 1) > 200 }
        #expect(dots != nil, "two PIN dots")
        if let dots {
            #expect(Self.dotLuma(dots, 2) < 90 && Self.dotLuma(dots, 3) < 90,
                    "places 3 and 4 are empty rings: \(Self.dotLuma(dots, 2)), \(Self.dotLuma(dots, 3))")
            #expect(Self.showsLockCard(dots), "the dots sit on the lock card")
        }
        remote.type([6, 8])
        remote.press(EvdevFIFORemote.enter)
        #expect(box.waitForStatus(seconds: 15) { $0["locked"] is NSNull && ($0["lastFlip"] as? [String: Any])?["ok"] as? Bool == true },
                "the right PIN unlocks; log:\n\(box.logText.suffix(1500))")
        #expect(box.waitForSnapshot(seconds: 10) { $0.looks(0, 255, 0, atX: 320, y: 200) } != nil, "the programme plays after the PIN")

        // A channel rated TV-MA by the lineup: the flip ends failed(locked) with its lock card.
        let flip = box.json("POST", "/api/v1/tune/2")
        #expect(flip.status == 403 && flip.object["failure"] as? String == "locked", "\(flip.object)")
        #expect(box.waitForSnapshot(seconds: 15) { Self.showsLockCard($0) } != nil, "channel 2's lock card")
        #expect(!((try box.snapshot()).looks(0, 0, 255, atX: 320, y: 200)), "never a frame of the locked channel")
        let thumbnail = box.request("GET", "/api/v1/channels/2/thumbnail.jpg")
        #expect(thumbnail.status == 409 && String(decoding: thumbnail.body, as: UTF8.self).contains("locked"), "no thumbnail of locked content")
        #expect(box.request("POST", "/api/v1/pip?channel=2").status == 403, "nor a picture-in-picture window")

        // Wrong PINs over the API (the right one cleared the count): 403 four times, then the fifth
        // starts a 30 s wait.
        for i in 1...4 {
            let r = box.request("POST", "/api/v1/unlock", body: #"{"pin": "9999"}"#)
            #expect(r.status == 403, "wrong PIN \(i): \(r.status)")
        }
        let fifth = box.response("POST", "/api/v1/unlock", body: #"{"pin": "9999"}"#)
        #expect(fifth.status == 403 && fifth.headers["retry-after"] == "30", "the fifth wrong PIN starts the wait: \(fifth)")
        let waiting = box.response("POST", "/api/v1/unlock", body: #"{"pin": "2468"}"#)
        #expect(waiting.status == 429 && Int(waiting.headers["retry-after"] ?? "") ?? 0 > 0, "even the right PIN waits: \(waiting)")
        let recorded = events.stop()
        #expect(recorded.contains { $0.event == "lock-shown" && ($0.data["channel"] as? [String: Any])?["number"] as? String == "1" })
        #expect(recorded.contains { $0.event == "lock-hidden" })
        box.stop()
        #expect(!box.logText.contains("Fatal error"))

        // The count survives a restart.
        let again = try FlipboxProcess(arguments: [lineup.path, "--size", "320x180"], port: freePort(), stateDirectory: state)
        defer { again.stop() }
        #expect(again.waitForStatus(seconds: 40) { $0["channel"] is [String: Any] })
        let afterRestart = again.response("POST", "/api/v1/unlock", body: #"{"pin": "2468", "channel": "2"}"#)
        #expect(afterRestart.status == 429, "after a restart: \(afterRestart)")
    }
}

/// A remote plugged into the box: a FIFO in its evdev directory carrying kernel key records.
final class EvdevFIFORemote: @unchecked Sendable {
    static let enter: UInt16 = 28
    private var fd: Int32 = -1

    init(directory: URL, name: String = "event7") throws {
        let fifo = directory.appendingPathComponent(name).path
        guard mkfifo(fifo, 0o600) == 0 else { throw TestFailure("mkfifo \(fifo) failed") }
        let deadline = Date().addingTimeInterval(15)
        while fd < 0 && Date() < deadline {
            fd = open(fifo, O_WRONLY | O_NONBLOCK)
            if fd < 0 { Thread.sleep(forTimeInterval: 0.05) }
        }
        guard fd >= 0 else { throw TestFailure("the box did not open \(fifo)") }
    }

    /// Presses and releases `code` (a Linux KEY_* code).
    func press(_ code: UInt16) {
        for value: Int32 in [1, 0] {
            var record = [UInt8](repeating: 0, count: 16)
            record += withUnsafeBytes(of: UInt16(1).littleEndian, Array.init) // EV_KEY
            record += withUnsafeBytes(of: code.littleEndian, Array.init)
            record += withUnsafeBytes(of: value.littleEndian, Array.init)
            _ = record.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        }
        Thread.sleep(forTimeInterval: 0.08)
    }

    /// Types digits (KEY_1 is 2 ... KEY_9 is 10, KEY_0 is 11).
    func type(_ digits: [Int]) {
        for d in digits { press(d == 0 ? 11 : UInt16(d + 1)) }
    }

    func close() {
        if fd >= 0 { _ = Foundation.close(fd) }
        fd = -1
    }
}
