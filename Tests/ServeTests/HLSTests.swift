import Foundation
import Headend
import Lineup
import Serve
import Testing

extension ServeTests {
    /// `/hls/{number}/index.m3u8`: segments cut at keyframes from the shared muxer, no re-encoding.
    @Suite struct HLS {
        /// The lines of a playlist: its media sequence, its segments' numbers and durations.
        struct Playlist {
            var mediaSequence: Int?
            var segments: [(number: Int, duration: Double)] = []
            init(_ text: String) {
                var duration: Double?
                for line in text.split(separator: "\n") {
                    if line.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") { mediaSequence = Int(line.dropFirst(22)) }
                    if line.hasPrefix("#EXTINF:") { duration = Double(line.dropFirst(8).split(separator: ",").first ?? "") }
                    if line.hasSuffix(".ts"), let number = Int(line.dropLast(3)), let d = duration { segments.append((number, d)) }
                }
            }
        }

        @Test func theWindowSlidesAndSegmentsFollowTheSourcesGOP() async throws {
            let harness = try await ServeHarness(channels: [
                makeChannel("test://color/00ff80?size=160x90&fps=30&gop=60&tone=550", number: 3),
            ], policy: .none)
            #expect(harness.headend.sources[0].state == .cold)
            let asked = ContinuousClock.now
            let first = try await runTool("curl", ["-s", "-w", "\n%{http_code}", harness.url("/hls/3/index.m3u8")], timeout: 40)
            let coldStart = ContinuousClock.now - asked
            print("HLS: a cold channel's first playlist (2 s GOP) answered after \(coldStart)")
            #expect(first.text.hasSuffix("200"), "\(first.text)")
            // Generous: the channel's start plus one segment, far from the route's own 20 s limit.
            #expect(coldStart < .seconds(15), "the first playlist within a segment's time plus the start: \(coldStart)")
            let opening = Playlist(first.text)
            let oldest = try #require(opening.segments.first, "a segment in the first playlist")
            #expect(opening.mediaSequence == oldest.number)
            #expect(try await runTool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", harness.url("/hls/3/\(oldest.number).ts")]).text == "200")

            // Six segments of 2 s fill the window; after about 14 s the oldest has left it.
            var latest = opening
            let slid = await eventually(within: 60) {
                latest = Playlist((try? await runTool("curl", ["-s", harness.url("/hls/3/index.m3u8")]).text) ?? "")
                return (latest.mediaSequence ?? 0) > oldest.number
            }
            #expect(slid, "#EXT-X-MEDIA-SEQUENCE advances past \(oldest.number): \(latest.mediaSequence ?? -1)")
            #expect(latest.mediaSequence == latest.segments.first?.number, "the media sequence is the first listed segment's")
            #expect(latest.segments.count <= 6, "a window of 6 segments: \(latest.segments.map(\.number))")
            #expect(!latest.segments.contains { $0.number == oldest.number }, "the oldest segment left the playlist")
            let numbers = latest.segments.map(\.number)
            #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 + 1 }, "consecutive segments: \(numbers)")
            let gone = try await runTool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", harness.url("/hls/3/\(oldest.number).ts")])
            #expect(gone.text == "404", "a segment out of the window is gone: \(gone.text)")
            let durations = latest.segments.map(\.duration)
            print("HLS: segment durations \(durations) for a 2 s GOP")
            #expect(durations.allSatisfy { (1.9...2.1).contains($0) }, "one 2 s GOP per segment: \(durations)")
            let newest = try #require(latest.segments.last)
            #expect(try await runTool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", harness.url("/hls/3/\(newest.number).ts")]).text == "200")
            await harness.stop()
        }

        @Test func aColdChannelsPlaylistHasKeyframeSegmentsThatFFprobeReads() async throws {
            let harness = try await ServeHarness(channels: [
                makeChannel("test://color/ff0000?size=160x90&fps=30&gop=15", number: 1),
                makeChannel("test://color/ff00ff?size=320x180&fps=30&gop=30&tone=330", number: 2),
            ], policy: .none)
            #expect(harness.headend.sources[1].state == .cold)
            let first = try await runTool("curl", ["-s", "-w", "\n%{http_code}", harness.url("/hls/2/index.m3u8")], timeout: 40)
            #expect(first.text.hasSuffix("200") && first.text.contains("#EXTINF:"), "the cold channel's playlist comes with a segment: \(first.text)")

            // A few segments later: a sliding live playlist of ~2 s segments.
            let grown = await eventually(within: 20) {
                let text = (try? await runTool("curl", ["-s", harness.url("/hls/2/index.m3u8")]).text) ?? ""
                return text.components(separatedBy: "#EXTINF:").count - 1 >= 3
            }
            #expect(grown, "three segments within 20 s")
            let playlist = try await runTool("curl", ["-s", harness.url("/hls/2/index.m3u8")]).text
            #expect(playlist.hasPrefix("#EXTM3U") && playlist.contains("#EXT-X-TARGETDURATION:") && !playlist.contains("#EXT-X-ENDLIST"))
            let durations = playlist.split(separator: "\n").filter { $0.hasPrefix("#EXTINF:") }
                .compactMap { Double($0.dropFirst(8).split(separator: ",").first ?? "") }
            #expect(durations.dropFirst().allSatisfy { (1.9...3.1).contains($0) }, "segments of about 2 s cut at 1 s keyframes: \(durations)")

            let segment = try #require(playlist.split(separator: "\n").last { $0.hasSuffix(".ts") })
            let probe = try await runTool("ffprobe", [
                "-v", "error", "-of", "json", "-show_streams", "-show_packets", "-show_format", harness.url("/hls/2/\(segment)"),
            ], timeout: 30)
            let json = try JSONSerialization.jsonObject(with: probe.output) as? [String: Any] ?? [:]
            let streams = json["streams"] as? [[String: Any]] ?? []
            #expect(Set(streams.compactMap { $0["codec_name"] as? String }) == ["h264", "aac"], "\(probe.errors)")
            #expect(streams.first { $0["codec_type"] as? String == "video" }?["width"] as? Int == 320)
            let packets = (json["packets"] as? [[String: Any]] ?? []).filter { $0["codec_type"] as? String == "video" }
            #expect((packets.first?["flags"] as? String)?.hasPrefix("K") == true, "a segment starts with a keyframe")
            #expect(packets.count >= 55 && packets.count <= 95, "about 2 s of 30 fps video: \(packets.count) frames")

            let whole = try await runTool("ffprobe", ["-v", "error", "-of", "csv", "-show_entries", "stream=codec_name",
                                                      harness.url("/hls/2/index.m3u8")], timeout: 30)
            #expect(whole.text.contains("h264") && whole.text.contains("aac"), "ffprobe plays the playlist: \(whole.text) \(whole.errors)")
            #expect(try await runTool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", harness.url("/hls/2/999999.ts")]).text == "404")
            #expect(try await runTool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", harness.url("/hls/8/index.m3u8")]).text == "404")
            await harness.stop()
        }
    }
}
