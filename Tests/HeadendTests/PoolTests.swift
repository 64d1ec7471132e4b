import FlipboxCore
import Foundation
import GStreamer
@testable import Headend
import Lineup
import LoopbackStreams
import Synchronization
import Testing
import TestSupport

extension HeadendTests {
    /// Sources that ration their streams: 12 channels from one HTTP server on loopback that gives
    /// 4 streams and refuses the fifth (an HDHomeRun), or gives 2 and ends the oldest when a third
    /// opens (an IPTV panel). With default settings (every channel warm, no limit given), the box
    /// learns the limit, stays within it, and every channel can be watched.
    @Suite(.serialized, .heavy) struct Pools {
        init() throws { try GStreamer.initialize() }

        /// Counts decoded frames per feed (decoder streaming threads).
        final class Frames: DecodedFrameSink, @unchecked Sendable {
            private let lock = NSLock()
            private var counts: [FeedID: Int] = [:]
            func presentVideo(_ frame: Buffer, feed: FeedID) { lock.withLock { counts[feed, default: 0] += 1 } }
            func presentAudio(_ samples: Buffer, feed: FeedID) {}
            func frames(_ feed: FeedID) -> Int { lock.withLock { counts[feed] ?? 0 } }
        }

        static func clips(_ count: Int) async throws -> [TransportStreamClip] {
            var clips: [TransportStreamClip] = []
            for i in 0..<count {
                let format = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 4,
                                        bitrateKbps: 300, hue: i * 30, toneHz: 300 + 20 * i)
                clips.append(try TransportStreamClip(path: try await format.made(in: ClipFormat.cacheDirectory)))
            }
            return clips
        }

        static func lineup(_ server: LivePoolServer, channels: Int) -> Lineup {
            Lineup(channels: (0..<channels).map { makeChannel([server.url(channel: $0)], number: $0 + 1, name: "Pool \($0 + 1)") })
        }

