import Foundation
import GStreamer
@testable import Headend
import Lineup
import Testing

extension HeadendTests {
    /// HLS with two variants: a warm channel follows the cheap one, a hot one the best.
    @Suite struct VariantTests {
        /// A live packager for one variant: 1 s segments in `dir/name/`, a sliding playlist.
        func liveVariant(_ dir: TempDirectory, _ name: String, rgb: UInt32, width: Int, height: Int, kbps: Int) throws -> Pipeline {
            try FileManager.default.createDirectory(atPath: dir.path(name), withIntermediateDirectories: true)
            let p = try Pipeline(description: """
                videotestsrc is-live=true pattern=solid-color foreground-color=\(0xFF00_0000 | rgb) ! video/x-raw,width=\(width),height=\(height),framerate=30/1 ! \
                x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 bitrate=\(kbps) ! h264parse ! \
                hlssink2 target-duration=1 playlist-length=4 max-files=10 \
                location=\(dir.path("\(name)/s%05d.ts")) playlist-location=\(dir.path("\(name)/p.m3u8"))
                """)
            try p.setState(.playing)
            return p
        }

        @Test func warmFollowsTheLowestVariantAndHotMovesToTheBest() async throws {
            try GStreamer.initialize()
            let dir = try TempDirectory()
            defer { dir.remove() }
            let low = try liveVariant(dir, "low", rgb: 0xFF0000, width: 160, height: 90, kbps: 100)
            defer { low.shutdown() }
            let high = try liveVariant(dir, "high", rgb: 0x0000FF, width: 320, height: 180, kbps: 1500)
            defer { high.shutdown() }
            let ready = await eventually(within: 8) {
                ["low", "high"].allSatisfy { name in
                    ((try? String(contentsOfFile: dir.path("\(name)/p.m3u8"), encoding: .utf8)) ?? "").components(separatedBy: "#EXTINF").count > 3
                }
            }
            #expect(ready, "both packagers wrote three segments")
            // The best variant first: a player that knows nothing starts there.
            try """
                #EXTM3U
                #EXT-X-STREAM-INF:BANDWIDTH=1700000,RESOLUTION=320x180
                high/p.m3u8
                #EXT-X-STREAM-INF:BANDWIDTH=150000,RESOLUTION=160x90
                low/p.m3u8
                """.write(toFile: dir.path("master.m3u8"), atomically: true, encoding: .utf8)
            let server = try HTTPFileServer(directory: dir.url)
            defer { server.stop() }
            let (source, log) = makeSource([server.url("master.m3u8")])
            await source.start()
            await expectWarm(source, log: log, audio: false)
            #expect(source.cache.videoCaps?.int("width") == 160, "warm: the low variant is cached, not \(String(describing: source.cache.videoCaps))")
            try await Task.sleep(for: .milliseconds(1500))
            #expect(source.cache.videoCaps?.int("width") == 160, "and stays on it")

            await source.setHot(1, true)
            let upgraded = await eventually(within: 6) { source.cache.videoCaps?.int("width") == 320 }
            #expect(upgraded, "hot: the best variant, after a segment or two; caps \(String(describing: source.cache.videoCaps))")
            #expect(source.cache.hasKeyframe, "the switch lands on a keyframe")

            await source.setHot(1, false)
            let downgraded = await eventually(within: 6) { source.cache.videoCaps?.int("width") == 160 }
            #expect(downgraded, "back to warm: the low variant again")
            // Each switch is a new demuxer pad; what was built for the old one is taken out.
            let parsebins = await eventually(within: 3) { await source.ingestElements(factory: "parsebin") == 1 }
            let left = await source.ingestElements(factory: "parsebin")
            #expect(parsebins, "one parsebin after two switches, not \(left)")
            let sinks = await source.ingestElements(factory: "appsink")
            #expect(sinks == 1, "one video branch, not \(sinks)")
            await source.stop()
        }
    }
}
