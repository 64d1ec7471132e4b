import Foundation
import GStreamer
import LoopbackStreams
import Synchronization
import Testing

/// A box playing a provider's playlist (a YAML lineup naming its URL), as the provider changes
/// it: told to read it again (`SIGHUP`, as `systemctl kill -s HUP flipbox` does; the reading at
/// `lineup-refresh` takes the same way), the box takes the change while it plays, without a
/// restart. A real playlist and real MPEG-TS streams over HTTP on loopback; checked through the
/// box's API and its picture.
@Suite(.serialized) struct LineupRefreshBoxTests {
    static func playlist(_ entries: [(id: String, number: Int, name: String, stream: Int)], base: String) -> String {
        "#EXTM3U\n" + entries.map { e in
            "#EXTINF:-1 tvg-id=\"\(e.id)\" tvg-chno=\"\(e.number)\",\(e.name)\n\(base)/ch/\(e.stream).ts\n"
        }.joined()
    }

    @Test func aProvidersChangesApplyWhileTheBoxPlays() async throws {
        try GStreamer.initialize()
        var clips: [TransportStreamClip] = []
        for colour in [0xE01010, 0x10E010, 0x1010E0] {
            let format = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 4,
                                    bitrateKbps: 300, toneHz: 440, colour: UInt32(colour))
            clips.append(try TransportStreamClip(path: try await format.made(in: ClipFormat.cacheDirectory)))
        }
        let text = Mutex("")
        let server = try LivePoolServer(clips: clips, streams: 8, whenFull: .refuse, other: { connection in
            let body = text.withLock { $0 }
            connection.sendHead(status: 200, reason: "OK", contentType: "audio/x-mpegurl", length: body.utf8.count)
            _ = connection.send(Array(body.utf8)[...])
        })
        defer { server.stop() }
        text.withLock { $0 = Self.playlist([("red", 1, "Red", 0), ("green", 2, "Green", 1)], base: server.base) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-lineup-refresh-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let lineup = directory.appendingPathComponent("box.yaml")
        try """
        lineup: \(server.base)/get.php?username=u&password=p&type=m3u_plus
        settings:
          lineup-refresh: 1h
        """.write(to: lineup, atomically: true, encoding: .utf8)

        let box = try FlipboxProcess(arguments: [lineup.path], port: freePort())
        defer { box.stop() }
        func centre(_ r: Double, _ g: Double, _ b: Double) -> (BGRAImage) -> Bool {
            { $0.looks(r, g, b, atX: $0.width / 2, y: $0.height / 2, tolerance: 70) }
        }
        #expect(box.waitForSnapshot(seconds: 30, centre(230, 30, 30)) != nil, "channel 1 plays: \(box.logText.suffix(1500))")
        func listed() -> [String] {
            let channels = box.json("GET", "/api/v1/channels").object["channels"] as? [[String: Any]] ?? []
            return channels.map { "\($0["number"] as? String ?? "?") \($0["name"] as? String ?? "?")" }
        }
        #expect(listed() == ["1 Red", "2 Green"], "\(box.json("GET", "/api/v1/channels").object)")

        // A recording asked for later tonight on Green.
        let start = Date().addingTimeInterval(3600), formatter = ISO8601DateFormatter()
        let asked = box.request("POST", "/api/v1/recordings", body: """
            {"channel": "2", "start": "\(formatter.string(from: start))", "end": "\(formatter.string(from: start.addingTimeInterval(1800)))", "title": "Green later"}
            """)
        #expect(asked.status == 201, "\(String(decoding: asked.body, as: UTF8.self))")

        // The provider renames Red, drops Green and adds Blue as 3.
        text.withLock { $0 = Self.playlist([("red", 1, "Red HD", 0), ("blue", 3, "Blue", 2)], base: server.base) }
        kill(box.process.processIdentifier, SIGHUP)
        let deadline = Date().addingTimeInterval(20)
        while listed() != ["1 Red HD", "3 Blue"], Date() < deadline { try await Task.sleep(for: .milliseconds(200)) }
        #expect(listed() == ["1 Red HD", "3 Blue"], "\(box.logText.suffix(2000))")
        // Green's recording will not be made, and says why (a new channel may take its number).
        let recordings = box.json("GET", "/api/v1/recordings").object["recordings"] as? [[String: Any]] ?? []
        let green = recordings.first { $0["title"] as? String == "Green later" }
        #expect(green?["state"] as? String == "failed" && green?["error"] as? String == "channel 2 Green is no longer in the lineup", "\(recordings)")
        // Channel 1 never stopped: no new request for its stream since it started.
        #expect(server.requests.filter { $0.channel == 0 }.count == 1, "\(server.requests.map(\.channel))")
        #expect(box.waitForSnapshot(seconds: 5, centre(230, 30, 30)) != nil)

        // Next reaches the new channel; Green's old number does not tune.
        let next = box.json("POST", "/api/v1/flip/next")
        #expect(next.status == 200 && ((next.object["channel"] as? [String: Any])?["number"] as? String) == "3", "\(next.object)")
        #expect(box.waitForSnapshot(seconds: 10, centre(30, 30, 230)) != nil, "the new channel 3 shows")
        let tuneGreen = box.json("POST", "/api/v1/tune/2")
        #expect(tuneGreen.status == 404, "\(tuneGreen.status) \(tuneGreen.object)")
        box.stop()
        #expect(box.logText.contains("lineup: reading it again now (SIGHUP)"), "\(box.logText.suffix(3000))")
        #expect(box.logText.contains("lineup: taken while playing: 2 channels (1 new, 1 gone, 1 changed)"), "\(box.logText.suffix(3000))")
    }
}