        /// A head-end for `lineup` whose loopback server is said to give `streams` streams.
        static func limitedHeadend(_ lineup: Lineup, streams: Int, policy: WarmPolicy) throws -> Headend {
            var map = StreamPoolMap()
            map.hostLimits = [try #require(StreamPoolMap.HostLimit("127.0.0.1=\(streams)"))]
            return Headend(lineup: lineup, policy: policy, target: DecodeTarget(width: 320, height: 180), logger: testLogger,
                           pools: PoolSettings(map: map))
        }

        /// Flips through `order` as a viewer would: each channel must show pictures within 8 s
        /// of the flip; the previous one stops once the new one shows. Returns the channels that
        /// showed no picture.
        static func flip(through order: [Int], headend: Headend, lineup: Lineup, dwell: Duration,
                         t0: ContinuousClock.Instant = .now) async throws -> [String] {
            let frames = Frames()
            var shown: FeedID?
            var current: Int?
            var failed: [String] = []
            for i in order {
                if ProcessInfo.processInfo.environment["FLIPBOX_TEST_LOG"] != nil { print("FLIP to \(i + 1) at \(ContinuousClock.now - t0)") }
                do {
                    let (feed, _) = try await headend.activate(lineup.channels[i], sink: frames)
                    let showed = await eventually(within: 8) { frames.frames(feed) >= 5 }
                    if let shown { await headend.deactivate(feed: shown) }
                    await headend.applyPolicy(current: i, last: current)
                    if showed {
                        shown = feed
                        current = i
                    } else {
                        failed.append("\(i + 1): no picture within 8 s (\(headend.sources[i].state))")
                        await headend.deactivate(feed: feed)
                        shown = nil
                    }
                } catch {
                    failed.append("\(i + 1): \(error)")
                }
                try await Task.sleep(for: dwell)
            }
            if let shown { await headend.deactivate(feed: shown) }
            return failed
        }

        /// A 4-stream server that refuses the fifth: once refused, the limit is 4 (kept in the
        /// state directory), the pool keeps 3 streams and one free, no channel is asked for again
        /// and again, and every channel can be watched (8 of 12 could never be).
        @Test func aFourStreamServerThatRefusesTheFifth() async throws {
            let server = try LivePoolServer(clips: try await Self.clips(12), streams: 4, whenFull: .refuse)
            defer { server.stop() }
            let lineup = Self.lineup(server, channels: 12)
            let state = try TempDirectory()
            defer { state.remove() }
            let file = LearnedPoolLimits(directory: state.url.path)
            let headend = Headend(lineup: lineup, policy: .all, target: DecodeTarget(width: 320, height: 180), logger: testLogger,
                                  pools: PoolSettings(learnedFile: file))
            await headend.applyPolicy(current: 0, last: nil)
            let pool = server.hostAndPort
            let learned = await eventually(within: 20) { await headend.poolStatus().first?.limit == 4 }
            let statusNow = await headend.poolStatus()
            #expect(learned, "the limit is learned: \(statusNow)")
            let settled = await eventually(within: 10) {
                server.openStreams == 3 && headend.sources.filter { $0.state == .warm }.count == 3
            }
            #expect(settled, "3 warm, 1 free: open \(server.openStreams), states \(headend.states().map(\.description))")
            #expect(server.maxOpen <= 4)
            #expect(server.refusals <= 2, "refused \(server.refusals) times while learning")
            // On 1 (nothing shown yet): 1, its neighbours 2 and 12 warm; 3 is the first held cold.
            #expect(Set(server.openChannels) == [0, 1, 11], "\(server.openChannels)")
            let status = try #require(await headend.poolStatus().first)
            #expect(status.name == pool && status.limitOrigin == "learned")
            #expect(headend.sources[2].state == .parked(reason: "not kept warm: 3 of 4 streams of \(pool) in use, 1 kept free for a flip"))
            #expect(file.load()[pool] == PoolLearning.Learned(streams: 4, evidence: .refusal), "kept for the next start")

            let refusedBefore = server.refusals
            let failed = try await Self.flip(through: Array(1..<12), headend: headend, lineup: lineup, dwell: .milliseconds(300))
            #expect(failed.isEmpty, "every channel shows: \(failed)")
            #expect(server.maxOpen <= 4)
            #expect(server.refusals == refusedBefore, "no request refused once the limit was known (\(server.refusals - refusedBefore) more)")
            // Quiet: nothing asks for a stream again and again.
            // Once the plan has settled (a warm channel may wait half a second for a slot the
            // server frees), nothing is asked of the server while nothing happens.
            try await Task.sleep(for: .seconds(2))
            let served = server.streamsServed.values.reduce(0, +)
            try await Task.sleep(for: .seconds(3))
            #expect(server.streamsServed.values.reduce(0, +) == served, "no stream opened while nothing happens")
            #expect(server.refusals == refusedBefore)
            await headend.shutdown()

            // The next start knows the limit: no refusal at all.
            let again = try LivePoolServer(clips: try await Self.clips(12), streams: 4, whenFull: .refuse)
            defer { again.stop() }
            // (A new server has a new port: the limit kept is moved to its pool, as a box that
            // restarts finds its tuner at the same address.)
            try file.save([again.hostAndPort: .init(streams: 4, evidence: .refusal)])
            let reloaded = Headend(lineup: Self.lineup(again, channels: 12), policy: .all, target: DecodeTarget(width: 320, height: 180),
                                   logger: testLogger, pools: PoolSettings(learnedFile: file))
            await reloaded.applyPolicy(current: 0, last: nil)
            let warm = await eventually(within: 15) { reloaded.sources.filter { $0.state == .warm }.count == 3 }
            #expect(warm, "\(reloaded.states().map(\.description))")
            try await Task.sleep(for: .seconds(1))
            #expect(again.refusals == 0 && again.maxOpen <= 3, "refusals \(again.refusals), most open \(again.maxOpen)")
            await reloaded.shutdown()
        }

        /// A 2-stream server that ends the oldest stream when a third opens: the box learns it
        /// from the first stream ended, then keeps within 2 (the channel on screen and one warm),
        /// every flip shows its channel, and the server ends a handful of streams in the whole run
        /// (hundreds a minute before: each warm channel's reconnect ended another's stream).
        @Test func aTwoStreamServerThatEndsTheOldest() async throws {
            let server = try LivePoolServer(clips: try await Self.clips(12), streams: 2, whenFull: .endsOldest)
            defer { server.stop() }
            let lineup = Self.lineup(server, channels: 12)
            let headend = Headend(lineup: lineup, policy: .all, target: DecodeTarget(width: 320, height: 180), logger: testLogger)
            let t0 = ContinuousClock.now
            await headend.applyPolicy(current: 0, last: nil)
            let learned = await eventually(within: 20) { await headend.poolStatus().first?.limit == 2 }
            let statusNow = await headend.poolStatus()
            #expect(learned, "the limit is learned: \(statusNow)")
            let settled = await eventually(within: 10) { server.openStreams == 2 }
            #expect(settled, "open \(server.openStreams)")
            let endedWhileLearning = server.endedByServer
            #expect(endedWhileLearning <= 2, "ended \(endedWhileLearning) while learning")
            #expect(statusNow.first?.limitOrigin == "learned")

            let failed = try await Self.flip(through: [1, 2, 3, 2, 7, 8, 9, 1, 11, 10], headend: headend, lineup: lineup,
                                             dwell: .milliseconds(500), t0: t0)
            #expect(failed.isEmpty, "every channel shows: \(failed)")
            #expect(server.endedByServer <= 3, "the server ended \(server.endedByServer) streams in the whole run: \(server.endedStreams.map { "\($0.channel + 1) at \($0.at - t0)" }) requests \(server.requests.map { "\($0.channel + 1) at \($0.at - t0)" })")
            // Once the plan has settled (a warm channel may wait half a second for a slot the
            // server frees), nothing is asked of the server while nothing happens.
            try await Task.sleep(for: .seconds(2))
            let served = server.streamsServed.values.reduce(0, +)
            try await Task.sleep(for: .seconds(3))
            #expect(server.streamsServed.values.reduce(0, +) == served, "no stream opened while nothing happens")
            await headend.shutdown()
        }

        /// A flip in a full pool whose every stream is held by what outranks it fails at once,
        /// saying who holds them; a pool with room gives the flip the least valuable warm stream.
        @Test func aFlipIntoAPoolHeldByClientsFailsAtOnceSayingWho() async throws {
            let server = try LivePoolServer(clips: try await Self.clips(3), streams: 1, whenFull: .refuse)
            defer { server.stop() }
            let lineup = Self.lineup(server, channels: 3)
            let headend = try Self.limitedHeadend(lineup, streams: 1, policy: .all)
            await headend.applyPolicy(current: nil, last: nil)
            let tap = try await headend.tap(lineup.channels[2], holder: "client 192.168.1.7")
            defer { tap.close() }
            // The server frees the warm channel's slot a moment after the box let it go: the
            // client's stream may be refused once or twice before it connects.
            #expect(await eventually(within: 10) { headend.sources[2].state == .warm }, "\(headend.states().map(\.description))")
            let refusedBefore = server.refusals
            let asked = ContinuousClock.now
            do {
                _ = try await headend.activate(lineup.channels[0], sink: Frames())
                Issue.record("the flip cannot have a stream")
            } catch let failure as PoolFailure {
                #expect(failure.message == "all 1 stream of \(server.hostAndPort) in use: client 192.168.1.7 on 3")
                #expect(failure.kind == .unavailable)
            }
            #expect(ContinuousClock.now - asked < .milliseconds(500), "at once, not after a timeout")
            #expect(server.refusals == refusedBefore, "nothing was asked of the server")
            #expect(server.openChannels == [2], "the client's stream stays: \(server.openChannels)")
            await headend.shutdown()
        }

        /// A one-tuner server that holds a stream's slot half a second after its client left (a
        /// tuner released late): the first flips after the box let a stream go are refused once,
        /// each refusal doubles the time the box gives that server (150, 300, 600 ms), and from
        /// then on every flip waits that long before it asks, so none is refused again. Every flip
        /// shows its channel, and the server never has two streams of the box open.
        @Test func aServerThatFreesSlotsLateIsGivenLongerUntilNoFlipIsRefused() async throws {
            let server = try LivePoolServer(clips: try await Self.clips(2), streams: 1, whenFull: .refuse, freeDelay: 0.5, retryAfter: nil)
            defer { server.stop() }
            let lineup = Self.lineup(server, channels: 2)
            let headend = try Self.limitedHeadend(lineup, streams: 1, policy: .none)
            let pool = StreamPoolID(server.hostAndPort)
            #expect(await headend.slotRelease(of: pool) == PoolLearning.firstSlotRelease)
            let learning = try await Self.flip(through: [0, 1, 0, 1], headend: headend, lineup: lineup, dwell: .milliseconds(300))
            #expect(learning.isEmpty, "every flip shows its channel: \(learning)")
            let learned = await headend.slotRelease(of: pool)
            #expect(learned >= .milliseconds(500), "the box now waits longer than the server holds a slot: \(learned)")
            #expect(server.refusals >= 1, "the server held a slot longer than the box first waited")

            let refusedBefore = server.refusals
            let after = try await Self.flip(through: [0, 1, 0, 1], headend: headend, lineup: lineup, dwell: .milliseconds(300))
            #expect(after.isEmpty, "every flip shows its channel: \(after)")
            #expect(server.refusals == refusedBefore, "no flip refused once the box waits long enough (\(server.refusals - refusedBefore) more)")
            #expect(server.maxOpen <= 1)
            await headend.shutdown()
        }

        /// Two channels of a loopback server giving `streams` streams (it refuses more), and a
        /// head-end told so, on which channel 1 was flipped to 250 ms ago: a cold flip now is
        /// a press soon after (`keyRepeatSettle`).
        static func channelOneShownAWhile(streams: Int) async throws
            -> (server: LivePoolServer, lineup: Lineup, headend: Headend, frames: Frames, shown: FeedID) {
            let server = try LivePoolServer(clips: try await clips(2), streams: streams, whenFull: .refuse, retryAfter: nil)
            let lineup = lineup(server, channels: 2)
            let headend = try limitedHeadend(lineup, streams: streams, policy: .none)
            let frames = Frames()
            let (shown, _) = try await headend.activate(lineup.channels[0], sink: frames)
            try await Task.sleep(for: .milliseconds(250))
            return (server, lineup, headend, frames, shown)
        }

        /// A flip withdrawn while it waits to connect (the next press came: the switcher cancels
        /// its activation and stops its feed) gives way and opens nothing; the channel on screen
        /// plays on, and nothing of the withdrawn feed is left behind.
        @Test func aFlipWithdrawnWhileItWaitsOpensNothing() async throws {
            // The press after: its cold channel, in a full pool, waits for the next press (about
            // 375 ms) before it makes room.
            let (server, lineup, headend, frames, shown) = try await Self.channelOneShownAWhile(streams: 1)
            defer { server.stop() }
            let withdrawn = FeedID.next()
            let flip = Task { try await headend.activate(lineup.channels[1], feed: withdrawn, sink: frames) }
            try await Task.sleep(for: .milliseconds(50))
            flip.cancel()
            await headend.deactivate(feed: withdrawn)
            do {
                _ = try await flip.value
                Issue.record("the withdrawn flip connected its channel")
            } catch let failure as HeadendFailure {
                #expect(failure.code == .superseded, "\(failure)")
            }
            #expect(await eventually(within: 8) { frames.frames(shown) >= 5 }, "the channel on screen shows: \(headend.sources[0].state)")
            let before = frames.frames(shown)
            #expect(await eventually(within: 5) { frames.frames(shown) >= before + 25 }, "and plays on")
            #expect(server.requests.allSatisfy { $0.channel == 0 }, "the withdrawn channel was never asked for: \(server.requests.map(\.channel))")
            #expect(server.refusals == 0 && server.maxOpen <= 1)
            #expect(await !headend.holds(feed: withdrawn), "nothing of the withdrawn feed is kept")
            #expect(await !headend.sources[1].isRunning)
            #expect(frames.frames(withdrawn) == 0)
            await headend.shutdown()
        }

        /// A feed stopped while its activation waits (not withdrawn: the activation goes on) is
        /// stopped once the activation ends, not before: nothing it starts is left running.
        @Test func aFeedStoppedWhileItsActivationWaitsIsStoppedWhenItEnds() async throws {
            let (server, lineup, headend, frames, shown) = try await Self.channelOneShownAWhile(streams: 2)
            defer { server.stop() }
            let stopped = FeedID.next()
            async let activation = headend.activate(lineup.channels[1], feed: stopped, sink: frames)
            try await Task.sleep(for: .milliseconds(50))
            await headend.deactivate(feed: stopped)
            _ = try await activation
            #expect(await !headend.holds(feed: stopped), "nothing of the stopped feed is kept")
            #expect(headend.sources[1].state != .hot, "its channel is not decoded: \(headend.sources[1].state)")
            #expect(await eventually(within: 8) { frames.frames(shown) >= 5 })
            #expect(frames.frames(stopped) == 0, "no frame of the stopped feed")
            await headend.shutdown()
        }

        /// A served client and a flip asking at once for two channels of a full 2-stream pool
        /// (two warm channels): each makes room while the other waits for its freed slot. Each
        /// counts the other's stream as about to open, so two warm streams go, not one, and the
        /// server never sees three streams of the box or refuses one.
        @Test func aClientAndAFlipMakingRoomAtOnceStayWithinTheLimit() async throws {
            let server = try LivePoolServer(clips: try await Self.clips(4), streams: 2, whenFull: .refuse, retryAfter: nil)
            defer { server.stop() }
            let lineup = Self.lineup(server, channels: 4)
            let headend = try Self.limitedHeadend(lineup, streams: 2, policy: .all)
            await headend.applyPolicy(current: nil, last: nil)
            #expect(await eventually(within: 10) { server.openStreams == 2 && headend.sources.filter { $0.state == .warm }.count == 2 },
                    "two channels warm: \(headend.states().map(\.description))")
            try await Task.sleep(for: .seconds(2))
            let refusedBefore = server.refusals
            let warm = Set(server.openChannels)
            let (client, flipped) = (try #require(Set(0..<4).subtracting(warm).min()), try #require(Set(0..<4).subtracting(warm).max()))
            let frames = Frames()
            async let tapped = headend.tap(lineup.channels[client], holder: "client 192.168.1.7")
            async let activated = headend.activate(lineup.channels[flipped], sink: frames)
            let (tap, (feed, _)) = try await (tapped, activated)
            defer { tap.close() }
            #expect(await eventually(within: 8) { frames.frames(feed) >= 5 }, "the flip shows its channel: \(headend.sources[flipped].state)")
            #expect(await eventually(within: 8) { tap.queuedBytes > 0 }, "the client gets its stream: \(headend.sources[client].state)")
            #expect(server.refusals == refusedBefore, "\(server.refusals - refusedBefore) streams refused")
            #expect(server.maxOpen <= 2, "the server saw \(server.maxOpen) streams at once")
            #expect(Set(server.openChannels) == [client, flipped], "\(server.openChannels)")
            await headend.deactivate(feed: feed)
            await headend.shutdown()
        }

        /// A refusal's `Retry-After` is honoured, on screen too: the box asks again no sooner, then
        /// shows the channel once the server has a stream free (another device held the one
        /// stream for 3 s; the server asked for 4).
        @Test func aRefusalsRetryAfterIsHonouredOnScreenToo() async throws {
            let server = try LivePoolServer(clips: try await Self.clips(2), streams: 1, whenFull: .refuse, retryAfter: 4)
            defer { server.stop() }
            server.occupySlot(seconds: 3)
            let lineup = Self.lineup(server, channels: 2)
            let headend = Headend(lineup: lineup, policy: .none, target: DecodeTarget(width: 320, height: 180), logger: testLogger)
            let frames = Frames()
            let (feed, _) = try await headend.activate(lineup.channels[0], sink: frames)
            let reason = "\(server.hostAndPort) refused the stream (503 Service Unavailable, 805 All Tuners In Use): all its streams are in use"
            let parked = await eventually(within: 5) { headend.sources[0].state == .parked(reason: reason) }
            #expect(parked, "refused, the one stream being taken: \(headend.sources[0].state)")
            let showed = await eventually(within: 12) { frames.frames(feed) >= 5 }
            #expect(showed, "the channel shows once the stream is free: \(headend.sources[0].state)")
            let asks = server.requests.filter { $0.channel == 0 }.map(\.at)
            #expect(asks.count == 2, "asked once, then once after the Retry-After: \(asks.count) requests")
            if asks.count >= 2 { #expect(asks[1] - asks[0] >= .milliseconds(3900), "asked again after \(asks[1] - asks[0])") }
            await headend.deactivate(feed: feed)
            await headend.shutdown()
        }

        /// A server that fails every stream (down, or broken), with a limit of 4: its 3 warm channels
        /// ask it again at most 6 times a minute between them, not each every second.
        @Test func aFailingServerIsAskedAtMostSixTimesAMinuteInTheBackground() async throws {
            let asked = Mutex(0)
            let server = try LoopbackHTTPServer { connection in
                asked.withLock { $0 += 1 }
                connection.sendHead(status: 500, reason: "Internal Server Error", contentType: "text/plain", length: 0)
            }
            defer { server.stop() }
            let lineup = Lineup(channels: (0..<4).map { makeChannel([server.url("/ch/\($0).ts")], number: $0 + 1, name: "Down \($0 + 1)") })
            let headend = try Self.limitedHeadend(lineup, streams: 4, policy: .all)
            await headend.applyPolicy(current: nil, last: nil)
            try await Task.sleep(for: .seconds(20))
            let count = asked.withLock { $0 }
            #expect(count >= 3 && count <= PoolAttempts.perWindow, "asked \(count) times in 20 s (3 warm channels retrying each second: about 60)")
            // 3 warm (one stream kept free for a flip), each saying why it has no picture.
            let failing = headend.sources.filter { if case .failed(let error) = $0.state { error.contains("Internal Server Error") } else { false } }.count
            #expect(failing == 3, "the warm channels say they failed and why: \(headend.states().map(\.description))")
            await headend.shutdown()
        }

        /// `warm-bandwidth` on real ingests: each channel's rate is measured as it arrives, and a
        /// budget of the screen's and the next channel's rates (and half another's) keeps those
        /// two streams open and holds the others cold, saying why.
        @Test func warmChannelsStayWithinTheMeasuredWarmBandwidth() async throws {
            let server = try LivePoolServer(clips: try await Self.clips(6), streams: 64, whenFull: .refuse)
            defer { server.stop() }
            let lineup = Self.lineup(server, channels: 6)
            let headend = try Self.limitedHeadend(lineup, streams: 64, policy: .all)
            await headend.applyPolicy(current: 0, last: nil)
            let measured = await eventually(within: 20) { headend.sources.allSatisfy { $0.cache.bitrate != nil } }
            #expect(measured, "every warm channel's rate is measured: \(headend.sources.map(\.cache.bitrate))")
            let rates = headend.sources.map { $0.cache.bitrate ?? 0 }
            #expect(rates.allSatisfy { (150_000...2_000_000).contains($0) }, "300 kb/s clips in MPEG-TS with sound: \(rates)")
            // On 1: 2 is next, 6 previous. Room for 1 and 2 and half of 6.
            let budget = rates[0] + rates[1] + rates[5] / 2
            await headend.setBudget(WarmBudget(bandwidth: budget))
            await headend.applyPolicy(current: 0, last: nil)
            let settled = await eventually(within: 10) { Set(server.openChannels) == [0, 1] }
            #expect(settled, "the screen and the next channel: \(server.openChannels)")
            let held = headend.sources[5].state.reason ?? ""
            #expect(held.hasPrefix("over the warm bandwidth of \(BitRate.format(bitsPerSecond: budget))"), "\(headend.sources[5].state)")
            await headend.shutdown()
        }
    }
}
