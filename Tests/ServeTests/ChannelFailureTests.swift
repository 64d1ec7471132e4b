import Foundation
import Headend
import Lineup
import LoopbackStreams
import Serve
import Testing

extension ServeTests {
    /// A served channel whose source goes silent, then sends garbage, then comes back: its
    /// clients stay connected and get data again; the channel's state tells the story.
    @Suite struct ChannelFailure {
        @Test func clientsOfAChannelThatDiesGetDataAgainWhenItComesBack() async throws {
            let format = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 4, bitrateKbps: 400, colour: 0x00FF00)
            let clip = try TransportStreamClip(path: try await format.made(in: ClipFormat.cacheDirectory))
            let port = Int.random(in: 20000...40000)
            let sender = try TransportStreamSender(clip: clip, port: port)
            defer { sender.stop() }
            let harness = try await ServeHarness(channels: [makeChannel("udp://127.0.0.1:\(port)", number: 1)])
            let source = harness.headend.sources[0]
            let warm = await eventually(within: 10) { source.state == .warm && source.cache.hasKeyframe }
            try #require(warm, "the UDP channel is warm: \(source.state)")
            let client = try RawHTTPClient(port: harness.port, path: "/stream/1.ts")
            client.startReading()
            #expect(await eventually(within: 5) { client.bytes > 50_000 }, "the client receives the channel")

            sender.mode = .silent
            let stalled = await eventually(within: 8) { if case .stalled = source.state { true } else { false } }
            #expect(stalled, "the silent channel is stalled: \(source.state)")
            sender.mode = .garbage
            try await Task.sleep(for: .seconds(2))
            let beforeReturn = client.bytes
            sender.mode = .stream
            let back = await eventually(within: 20) { source.state == .warm && client.bytes > beforeReturn + 50_000 }
            #expect(back, "data again once the source is back (\(client.bytes - beforeReturn) bytes since, \(source.state))")
            #expect(!client.isClosedByServer, "the client stayed connected through the failure")
            #expect(await harness.server.clientCount == 1)

            let probe = try await runTool("ffprobe", ["-v", "error", "-of", "csv", "-show_entries", "stream=codec_name,width",
                                                      harness.url("/stream/1.ts")], timeout: 30)
            #expect(probe.text.contains("h264,320"), "a new client plays the channel after it came back: \(probe.text) \(probe.errors)")
            client.close()
            await harness.stop()
        }
    }
}
