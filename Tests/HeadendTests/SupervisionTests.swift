import Foundation
import GStreamer
@testable import Headend
import Lineup
import Testing

extension HeadendTests {
    /// The supervision shell end to end, with a real sender going away and coming back. The
    /// decisions (stall and connect deadlines, backoff, backups) are the pure
    /// `SourceSupervisor`'s, tested with a manual clock in SourceSupervisorTests; this checks that
    /// `ChannelSource` carries them out on real pipelines, with a short stall timeout so it waits
    /// well under a second for each step when all is well.
    @Suite struct Supervision {
        init() throws { try GStreamer.initialize() }

        @Test func stoppedSenderStallsAndRecoversByItself() async throws {
            let port = freePort()
            let (source, log) = makeSource(["udp://127.0.0.1:\(port)"], stallTimeout: .milliseconds(400))
            await source.start()
            var sender = try LoopbackSender(port: port)
            await expectWarm(source, log: log, audio: true)

            sender.stop()
            // Generous bounds: they only matter when supervision is broken.
            let stalled = await eventually(within: 5) { log.saw(isStalled) }
            #expect(stalled, "not stalled after the sender stopped; states: \(log.all.map(\.description))")
            #expect(source.state != .warm)
            #expect(source.state.reason != nil, "a channel that is not fine says why: \(source.state)")

            sender = try LoopbackSender(port: port)
            let recovered = await eventually(within: 8) { source.state == .warm && source.cache.hasKeyframe }
            #expect(recovered, "did not return to warm; states: \(log.all.map(\.description))")
            await source.stop()
            sender.stop()
        }

        @Test func defaultTimeoutsAreTheShippedOnes() async throws {
            // The backup test above injects a short connect timeout; production keeps these.
            #expect(ChannelSource.defaultConnectTimeout == .seconds(10))
            #expect(ChannelSource.defaultStallTimeout == .seconds(2))
            let (source, _) = makeSource(["udp://127.0.0.1:\(freePort())"])
            #expect(source.connectTimeout == .seconds(10))
            #expect(source.stallTimeout == .seconds(2))
        }
    }
}
