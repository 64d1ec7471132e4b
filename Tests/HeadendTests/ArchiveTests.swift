import FlipboxCore
import Foundation
import GStreamer
@testable import Headend
import Lineup
import LoopbackStreams
import Synchronization
import TestSupport
import Testing

extension HeadendTests {
    /// Catch-up: a seek before what the box holds plays the provider's archive of the channel at
    /// that moment, from a real server on loopback that gives one stream at once and checks the
    /// times it is asked for; each stretch of its archive has its own colour, so the picture says
    /// which moment plays.
    @Suite struct Archive {
        init() throws { try GStreamer.initialize() }

        /// Keeps the newest frame only.
        final class NewestFrame: DecodedFrameSink, Sendable {
            private let newest = Mutex<Buffer?>(nil)
            func presentVideo(_ frame: Buffer, feed: FeedID) { newest.withLock { $0 = frame } }
            func presentAudio(_ samples: Buffer, feed: FeedID) {}

            var colour: (r: Double, g: Double, b: Double)? {
                guard let frame = newest.withLock({ $0 }),
                      let caps = try? Caps("video/x-raw,format=I420,width=320,height=180,framerate=25/1,pixel-aspect-ratio=1/1"),
                      let png = try? ImageCodec.png(frame: frame, caps: caps),
                      let image = try? ImageCodec.decode(bytes: png) else { return nil }
                let m = image.meanRGB(x: 60, y: 40, width: 200, height: 100)
                return (Double(m.r), Double(m.g), Double(m.b))
            }
        }

