import Foundation
import Headend
import Lineup
import Serve
import Testing

extension ServeTests {
    /// Each HTTP TS client has its own bounded queue: one that stops reading is dropped, and the
    /// others and the ingest go on.
    @Suite struct SlowClients {
        @Test func aClientThatNeverReadsIsDroppedWithoutStallingAnother() async throws {
            let harness = try await ServeHarness(channels: [makeChannel("test://snow?size=640x360&fps=30&gop=30&bitrate=4000", number: 1)]) {
                $0.streams.clientQueueBytes = 256 << 10
            }
            let source = harness.headend.sources[0]
            _ = await eventually(within: 10) { source.state == .warm && source.cache.hasKeyframe }
            let fast = try RawHTTPClient(port: harness.port, path: "/stream/1.ts")
            fast.startReading()
            let stuck = try RawHTTPClient(port: harness.port, path: "/stream/1.ts", receiveBuffer: 4096)
            let both = await eventually(within: 10) { await harness.server.clientCount == 2 }
            #expect(both, "both clients connected")

            // The stuck client's socket buffers fill, then its queue passes 256 KiB.
            let dropped = await eventually(within: 60) { await harness.server.droppedClients == 1 }
            #expect(dropped, "the client that never reads is dropped")
            let droppedAt = ContinuousClock.now
            // What its socket still holds arrives when it reads at last, and then the stream ends.
            stuck.startReading()
            let closed = await eventually(within: 15) { stuck.isClosedByServer }
            #expect(closed, "its connection is closed, not left hanging (\(stuck.bytes) bytes read)")

            let before = fast.bytes
            try await Task.sleep(for: .seconds(3))
            #expect(fast.bytes > before + 100_000, "the other client keeps receiving (\(fast.bytes - before) bytes in 3 s)")
            #expect(fast.longestGap(since: droppedAt) < .seconds(2), "without a stall: longest gap \(fast.longestGap(since: droppedAt))")
            #expect(await harness.server.clientCount == 1)
            #expect(source.state == .warm, "the ingest was never held up: \(source.state)")
            fast.close()
            stuck.close()
            await harness.stop()
        }
    }
}
