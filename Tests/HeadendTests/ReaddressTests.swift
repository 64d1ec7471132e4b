import FlipboxCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GStreamer
@testable import Headend
import Lineup
import LoopbackStreams
import Testing
import TestSupport

extension HeadendTests {
    /// A lineup read again gives a channel a new stream address on the same server: the stream
    /// open now goes on, uncut; the next connection takes the new address. A real HTTP server
    /// on loopback with one stream.
    @Suite(.serialized, .heavy) struct ReaddressMedia {
        init() throws { try GStreamer.initialize() }

        @Test func aNewAddressIsTakenAtTheNextConnectionWithoutCuttingTheStream() async throws {
            let server = try LivePoolServer(clips: try await Pools.clips(2), streams: 1, whenFull: .endsOldest, route: { path in
                switch path {
                case "/old.ts": 0
                case "/new.ts": 1
                default: nil
                }
            })
            defer { server.stop() }
            let before = makeChannel([server.base + "/old.ts"], number: 5, name: "Five")
            let headend = Headend(lineup: Lineup(channels: [before]), policy: .all, target: DecodeTarget(width: 320, height: 180),
                                  logger: testLogger)
            await headend.applyPolicy(current: nil, last: nil)
            let source = headend.sources[0]
            try #require(await eventually(within: 10) { source.cache.hasKeyframe })

            var after = before
            after.sources = [server.base + "/new.ts"]
            let (taken, slots) = headend.lineup.taking(Lineup(channels: [after]))
            #expect(slots.changed == [0] && slots.added.isEmpty && slots.retired.isEmpty)
            let outcome = await headend.take(taken, slots: slots)
            #expect(outcome.readdressed == [ChannelNumber(5)], "\(outcome)")
            #expect(source.addresses == [server.base + "/new.ts"] && source.channel.sources == after.sources)
            // The same reading again changes nothing: no slot changes, nothing to take.
            #expect(headend.lineup.taking(Lineup(channels: [after])).slots.isEmpty)

            // The open stream goes on: nothing asked of the new address, the cache still fills.
            let served = server.streamsServed
            try await Task.sleep(for: .seconds(1.5))
            #expect(server.requests.filter { $0.channel == 1 }.isEmpty, "the new address is not asked while the old stream runs")
            #expect(server.streamsServed == served && server.openChannels == [0], "the stream was not cut")
            #expect(source.cache.hasKeyframe)

            // Another client takes the server's one stream (it ends the oldest): the channel
            // connects again, to its new address.
            let other = Task { _ = try? await URLSession.shared.data(from: try #require(URL(string: server.base + "/old.ts"))) }
            defer { other.cancel() }
            let moved = await eventually(within: 15) { server.requests.contains { $0.channel == 1 } && source.openURL == server.base + "/new.ts" }
            #expect(moved, "requests \(server.requests.map(\.channel)), open \(String(describing: source.openURL))")
            #expect(await eventually(within: 10) { source.cache.hasKeyframe }, "the new address delivers")
            await headend.shutdown()
        }

        /// A new address on another server (another pool) is taken too, and that server's
        /// pool is planned with from then on.
        @Test func aNewAddressOnAnotherServerBringsItsPool() async throws {
            let before = makeChannel(["test://ball?size=160x90&fps=25&gop=25"], number: 5, name: "Five")
            let headend = Headend(lineup: Lineup(channels: [before]), policy: .none, target: DecodeTarget(width: 160, height: 90),
                                  logger: testLogger)
            var after = before
            after.sources = ["http://provider.example/five.ts"]
            let (taken, slots) = headend.lineup.taking(Lineup(channels: [after]))
            let outcome = await headend.take(taken, slots: slots)
            #expect(outcome.readdressed == [ChannelNumber(5)], "\(outcome)")
            #expect(headend.sources[0].addresses == after.sources)
            let pool = try #require(headend.poolMap.pool(for: "http://provider.example/five.ts"))
            #expect(await headend.lineupPools.contains(pool))
            await headend.shutdown()
        }
    }
}
