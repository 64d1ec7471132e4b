import Foundation
import GStreamer
import Lineup
import Logging
import Switcher
import TestSupport
import Testing

/// A logo never stands between a viewer and the picture: a flip to a warm channel whose logo is
/// still downloading completes at once, and the logo joins the picture when it arrives.
@Suite(.serialized, .heavy) struct SlowLogoTests {
    /// Serves a red SVG on loopback, but only once the file `gate` exists (at most `limit`
    /// seconds later): the test decides when the download ends, whatever the machine's load.
    func gatedLogoServer(gate: String, limit: Double) throws -> PythonServer {
        try PythonServer(script: """
                import http.server, os, time
                class H(http.server.BaseHTTPRequestHandler):
                    def do_GET(self):
                        end = time.monotonic() + \(limit)
                        while not os.path.exists("\(gate)") and time.monotonic() < end:
                            time.sleep(0.05)
                        body = b'<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="#ff0000"/></svg>'
                        self.send_response(200); self.send_header("Content-Type", "image/svg+xml")
                        self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
                    def log_message(self, *a): pass
                s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
                print(s.server_address[1], flush=True)
                s.serve_forever()
                """)
    }

    /// Red pixels in the top-right quarter of the picture (where the logo goes).
    func redInLogoCorner(_ image: BGRAImage) -> Bool {
        var red = 0
        for y in 0..<(image.height / 2) {
            for x in (image.width / 2)..<image.width {
                let p = image.rgba(x: x, y: y)
                if p.r > 200 && p.g < 60 && p.b < 60 { red += 1 }
            }
        }
        return red > 100
    }

    @Test func flipDoesNotWaitForALogoDownload() async throws {
        try GStreamer.initialize()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-slow-logo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let gate = scratch.appendingPathComponent("gate").path
        // The download cannot end before the test opens the gate (or 300 s pass).
        let server = try gatedLogoServer(gate: gate, limit: 300)
        defer { server.stop() }
        let logo = try #require(URL(string: "http://127.0.0.1:\(server.port)/logo.svg"))
        let lineup = Lineup(channels: [
            Channel(id: "c1", number: ChannelNumber(1), name: "Grey", sources: ["test://color/808080?size=160x90&gop=15"]),
            Channel(id: "c2", number: ChannelNumber(2), name: "Green", sources: ["test://color/00ff00?size=160x90&gop=15"],
                    logo: .remote(logo)),
        ])
        var options = PlayerOptions(sink: .headless, width: 320, height: 180, fps: 30, warm: .all)
        options.bannerSeconds = 0
        let player = try Player(lineup: lineup, options: options,
                                logoCache: LogoCache(directory: scratch.appendingPathComponent("cache").path, timeout: 400,
                                                    policy: LogoSourcePolicy(allowedHosts: ["127.0.0.1"])),
                                logger: Logger(label: "test"))
        try await player.start()
        #expect(await waitUntil(30) { await player.channels().allSatisfy { $0.state.tier == .warm || $0.state.tier == .hot } })

        // The gate stays shut while the flip runs: a flip that waited for the logo could not
        // complete within the minute given here (the download lasts until the gate opens, and
        // the cache would wait 400 s). Not a bound on the flip's time: a loaded test machine
        // has taken seconds for a warm flip.
        let flipping = Task { await player.tune(number: ChannelNumber(2)) }
        let finished = await waitUntil(60) { await player.status().lastFlip?.channel?.number == "2" }
        #expect(finished, "the flip to the channel whose logo is downloading did not complete within 60 s")
        let flip = await flipping.value
        #expect(flip.outcome == .completed)
        #expect(flip.path == .warm)
        let before = try ImageCodec.decode(bytes: try await player.snapshotPNG(width: nil))
        #expect(!redInLogoCorner(before), "the logo cannot be there yet")
        FileManager.default.createFile(atPath: gate, contents: Data())
        #expect(await waitUntil(30) {
            (try? ImageCodec.decode(bytes: try await player.snapshotPNG(width: nil))).map(redInLogoCorner) ?? false
        }, "the logo joins the picture when it arrives")
        await player.shutdown()
    }
}
