import Foundation
import GStreamer
import TestSupport
import Testing

/// The web remote's guide page in a real browser (Debian's headless Chromium): the channels with
/// their live pictures, the programmes with the one on now on the channel playing highlighted;
/// checked in the page's DOM and by the pixels of Chromium's screenshot.
@Suite(.serialized) struct WebGuidePageTests {
    static var chromium: String? {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    func runChromium(_ arguments: [String]) -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.chromium ?? "/usr/bin/chromium")
        p.arguments = ["--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                       "--user-data-dir=\(FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-chromium-\(UUID().uuidString)").path)"]
            + arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return "" }
        // A page that never settles must not hang the suite: Chromium gets a minute.
        let watchdog = DispatchWorkItem { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
        defer { watchdog.cancel() }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// The DOM of a page that keeps an event stream open (so it never settles): Chromium stops it
    /// after a few seconds; on a loaded machine the page may not have had its answers by then, so
    /// it is read again with more time, up to three times, until `ready` holds. The last DOM.
    func settledDOM(_ url: String, until ready: (String) -> Bool) -> String {
        var dom = ""
        for milliseconds in [8_000, 16_000, 30_000] {
            dom = runChromium(["--timeout=\(milliseconds)", "--dump-dom", url])
            if ready(dom) { break }
        }
        return dom
    }

    @Test func theGuidePageShowsLivePicturesAndTheProgrammeOnNow() async throws {
        try await offPool { try self.guidePage() }
    }

    func guidePage() throws {
        try GStreamer.initialize()
        try #require(Self.chromium != nil, "Debian's chromium is not installed (deploy/install-deps.sh installs it)")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-webguide-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let now = Date()
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<tv>\n"
        for (id, title) in [("one.example", "Green Morning"), ("two.example", "Red Matinee")] {
            xml += "<channel id=\"\(id)\"><display-name>\(id)</display-name></channel>\n"
            xml += "<programme channel=\"\(id)\" start=\"\(GuideStatusTests.xmltvTime(now.addingTimeInterval(-900)))\" stop=\"\(GuideStatusTests.xmltvTime(now.addingTimeInterval(2700)))\"><title>\(title)</title></programme>\n"
            xml += "<programme channel=\"\(id)\" start=\"\(GuideStatusTests.xmltvTime(now.addingTimeInterval(2700)))\" stop=\"\(GuideStatusTests.xmltvTime(now.addingTimeInterval(9000)))\"><title>Later On</title></programme>\n"
        }
        xml += "</tv>\n"
        try xml.write(to: dir.appendingPathComponent("guide.xml"), atomically: true, encoding: .utf8)
        let yaml = """
            guide: guide.xml
            channels:
              - {number: 1, name: Green One, id: one.example, source: "test://color/00ff00?size=160x90&fps=15&gop=15"}
              - {number: 2, name: Red Two, id: two.example, source: "test://color/ff0000?size=160x90&fps=15&gop=15"}
            """
        let lineup = dir.appendingPathComponent("lineup.yaml")
        try yaml.write(to: lineup, atomically: true, encoding: .utf8)
        let box = try FlipboxProcess(arguments: [lineup.path, "--size", "640x360"], port: freePort())
        defer { box.stop() }
        let ready = box.waitForStatus(seconds: 40) { s in
            (s["channel"] as? [String: Any])?["number"] as? String == "1" && (s["now"] as? [String: Any])?["title"] as? String == "Green Morning"
        }
        try #require(ready, "the box did not start with its guide:\n\(box.logText.suffix(1500))")
        // Both channels warm, so both have a live picture.
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let channels = box.json("GET", "/api/v1/channels").object["channels"] as? [[String: Any]] ?? []
            if channels.count == 2, channels.allSatisfy({ $0["thumbnail"] is String }) { break }
            Thread.sleep(forTimeInterval: 0.3)
        }
        // "Later On" on channel 2 is to be recorded: the page marks it and lists it.
        let later = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: (now.addingTimeInterval(2700).timeIntervalSince1970).rounded(.down)))
        let scheduled = box.response("POST", "/api/v1/recordings", body: #"{"channel": "2", "programme": "\#(later)"}"#)
        #expect(scheduled.status == 201, "\(scheduled.body)")
        let url = "http://127.0.0.1:\(box.port)/guide"

        // The live pictures are fetched after the page's data; on a loaded machine they may come
        // after the first budget, so the page is read again with more time until both are in.
        func pictures(_ dom: String) -> Int { dom.components(separatedBy: #"src="blob:"#).count - 1 }
        var dom = ""
        for budget in [10_000, 20_000, 40_000] {
            dom = runChromium(["--virtual-time-budget=\(budget)", "--dump-dom", url])
            if pictures(dom) == 2 { break }
        }
        #expect(dom.contains("data-loaded=\"yes\""), "the page loaded its data: \(dom.prefix(400))")
        #expect(dom.contains(#"<div class="programme current""#) && dom.range(of: #"class="programme current"[^>]*>Green Morning<"#, options: .regularExpression) != nil,
                "the programme on now on the channel playing is highlighted")
        #expect(dom.contains(">Red Matinee<") && dom.contains(">Later On<"))
        #expect(dom.components(separatedBy: #"<div class="channel"#).count - 1 == 2, "two channels")
        #expect(pictures(dom) == 2, "each with its live picture")
        #expect(dom.range(of: #"class="programme recording"[^>]*>Later On<"#, options: .regularExpression) != nil,
                "the programme to be recorded is marked")
        #expect(dom.range(of: #"<span class="state">scheduled</span><span class="title">Later On</span>"#, options: .regularExpression) != nil,
                "and listed under the guide: \(dom.components(separatedBy: "id=\"recordings\"").last?.prefix(600) ?? "")")

        let shot = dir.appendingPathComponent("guide.png")
        var yellow = 0, green = 0, red = 0
        for budget in [10_000, 20_000, 40_000] {
            try? FileManager.default.removeItem(at: shot)
            _ = runChromium(["--virtual-time-budget=\(budget)", "--window-size=1280,720", "--screenshot=\(shot.path)", url])
            let png = try Data(contentsOf: shot)
            try? png.write(to: FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-web-guide.png"))
            let img = try ImageCodec.decode(bytes: [UInt8](png))
            yellow = img.countPixels(x: 0, y: 0, width: img.width, height: img.height) { abs($0 - 242) < 20 && abs($1 - 194) < 20 && $2 < 40 }
            green = img.countPixels(x: 0, y: 0, width: img.width, height: img.height) { $0 < 40 && $1 > 215 && $2 < 40 }
            red = img.countPixels(x: 0, y: 0, width: img.width, height: img.height) { $0 > 215 && $1 < 40 && $2 < 40 }
            if green > 5000 && red > 5000 { break }
        }
        #expect(yellow > 2000, "the highlighted programme: \(yellow) yellow pixels")
        #expect(green > 5000 && red > 5000, "the two live pictures: \(green) green, \(red) red pixels")
    }

    /// The web remote on a locked channel: its pad types the PIN (the lock panel up, with why);
    /// after the channel is unlocked over the API, the page says nothing is locked.
    @Test func theRemoteTypesThePINWhileTheChannelIsLocked() async throws {
        try await offPool { try self.remoteOnALockedChannel() }
    }

    func remoteOnALockedChannel() throws {
        try GStreamer.initialize()
        try #require(Self.chromium != nil, "Debian's chromium is not installed (deploy/install-deps.sh installs it)")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-webpin-\(UUID().uuidString)")
        let state = dir.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let yaml = """
            settings: {locked: "2"}
            channels:
              - {number: 1, name: Green One, source: "test://color/00ff00?size=160x90&fps=15&gop=15"}
              - {number: 2, name: Red Two, source: "test://color/ff0000?size=160x90&fps=15&gop=15"}
            """
        let lineup = dir.appendingPathComponent("lineup.yaml")
        try yaml.write(to: lineup, atomically: true, encoding: .utf8)
        let pin = runFlipbox(["pin", "set", "--state-dir", state.path], input: "4711\n4711\n")
        try #require(pin.status == 0, "flipbox pin set: \(pin.output)")
        let box = try FlipboxProcess(arguments: [lineup.path, "--size", "640x360", "--start", "2"], port: freePort(), stateDirectory: state)
        defer { box.stop() }
        let locked = box.waitForStatus(seconds: 40) { ($0["locked"] as? String) != nil }
        try #require(locked, "channel 2 did not come up locked:\n\(box.logText.suffix(1500))")
        let url = "http://127.0.0.1:\(box.port)/"
        let entries = box.json("GET", "/api/v1/channels").object["channels"] as? [[String: Any]] ?? []
        #expect(entries.map { $0["locked"] is NSNull } == [true, false], "channel 2 is locked in the list: \(entries.map { $0["locked"] ?? "-" })")
        #expect(entries.last?["now"] is NSNull, "no guide, no programme")

        let dom = settledDOM(url) {
            $0.contains(#"<section id="lock">"#) && $0.range(of: #"<div id="lockReason">[^<]+</div>"#, options: .regularExpression) != nil
        }
        try? dom.write(to: FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-web-remote-locked.html"), atomically: true, encoding: .utf8)
        #expect(dom.contains(#"<section id="lock">"#), "the lock panel is up (not hidden): \(dom.prefix(600))")
        #expect(dom.range(of: #"<div id="lockReason">[^<]+</div>"#, options: .regularExpression) != nil, "it says why")

        // Unlocked (here over the API, as the page's OK sends it): the page shows no lock.
        #expect(box.response("POST", "/api/v1/unlock", body: #"{"pin": "4711"}"#).status == 200)
        #expect(box.waitForStatus(seconds: 10) { $0["locked"] is NSNull })
        let after = settledDOM(url) { $0.contains(#"<section id="lock" hidden="">"#) }
        #expect(after.contains(#"<section id="lock" hidden="">"#), "no lock panel once unlocked: \(after.prefix(600))")
    }
}
