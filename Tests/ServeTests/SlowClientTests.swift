import Foundation
import Headend
import GStreamer
import Lineup
@testable import Serve
import Testing

extension ServeTests {
    /// Each HTTP TS client has its own bounded queue: one that stops reading is dropped, and the
    /// others and the ingest go on.
    @Suite struct SlowClients {
        @Test func aClientThatNeverReadsIsDroppedWithoutStallingAnother() async throws {
            // A 4 Mb/s channel and a bound of 1 MiB: 2 s of stream. The stuck client passes it once its
            // socket buffers are full (a few seconds); the reading one would have to be starved of the
            // CPU for 2 s (with 256 KiB, half a second of load in a parallel test run dropped it too).
            let harness = try await ServeHarness(channels: [makeChannel("test://snow?size=640x360&fps=30&gop=30&bitrate=4000", number: 1)]) {
                $0.streams.clientQueueBytes = 1 << 20
            }
            let source = harness.headend.sources[0]
            _ = await eventually(within: 10) { source.state == .warm && source.cache.hasKeyframe }
            let fast = try RawHTTPClient(port: harness.port, path: "/stream/1.ts")
            fast.startReading()
            let stuck = try RawHTTPClient(port: harness.port, path: "/stream/1.ts", receiveBuffer: 4096)
            let both = await eventually(within: 10) { await harness.server.clientCount == 2 }
            #expect(both, "both clients connected")

            // The stuck client's socket buffers fill, then its queue passes 1 MiB.
            let dropped = await eventually(within: 60) { await harness.server.droppedClients >= 1 }
            #expect(!fast.isClosedByServer, "the client that reads was not dropped (\(fast.bytes) bytes read)")
            if !dropped {
                let diagnosis = await harness.diagnosis(of: source, clients: [fast, stuck])
                Issue.record("the client that never reads is not dropped\n\(diagnosis)")
            }
            let droppedAt = ContinuousClock.now
            // What its socket still holds arrives when it reads at last, and then the stream ends.
            stuck.startReading()
            let closed = await eventually(within: 15) { stuck.isClosedByServer }
            #expect(closed, "its connection is closed, not left hanging (\(stuck.bytes) bytes read)")

            let before = fast.bytes
            try await Task.sleep(for: .seconds(3))
            if fast.bytes <= before + 100_000 {
                let diagnosis = await harness.diagnosis(of: source, clients: [fast, stuck])
                Issue.record("the other client stopped receiving (\(fast.bytes - before) bytes in 3 s)\n\(diagnosis)")
            }
            #expect(fast.longestGap(since: droppedAt) < .seconds(2), "without a stall: longest gap \(fast.longestGap(since: droppedAt))")
            #expect(await harness.server.clientCount == 1)
            #expect(source.state == .warm, "the ingest was never held up: \(source.state)")
            fast.close()
            stuck.close()
            await harness.stop()
        }
    }
}

extension ServeHarness {
    /// What a failing serve test needs to say where the stream stopped: the ingest, the tap, the
    /// muxer, the fanout, the clients, whether the media thread answers, and the newest log lines.
    func diagnosis(of source: ChannelSource, clients: [RawHTTPClient]) async -> String {
        let now = ContinuousClock.now
        func age(_ instant: ContinuousClock.Instant?) -> String { instant.map { "\(now - $0) ago" } ?? "never" }
        let channel = source.channel
        let fanout = await server.fanout(for: channel)
        let builds = await server.muxerBuilds(of: channel)
        let taps = await headend.openTaps
        let started = ContinuousClock.now
        let answered = Answered()
        Task { _ = try? await MediaExecutor.shared.run { answered.set() } }
        let mediaThread = await eventually(within: 5) { answered.value }
        var lines = [
            "ingest: \(source.state), last delivery \(age(source.cache.lastDelivery)), keyframe cached \(source.cache.hasKeyframe)",
            "taps open: \(taps.count); muxer builds: \(builds.map(String.init) ?? "not served")",
            "fanout: \(fanout.map { "\($0.keyframeCount) keyframes, last output \(age($0.lastDelivery)), \($0.subscriberCount) subscribers" } ?? "none")",
            "media thread: \(mediaThread ? "answers in \(ContinuousClock.now - started)" : "does not answer within 5 s")",
        ]
        for (i, client) in clients.enumerated() {
            lines.append("client \(i): \(client.bytes) bytes, closed by server \(client.isClosedByServer)")
        }
        lines.append("log:\n" + recentLog.text())
        return lines.joined(separator: "\n")
    }
}

private final class Answered: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    func set() { lock.withLock { flag = true } }
    var value: Bool { lock.withLock { flag } }
}
