import Foundation
import GStreamer
@testable import Headend
import Lineup
import Testing

extension HeadendTests {
    /// Stalls, reconnects and backup sources, with real senders going away and coming back.
    @Suite struct Supervision {
        init() throws { try GStreamer.initialize() }

        @Test func stoppedSenderStallsAndRecoversByItself() async throws {
            let port = freePort()
            let (source, log) = makeSource(["udp://127.0.0.1:\(port)"])
            await source.start()
            var sender = try LoopbackSender(port: port)
            await expectWarm(source, log: log, audio: true)

            sender.stop()
            let stalledAt = ContinuousClock.now
            let stalled = await eventually(within: 3.5) { log.saw(isStalled) }
            #expect(stalled, "not stalled within 3.5 s of the sender stopping; states: \(log.all.map(\.description))")
            if stalled { #expect(ContinuousClock.now - stalledAt < .seconds(3.5)) }
            #expect(source.state != .warm)
            #expect(source.state.reason != nil, "a channel that is not fine says why: \(source.state)")

            sender = try LoopbackSender(port: port)
            let recovered = await eventually(within: 8) { source.state == .warm && source.cache.hasKeyframe }
            #expect(recovered, "did not return to warm; states: \(log.all.map(\.description))")
            await source.stop()
            sender.stop()
        }

        @Test func deadPrimaryFallsBackToBackup() async throws {
            let dead = freePort()
            var live = freePort()
            while live == dead { live = freePort() }
            let (source, log) = makeSource(["udp://127.0.0.1:\(dead)", "udp://127.0.0.1:\(live)"],
                                           connectTimeout: .seconds(2))
            await source.start()
            let sender = try LoopbackSender(port: live)
            await expectWarm(source, log: log, audio: true, within: 8)
            #expect(log.saw { if case .failed(let e) = $0 { e.contains("\(dead)") } else { false } },
                    "the primary is reported as failed first: \(log.all.map(\.description))")
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
