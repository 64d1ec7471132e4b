import Foundation
import Headend
import Lineup
@testable import Serve
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension ServeTests {
    /// `/stream/{number}.ts`: a channel's compressed ingest remuxed into MPEG-TS for real clients.
    @Suite struct StreamRoutes {
        @Test func ffprobeSeesTheSourceCodecsAndAKeyframeFirst() async throws {
            let harness = try await ServeHarness(channels: [makeChannel("test://color/00ff00?size=320x180&fps=30&gop=30&tone=440", number: 1)])
            let source = harness.headend.sources[0]
            let warm = await eventually(within: 10) { source.state == .warm && source.cache.hasKeyframe && source.cache.audioCaps != nil }
            #expect(warm, "channel 1 warm before the client: \(source.state)")
            let probe = try await runTool("ffprobe", [
                "-v", "error", "-of", "json", "-show_streams", "-show_packets", "-read_intervals", "%+#40",
                harness.url("/stream/1.ts"),
            ], timeout: 30)
            #expect(probe.status == 0, "ffprobe failed: \(probe.errors)")
            let json = try JSONSerialization.jsonObject(with: probe.output) as? [String: Any] ?? [:]
            let streams = json["streams"] as? [[String: Any]] ?? []
            let codecs = Set(streams.compactMap { $0["codec_name"] as? String })
            #expect(codecs == ["h264", "aac"], "codecs \(codecs): the source's, not re-encoded")
            let video = streams.first { $0["codec_type"] as? String == "video" }
            #expect(video?["width"] as? Int == 320 && video?["height"] as? Int == 180)
            let packets = json["packets"] as? [[String: Any]] ?? []
            let firstVideo = packets.first { $0["codec_type"] as? String == "video" }
            #expect((firstVideo?["flags"] as? String)?.hasPrefix("K") == true, "the first video packet is a keyframe: \(firstVideo ?? [:])")
            await harness.stop()
        }

        @Test func ffmpegDecodesFramesOfTheChannelsColour() async throws {
            let harness = try await ServeHarness(channels: [makeChannel("test://color/0000ff?size=320x180&fps=30&gop=30", number: 7)])
            let source = harness.headend.sources[0]
            _ = await eventually(within: 10) { source.state == .warm && source.cache.hasKeyframe }
            let decoded = try await runTool("ffmpeg", [
                "-v", "error", "-i", harness.url("/stream/7.ts"), "-frames:v", "5", "-vf", "scale=16:9",
                "-f", "rawvideo", "-pix_fmt", "rgb24", "-",
            ], timeout: 30)
            #expect(decoded.status == 0, "ffmpeg failed: \(decoded.errors)")
            let pixels = [UInt8](decoded.output)
            #expect(pixels.count == 5 * 16 * 9 * 3, "5 decoded frames, got \(pixels.count) bytes")
            guard pixels.count >= 3 else { return }
            let (r, g, b) = (Int(pixels[pixels.count / 2 / 3 * 3]), Int(pixels[pixels.count / 2 / 3 * 3 + 1]), Int(pixels[pixels.count / 2 / 3 * 3 + 2]))
            #expect(b > 200 && r < 60 && g < 60, "blue channel decodes blue, got rgb(\(r), \(g), \(b))")
            await harness.stop()
        }

        @Test func aChannelIsServedByItsIDAsByItsNumber() async throws {
            var channel = makeChannel("test://color/ff0000?size=320x180&fps=30&gop=30&tone=440", number: 4)
            channel.id = "red.one"
            let harness = try await ServeHarness(channels: [channel, makeChannel("test://color/00ff00?size=160x90&fps=30&gop=30", number: 5)])
            let probe = try await runTool("ffprobe", [
                "-v", "error", "-of", "json", "-show_streams", "-show_packets", "-read_intervals", "%+#20",
                harness.url("/stream/id/red.one.ts"),
            ], timeout: 30)
            #expect(probe.status == 0, "ffprobe failed: \(probe.errors)")
            let json = try JSONSerialization.jsonObject(with: probe.output) as? [String: Any] ?? [:]
            let streams = json["streams"] as? [[String: Any]] ?? []
            #expect(Set(streams.compactMap { $0["codec_name"] as? String }) == ["h264", "aac"], "the source's codecs by id")
            #expect(streams.first { $0["codec_type"] as? String == "video" }?["width"] as? Int == 320, "channel 4's picture, not channel 5's")
            let firstVideo = (json["packets"] as? [[String: Any]] ?? []).first { $0["codec_type"] as? String == "video" }
            #expect((firstVideo?["flags"] as? String)?.hasPrefix("K") == true, "it starts at a keyframe like /stream/4.ts")
            let served = await harness.server.servedChannels
            #expect(served.contains(ChannelNumber(4)), "the id names channel 4: \(served)")

            let decoded = try await runTool("ffmpeg", [
                "-v", "error", "-i", harness.url("/stream/id/red.one.ts"), "-frames:v", "3", "-vf", "scale=16:9",
                "-f", "rawvideo", "-pix_fmt", "rgb24", "-",
            ], timeout: 30)
            let pixels = [UInt8](decoded.output)
            #expect(pixels.count == 3 * 16 * 9 * 3, "3 decoded frames: \(decoded.errors)")
            if pixels.count >= 3 {
                let middle = pixels.count / 2 / 3 * 3
                #expect(pixels[middle] > 200 && pixels[middle + 1] < 60 && pixels[middle + 2] < 60, "red by id: \(pixels[middle...middle + 2])")
            }
            let missing = try await runTool("curl", ["-s", "-w", "\n%{http_code}", harness.url("/stream/id/nope.ts")])
            #expect(missing.text.hasSuffix("404") && missing.text.contains("no channel with id 'nope'"), "\(missing.text)")
            await harness.stop()
        }

        @Test func everyClientOfAChannelSharesOneIngestTapAndOneMuxer() async throws {
            let harness = try await ServeHarness(channels: [
                makeChannel("test://color/ffff00?size=160x90&fps=30&gop=15", number: 1),
                makeChannel("test://color/00ffff?size=160x90&fps=30&gop=15", number: 2),
            ])
            let source = harness.headend.sources[0]
            _ = await eventually(within: 10) { source.state == .warm && source.cache.hasKeyframe }
            let tapsBefore = await harness.headend.openTaps.count
            let clients = try (0..<8).map { _ in try RawHTTPClient(port: harness.port, path: "/stream/1.ts") }
            for client in clients { client.startReading() }
            let allFed = await eventually(within: 20) { clients.allSatisfy { $0.bytes > 50_000 } }
            #expect(allFed, "all 8 clients get the stream: \(clients.map(\.bytes))")
            #expect(await harness.server.clientCount == 8)
            let taps = await harness.headend.openTaps
            #expect(taps.count - tapsBefore == 1 && taps.values.filter { $0 == ChannelNumber(1) }.count == 1,
                    "8 clients of channel 1, one tap of its ingest: \(taps)")
            #expect(await harness.server.servedChannels == [ChannelNumber(1)])
            let builds = await harness.server.muxerBuilds(of: harness.headend.lineup.channels[0])
            #expect(builds == 1, "one muxer built for all of them: \(String(describing: builds))")
            for client in clients { client.close() }
            await harness.stop()
        }

        @Test func aColdChannelStartsForItsClientAndGoesColdAfterIt() async throws {
            let harness = try await ServeHarness(channels: [
                makeChannel("test://color/ff0000?size=160x90&fps=30&gop=15", number: 1),
                makeChannel("test://color/00ff00?size=160x90&fps=30&gop=15", number: 2),
            ], policy: .none) { $0.streams.linger = .milliseconds(200) }
            let cold = harness.headend.sources[1]
            #expect(cold.state == .cold, "no policy keeps channel 2 warm")
            let probe = try await runTool("ffprobe", [
                "-v", "error", "-of", "json", "-show_packets", "-read_intervals", "%+#10", harness.url("/stream/2.ts"),
            ], timeout: 30)
            #expect(probe.status == 0, "ffprobe failed: \(probe.errors)")
            let json = try JSONSerialization.jsonObject(with: probe.output) as? [String: Any] ?? [:]
            let packets = json["packets"] as? [[String: Any]] ?? []
            #expect(packets.count >= 10, "the cold channel was started and served: \(packets.count) packets")
            #expect((packets.first?["flags"] as? String)?.hasPrefix("K") == true, "it starts at its first keyframe")
            let released = await eventually(within: 10) { await harness.server.servedChannels.isEmpty }
            #expect(released, "channel 2 is no longer served once its client left")
            let wentCold = await eventually(within: 10) { cold.state == .cold }
            #expect(wentCold, "and the warm plan lets it go cold: \(cold.state)")
            await harness.stop()
        }

        @Test func unknownChannelsAre404AndTheClientLimitIs503() async throws {
            let harness = try await ServeHarness(channels: [makeChannel("test://color/ffffff?size=160x90&fps=30&gop=15", number: 1)]) {
                $0.streams.maxClients = 1
            }
            // HEAD answers like GET without a body, and takes no client's place.
            for _ in 0..<3 {
                let head = try await runTool("curl", ["-s", "-I", "-o", "/dev/null", "-w", "%{http_code}", harness.url("/stream/1.ts")])
                #expect(head.text == "200")
            }
            #expect(await harness.server.clientCount == 0)
            let missing = try await runTool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", harness.url("/stream/42.ts")])
            #expect(missing.text == "404")
            let garbage = try await runTool("curl", ["-s", "-w", "\n%{http_code}", harness.url("/stream/x.ts")])
            #expect(garbage.text.hasSuffix("404") && garbage.text.contains("not a channel number"), "\(garbage.text)")
            // One client holds the only place; the next is told to come back.
            let holder = Task { try await runTool("curl", ["-s", "-o", "/dev/null", "-m", "6", harness.url("/stream/1.ts")], timeout: 10) }
            let holding = await eventually(within: 8) { await harness.server.clientCount == 1 }
            #expect(holding)
            let refused = try await runTool("curl", ["-s", "-D", "-", "-o", "/dev/null", "-w", "%{http_code}", harness.url("/stream/1.ts")])
            #expect(refused.text.hasSuffix("503") && refused.text.lowercased().contains("retry-after"), "\(refused.text)")
            _ = try await holder.value
            await harness.stop()
        }
    }
}
