import Foundation
import Lineup
@testable import Serve
import Testing

extension ServeTests {
    /// HLS counts in the client and tuner limits; the HDHomeRun control port lets idle clients go;
    /// a source without keyframes still gets bounded HLS segments. Real head-ends, curl on loopback.
    @Suite struct HeadendLimits {
        static func code(_ url: String, seconds: Int = 25) async throws -> String {
            try await runTool("curl", ["-s", "-o", "/dev/null", "--max-time", "\(seconds)", "-w", "%{http_code}", url], timeout: Double(seconds + 10)).text
        }

        @Test func hlsChannelsTakeClientAndTunerPlaces() async throws {
            let channels = (1...4).map { makeChannel("test://color/00ff00?size=160x90&fps=30&gop=15", number: $0) }
            let harness = try await ServeHarness(channels: channels, policy: .none) {
                $0.streams.maxClients = 3
                $0.device = HDHomeRunDevice(deviceID: HDHomeRunDevice.derivedID(seed: "limits"), tunerCount: 2)
            }
            // Two HLS channels take both tuners; a third is refused as an HDHomeRun is, and so is /auto.
            #expect(try await Self.code(harness.url("/hls/1/index.m3u8")) == "200")
            #expect(try await Self.code(harness.url("/hls/2/index.m3u8")) == "200")
            let third = try await runTool("curl", ["-s", "-D", "-", harness.url("/hls/3/index.m3u8")])
            #expect(third.text.hasPrefix("HTTP/1.1 503") && third.text.contains("all 2 tuners are in use (2 by HLS)"), "\(third.text)")
            let tuner = try await runTool("curl", ["-s", "-D", "-", "--max-time", "3", harness.url("/auto/v4")])
            #expect(tuner.text.lowercased().contains("x-hdhomerun-error: 805"), "\(tuner.text.prefix(300))")
            // One more HTTP client fills the client limit (3, two of them HLS channels); the next is refused.
            async let watching = runTool("curl", ["-s", "-o", "/dev/null", "--max-time", "4", "-w", "%{http_code}", harness.url("/stream/4.ts")], timeout: 15)
            try await Task.sleep(for: .seconds(1.5))
            let beyond = try await runTool("curl", ["-s", "-w", "\n%{http_code}", harness.url("/stream/3.ts")])
            #expect(beyond.text.hasSuffix("503") && beyond.text.contains("already serves 3 clients (2 of them HLS channels)"), "\(beyond.text)")
            #expect(try await watching.text == "200")
            #expect(await harness.server.hlsChannelCount == 2)
            await harness.stop()
        }

        @Test func theHDHomeRunControlPortLetsAnIdleClientGo() async throws {
            let host = HDHomeRun.loopbackAddress()
            let harness = try await ServeHarness(channels: [makeChannel("test://color/ff0000?size=160x90&fps=30&gop=15", number: 3)], policy: .none) {
                $0.host = host
                $0.hdhomerunProtocol = true
                $0.hdhomerunIdleTimeout = .seconds(1)
            }
            // curl's telnet client holds the connection open until the server closes it.
            let run = try await runTool("curl", ["-s", "--max-time", "10", "-o", "/dev/null", "-w", "%{time_total}", "telnet://\(host):65001"],
                                        timeout: 20)
            let took = Double(run.text) ?? 99
            #expect(run.status == 0 && took < 4, "closed by the head-end after its idle timeout: exit \(run.status), \(run.text) s")
            // And the port still answers.
            let model = try await runTool("hdhomerun_config", [host, "get", "/sys/model"], timeout: 20)
            #expect(model.status == 0, "\(model.text) \(model.errors)")
            await harness.stop()
        }

        @Test func aSourceWithoutKeyframesGetsBoundedSegments() async throws {
            // One keyframe every 120 s (the most a test source allows): the first segment would take 2 minutes.
            let harness = try await ServeHarness(channels: [makeChannel("test://color/0000ff?size=160x90&fps=30&gop=3600", number: 1)],
                                                 policy: .none, hlsSegmentDuration: .seconds(3))
            let playlist = try await runTool("curl", ["-s", "--max-time", "25", "-w", "\n%{http_code}", harness.url("/hls/1/index.m3u8")], timeout: 35)
            #expect(playlist.text.hasSuffix("200") && playlist.text.contains("#EXTINF:3."), "\(playlist.text)")
            try await Task.sleep(for: .seconds(4))
            let later = try await runTool("curl", ["-s", harness.url("/hls/1/index.m3u8")]).text
            let durations = later.split(separator: "\n").filter { $0.hasPrefix("#EXTINF:") }.compactMap { Double($0.dropFirst(8).dropLast()) }
            #expect(durations.count >= 2 && durations.allSatisfy { $0 < 3.6 }, "segments cut at 3 s: \(later)")
            #expect(recentLog.text(last: 300).contains("HLS of channel 1 Test: no keyframe came for 3."), "\(recentLog.text())")
            await harness.stop()
        }
    }
}