        @Test(.heavy) func aSeekBeforeTheBufferPlaysTheArchiveAtThatMomentInThePoolsOneStream() async throws {
            let red = try await CodecChange.clip(.h264, colour: 0xFF0000)
            let green = try await CodecChange.clip(.h264, colour: 0x00FF00)
            let blue = try await CodecChange.clip(.h264, colour: 0x0000FF)
            // The archive from `reference` on: green for its first ten minutes, blue after; older
            // than `reference` it has nothing (404).
            let reference = Int(Date().timeIntervalSince1970) - 3600
            let asked = Mutex<[Int]>([])
            let server = try LivePoolServer(clips: [red, green, blue], streams: 1, whenFull: .refuse, route: { path in
                if path == "/live.ts" { return 0 }
                guard path.hasPrefix("/archive/"), path.hasSuffix(".ts"), let utc = Int(path.dropFirst(9).dropLast(3)) else { return nil }
                asked.withLock { $0.append(utc) }
                guard utc >= reference else { return nil }
                return utc < reference + 600 ? 1 : 2
            })
            defer { server.stop() }
            var channel = makeChannel([server.base + "/live.ts"], number: 7, name: "Seven")
            channel.attributes = ["catchup": "default", "catchup-source": server.base + "/archive/{utc}.ts", "catchup-days": "1"]
            var map = StreamPoolMap()
            map.hostLimits = [try #require(StreamPoolMap.HostLimit("127.0.0.1=1"))]
            let headend = Headend(lineup: Lineup(channels: [channel]), policy: .all, target: DecodeTarget(width: 320, height: 180),
                                  logger: testLogger, pools: PoolSettings(map: map))
            defer { Task { await headend.shutdown() } }
            await headend.applyPolicy(current: 0, last: nil)
            let source = headend.sources[0]
            try #require(await eventually(within: 10) { source.state == .warm && source.cache.hasKeyframe }, "not warm: \(source.state)")
            let sink = NewestFrame()
            let (feed, _) = try await headend.activate(channel, sink: sink)
            #expect(await eventually(within: 5) { CodecChange.isRed(sink.colour) }, "live: \(String(describing: sink.colour))")
            let live = await headend.status(feed: feed)
            #expect(live?.catchup == true && live?.live == true && live?.archive == false, "\(String(describing: live))")

            // Without a local buffer (timeshift off), 20:05 of an hour ago plays from the archive.
            let fiveIn = Date(timeIntervalSince1970: Double(reference + 300))
            let first = try await headend.timeshift(feed: feed, .seekTo(fiveIn))
            #expect(first.archive && !first.live && abs(first.position.timeIntervalSince(fiveIn)) < 3, "\(first)")
            #expect(await eventually(within: 5) { CodecChange.isGreen(sink.colour) }, "the archive's first stretch: \(String(describing: sink.colour))")
            #expect(asked.withLock { $0 } == [reference + 300], "the archive is asked for the moment sought: \(asked.withLock { $0 })")
            #expect(source.archiveURL == "\(server.base)/archive/\(reference + 300).ts")

            // Ten minutes on: the archive's second stretch, asked from there.
            let later = try await headend.timeshift(feed: feed, .seekBy(.seconds(600)))
            #expect(later.archive && abs(later.position.timeIntervalSince(fiveIn.addingTimeInterval(600))) < 5, "\(later)")
            #expect(await eventually(within: 5) { CodecChange.isBlue(sink.colour) }, "the archive's second stretch: \(String(describing: sink.colour))")
            let seekFrom = try #require(asked.withLock { $0.last })
            #expect(abs(seekFrom - (reference + 900)) <= 3, "asked from \(seekFrom - reference) s, not 900")

            // Paused, the moment holds; resumed, the archive is asked again from it.
            let paused = try await headend.timeshift(feed: feed, .pause)
            #expect(paused.paused && paused.archive)
            try await Task.sleep(for: .seconds(1.5))
            let stillPaused = try #require(await headend.status(feed: feed))
            #expect(stillPaused.position == paused.position, "a paused archive stays where it is")
            let resumed = try await headend.timeshift(feed: feed, .resume)
            #expect(!resumed.paused && resumed.archive)
            let resumedFrom = try #require(asked.withLock { $0.last })
            #expect(abs(Double(resumedFrom) - paused.position.timeIntervalSince1970) <= 1, "resumed from \(resumedFrom), paused at \(paused.position)")
            #expect(await eventually(within: 5) { CodecChange.isBlue(sink.colour) })

            // Back to now: live again, the channel's own source.
            let back = try await headend.timeshift(feed: feed, .live)
            #expect(back.live && !back.archive, "\(back)")
            #expect(source.archiveURL == nil)
            #expect(await eventually(within: 5) { CodecChange.isRed(sink.colour) }, "live again: \(String(describing: sink.colour))")

            // Farther back than the archive keeps: refused at once, nothing asked.
            let countBefore = asked.withLock { $0.count }
            await #expect(throws: TimeshiftFailure.self) { try await headend.timeshift(feed: feed, .seekTo(Date().addingTimeInterval(-3 * 86_400))) }
            #expect(asked.withLock { $0.count } == countBefore)

            // The archive answers 404 for a moment it lost: said, and back to live.
            let lost = Date(timeIntervalSince1970: Double(reference - 1800))
            let refused = await #expect(throws: TimeshiftFailure.self) { try await headend.timeshift(feed: feed, .seekTo(lost)) }
            #expect(refused?.code == .archive, "\(String(describing: refused))")
            #expect(refused?.message.contains("HTTP 404") == true && refused?.message.contains("back to live") == true, "\(String(describing: refused))")
            let after = try #require(await headend.status(feed: feed))
            #expect(after.live && !after.archive)
            #expect(await eventually(within: 5) { CodecChange.isRed(sink.colour) }, "live after the 404: \(String(describing: sink.colour))")

            // Archive and live took the pool's one stream in turn: never two, never refused.
            #expect(server.maxOpen == 1 && server.refusals == 0, "most open \(server.maxOpen), refused \(server.refusals)")

            // A client served the channel shares its stream: the archive would reach it instead.
            let tap = try await headend.tap(channel, holder: "client 192.168.1.7")
            let shared = await #expect(throws: TimeshiftFailure.self) { try await headend.timeshift(feed: feed, .seekTo(fiveIn)) }
            #expect(shared?.code == .channelShared && shared?.message.contains("client 192.168.1.7") == true, "\(String(describing: shared))")
            #expect(source.archiveURL == nil)
            tap.close()
            await headend.deactivate(feed: feed)
        }

        /// A flip away from a channel playing its archive, in a pool of one stream: the next
        /// channel gets the stream, and the channel left does not reconnect live behind it (which
        /// would end the next channel's stream at a server that ends the oldest).
        @Test(.heavy) func flippingAwayFromTheArchiveLeavesThePoolsStreamToTheNextChannel() async throws {
            let red = try await CodecChange.clip(.h264, colour: 0xFF0000)
            let green = try await CodecChange.clip(.h264, colour: 0x00FF00)
            let blue = try await CodecChange.clip(.h264, colour: 0x0000FF)
            let server = try LivePoolServer(clips: [red, green, blue], streams: 1, whenFull: .endsOldest, route: { path in
                switch path {
                case "/a.ts": 0
                case "/b.ts": 2
                default: path.hasPrefix("/archive/") ? 1 : nil
                }
            })
            defer { server.stop() }
            var a = makeChannel([server.base + "/a.ts"], number: 1, name: "A")
            a.attributes = ["catchup": "default", "catchup-source": server.base + "/archive/{utc}.ts"]
            let b = makeChannel([server.base + "/b.ts"], number: 2, name: "B")
            var map = StreamPoolMap()
            map.hostLimits = [try #require(StreamPoolMap.HostLimit("127.0.0.1=1"))]
            let headend = Headend(lineup: Lineup(channels: [a, b]), policy: .all, target: DecodeTarget(width: 320, height: 180),
                                  logger: testLogger, pools: PoolSettings(map: map))
            defer { Task { await headend.shutdown() } }
            await headend.applyPolicy(current: 0, last: nil)
            let sinkA = NewestFrame()
            let (feedA, _) = try await headend.activate(a, sink: sinkA)
            #expect(await eventually(within: 8) { CodecChange.isRed(sinkA.colour) }, "A live")
            _ = try await headend.timeshift(feed: feedA, .seekTo(Date().addingTimeInterval(-1800)))
            #expect(await eventually(within: 5) { CodecChange.isGreen(sinkA.colour) }, "A's archive")

            // The flip, as the player makes it: the next feed first, then the old one goes.
            let flipped = ContinuousClock.now
            let sinkB = NewestFrame()
            let (feedB, _) = try await headend.activate(b, sink: sinkB)
            await headend.deactivate(feed: feedA)
            await headend.applyPolicy(current: 1, last: 0)
            #expect(await eventually(within: 8) { CodecChange.isBlue(sinkB.colour) }, "B shows")
            try await Task.sleep(for: .seconds(2))
            let source = headend.sources[0]
            #expect(source.archiveURL == nil && source.openURL == nil, "A follows its own source again, not connected: \(String(describing: source.openURL))")
            let liveAgain = server.requests.filter { $0.channel == 0 && $0.at > flipped }
            #expect(liveAgain.isEmpty, "A was asked live again behind B \(liveAgain.count) times")
            #expect(CodecChange.isBlue(sinkB.colour), "B still shows")
            await headend.deactivate(feed: feedB)
        }
    }
}
