import Foundation
import GStreamer
import TestSupport
import Testing

/// Starts `flipbox play` headless on synthetic channels and a UDP source on loopback, flips
/// through the HTTP API and checks what the output shows, by its pixels.
@Suite(.serialized) struct EndToEndTests {
    struct Expected {
        var number: String
        var picture: (Double, Double, Double)
        var logo: (Double, Double, Double)?
    }

    // Output 640x360, logo box 12% of the height (43 px, square logos), 5% safe area.
    static let logoCentre = (x: 640 - 32 - 22, y: 18 + 22)
    static let pictureCentre = (x: 320, y: 200)

    func makeLineup(udpPort: Int) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let yellow = try writeLogo(dir, name: "yellow", color: "#ffff00")
        let blue = try writeLogo(dir, name: "blue", color: "#0000ff")
        let white = try writeLogo(dir, name: "white", color: "#ffffff")
        let yaml = """
            channels:
              - number: 1
                name: Red One
                source: test://color/ff0000?size=320x180&fps=30&gop=30&tone=440
                logo: \(yellow)
              - number: 2
                name: Green Two
                source: test://color/00ff00?size=320x180&fps=30&gop=30&tone=880
                logo: \(blue)
              - number: 3
                name: UDP Blue
                source: udp://127.0.0.1:\(udpPort)
                logo: \(white)
              - number: 4
                name: Grey Four
                source: test://color/808080?size=320x180&fps=30&gop=30
            """
        let file = dir.appendingPathComponent("lineup.yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    func expectShows(_ box: FlipboxProcess, _ e: Expected, _ context: String) throws {
        // The snapshot is the frame on the sink when asked; the flip completed before, so it is the new channel.
        let img = try box.snapshot()
        #expect(img.width == 640 && img.height == 360)
        let (pr, pg, pb) = e.picture
        #expect(img.looks(pr, pg, pb, atX: Self.pictureCentre.x, y: Self.pictureCentre.y),
                "\(context): picture should be \(e.picture), is \(img.describe(atX: Self.pictureCentre.x, y: Self.pictureCentre.y))")
        let (lr, lg, lb) = e.logo ?? e.picture
        #expect(img.looks(lr, lg, lb, atX: Self.logoCentre.x, y: Self.logoCentre.y, tolerance: 60),
                "\(context): logo corner should be \(e.logo.map { "\($0)" } ?? "the picture (no logo)"), is \(img.describe(atX: Self.logoCentre.x, y: Self.logoCentre.y))")
    }

    @Test func flipsThroughTheAPIAndShowsEachChannelWithItsLogo() async throws {
        try await offPool { try self.flipThroughTheAPI() }
    }

    /// Starts the UDP sender and `flipbox play` on the test lineup; returns once channel 1 is on
    /// screen and every channel (the UDP one too) has had time to cache a keyframe.
    func startOnChannelOne() throws -> (sender: UDPTestStream, box: FlipboxProcess) {
        let udpPort = freePort()
        let sender = try UDPTestStream(port: udpPort, rgb: 0x0000FF)
        let lineup = try makeLineup(udpPort: udpPort)
        let box = try FlipboxProcess(arguments: [lineup.path, "--size", "640x360"], port: freePort())
        let started = box.waitForStatus(seconds: 30) { ($0["channel"] as? [String: Any])?["number"] as? String == "1" }
        if !started {
            box.stop()
            sender.stop()
        }
        try #require(started, "flipbox did not start on channel 1:\n\(box.logText)")
        Thread.sleep(forTimeInterval: 2.5)
        return (sender, box)
    }

    func flipThroughTheAPI() throws {
        let (sender, box) = try startOnChannelOne()
        defer { sender.stop(); box.stop() }
        let port = box.port
        let events = try EventRecorder(url: "http://127.0.0.1:\(port)/api/v1/events")
        Thread.sleep(forTimeInterval: 0.3)

        let red = Expected(number: "1", picture: (255, 0, 0), logo: (255, 255, 0))
        let green = Expected(number: "2", picture: (0, 255, 0), logo: (0, 0, 255))
        let blue = Expected(number: "3", picture: (0, 0, 255), logo: (255, 255, 255))
        let grey = Expected(number: "4", picture: (128, 128, 128), logo: nil)
        try expectShows(box, red, "start")

        var requestIDs: [Int] = []
        func flip(_ path: String, to e: Expected) throws {
            let r = box.json("POST", path)
            #expect(r.status == 200, "\(path): HTTP \(r.status) \(r.object)")
            #expect(r.object["ok"] as? Bool == true, "\(path): \(r.object)")
            #expect((r.object["channel"] as? [String: Any])?["number"] as? String == e.number, "\(path): \(r.object)")
            #expect((r.object["latencyMs"] as? Double).map { $0 > 0 && $0 < 8000 } == true, "\(path): latency \(r.object)")
            if let id = r.object["requestId"] as? Int { requestIDs.append(id) }
            try expectShows(box, e, path)
        }
        try flip("/api/v1/flip/next", to: green)
        try flip("/api/v1/flip/next", to: blue)      // the UDP source
        try flip("/api/v1/flip/next", to: grey)      // no logo
        try flip("/api/v1/flip/next", to: red)       // wraps around
        try flip("/api/v1/flip/previous", to: grey)  // wraps back
        try flip("/api/v1/tune/2", to: green)
        try flip("/api/v1/recall", to: grey)
        try flip("/api/v1/tune/3", to: blue)

        let unknown = box.json("POST", "/api/v1/tune/99")
        #expect(unknown.status == 404)
        #expect((unknown.object["error"] as? String)?.contains("99") == true, "\(unknown.object)")
        let malformed = box.request("POST", "/api/v1/tune/abc")
        #expect(malformed.status == 400)

        let status = box.json("GET", "/api/v1/status")
        #expect((status.object["channel"] as? [String: Any])?["number"] as? String == "3")
        let channels = box.json("GET", "/api/v1/channels").object["channels"] as? [[String: Any]] ?? []
        #expect(channels.count == 4)
        #expect(channels.first { $0["number"] as? String == "3" }?["state"] as? String == "hot")
        #expect(channels.first { $0["number"] as? String == "1" }?["state"] as? String == "warm")

        Thread.sleep(forTimeInterval: 0.3)
        let recorded = events.stop()
        let completions = recorded.filter { $0.event == "flip-completed" }
        for id in requestIDs {
            let n = completions.filter { ($0.data["requestId"] as? Int) == id }.count
            #expect(n == 1, "request \(id) completed \(n) times")
        }
        #expect(recorded.contains { $0.event == "flip-started" })
        box.stop()
        #expect(!box.logText.contains("Fatal error"), "\(box.logText)")
    }

    @Test func heldKeyRetargetsAndEndsOnTheLastChannelAskedFor() async throws {
        try await offPool { try self.holdTheNextKey() }
    }

    func holdTheNextKey() throws {
        let (sender, box) = try startOnChannelOne()
        defer { sender.stop(); box.stop() }

        // Six "next" presses 30 ms apart: 1 -> 3 (six steps around four channels).
        let results = ResultList()
        let group = DispatchGroup()
        for i in 0..<6 {
            group.enter()
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(30 * i)) {
                results.append(box.json("POST", "/api/v1/flip/next").object)
                group.leave()
            }
        }
        #expect(group.wait(timeout: .now() + 30) == .success)
        let all = results.items
        #expect(all.count == 6)
        let ids = Set(all.compactMap { $0["requestId"] as? Int })
        #expect(ids.count == 6, "every request got its own single result: \(all)")
        for r in all {
            let outcome = r["outcome"] as? String
            #expect(outcome == "completed" || outcome == "superseded", "\(r)")
        }
        #expect(box.waitForStatus(seconds: 5) { ($0["channel"] as? [String: Any])?["number"] as? String == "3" },
                "ended on \(box.json("GET", "/api/v1/status").object)")
        try expectShows(box, Expected(number: "3", picture: (0, 0, 255), logo: (255, 255, 255)), "after held key")
    }
}

final class ResultList: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [[String: Any]] = []
    func append(_ r: [String: Any]) { lock.withLock { list.append(r) } }
    var items: [[String: Any]] { lock.withLock { list } }
}
