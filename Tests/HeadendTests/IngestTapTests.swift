import Foundation
import GStreamer
@testable import Headend
import Lineup
import Testing

extension HeadendTests {
    /// `Headend.tap`: consumers of a channel's compressed ingest other than decoders, each with
    /// its own bounded queue, started at the cached keyframe.
    @Suite struct IngestTaps {
        init() throws { try GStreamer.initialize() }

        /// Reads a tap on its own task, recording what arrives and how it ended.
        final class TapReader: @unchecked Sendable {
            private let lock = NSLock()
            private var received: [GOPCache.Entry] = []
            private var end: Result<Void, any Error>?
            private var task: Task<Void, Never>?

            init(_ tap: IngestTap) {
                task = Task { [self] in
                    do {
                        for try await entry in tap { lock.withLock { received.append(entry) } }
                        lock.withLock { end = .success(()) }
                    } catch {
                        lock.withLock { end = .failure(error) }
                    }
                }
            }

            var entries: [GOPCache.Entry] { lock.withLock { received } }
            var ended: Result<Void, any Error>? { lock.withLock { end } }
            func stop() { task?.cancel() }
        }

        private func headend(_ channels: [Channel], policy: WarmPolicy) -> Headend {
            Headend(lineup: Lineup(channels: channels), policy: policy, target: DecodeTarget(width: 160, height: 90),
                    logger: testLogger)
        }

        @Test func aTapStartsAtTheCachedKeyframeAndThenFollowsLiveInOrder() async throws {
            let channel = makeChannel(["test://color/00ff00?size=160x90&fps=30&gop=15&tone=440"])
            let headend = headend([channel], policy: .all)
            await headend.applyPolicy(current: 0, last: nil)
            let source = headend.sources[0]
            let warm = await eventually(within: 8) { source.state == .warm && source.cache.hasKeyframe && source.cache.audioCaps != nil }
            #expect(warm, "not warm: \(source.state)")
            // Wait until a few frames of the GOP are cached, so the tap's start is more than a keyframe.
            _ = await eventually(within: 2) { source.cache.newestGOPVideoFrames >= 4 }
            let cached = source.cache.snapshot().entries.count

            let tap = try await headend.tap(channel)
            #expect(tap.videoCaps?.mediaType == "video/x-h264")
            #expect(tap.audioCaps?.mediaType.hasPrefix("audio/") == true)
            #expect(await headend.openTaps[tap.id] == channel.number)
            let reader = TapReader(tap)
            let enough = await eventually(within: 8) { reader.entries.filter { $0.track == .video }.count >= 75 }
            #expect(enough, "only \(reader.entries.count) entries arrived")
            let entries = reader.entries
            let first = try #require(entries.first)
            #expect(first.track == .video && first.isKeyframe, "a tap starts at a keyframe")
            #expect(entries.count > cached, "the cached GOP (\(cached) entries), then live data")
            let video = entries.filter { $0.track == .video }
            #expect(video.filter(\.isKeyframe).count >= 4, "75 frames at a GOP of 15 carry 5 keyframes")
            let times = video.map(\.dts)
            #expect(times == times.sorted(), "video in decode order, nothing doubled or reordered")
            #expect(Set(video.map { ObjectIdentifier($0.buffer) }).count == video.count, "no buffer delivered twice")
            #expect(entries.contains { $0.track == .audio }, "the sound comes through the tap too")

            tap.close()
            let closed = await eventually(within: 2) { if case .success = reader.ended { true } else { false } }
            #expect(closed, "close ends the consumer's loop")
            // The headend forgets the tap on its own executor, right after.
            #expect(await eventually(within: 2) { await headend.openTaps.isEmpty })
            await headend.shutdown()
        }

        @Test func aTappedChannelIsKeptRunningOutsideThePlanUntilItsTapCloses() async throws {
            let current = makeChannel(["test://color/ff0000?size=160x90&fps=30&gop=15"], number: 1)
            let tapped = makeChannel(["test://color/0000ff?size=160x90&fps=30&gop=15"], number: 2)
            let headend = headend([current, tapped], policy: .none)
            await headend.applyPolicy(current: 0, last: nil)
            let source = headend.sources[1]
            #expect(source.state == .cold, "the policy keeps only the current channel")

            let tap = try await headend.tap(tapped)
            let reader = TapReader(tap)
            let delivered = await eventually(within: 8) { reader.entries.contains { $0.isKeyframe } }
            #expect(delivered, "a cold channel starts for its tap (state \(source.state))")
            // The budget watch re-plans every second: the tap must outlive a few plans.
            try await Task.sleep(for: .milliseconds(2500))
            #expect(source.state == .warm, "kept running while tapped: \(source.state)")
            let before = reader.entries.count
            try await Task.sleep(for: .milliseconds(500))
            #expect(reader.entries.count > before, "still delivering")

            tap.close()
            let cold = await eventually(within: 5) { source.state == .cold }
            #expect(cold, "the plan stops the channel once nothing taps it: \(source.state)")
            await headend.shutdown()
        }

        @Test func aSlowConsumerIsDroppedWhileTheIngestAndOtherConsumersGoOn() async throws {
            let channel = makeChannel(["test://ball?size=320x180&fps=30&gop=30&bitrate=800"])
            let headend = headend([channel], policy: .all)
            await headend.applyPolicy(current: 0, last: nil)
            let source = headend.sources[0]
            _ = await eventually(within: 8) { source.state == .warm && source.cache.hasKeyframe }

            let slow = try await headend.tap(channel, maxQueuedBytes: 64 << 10)
            let fast = try await headend.tap(channel)
            let fastReader = TapReader(fast)
            // Nobody reads `slow`: its queue passes 64 KiB within a second or two at 800 kb/s.
            let dropped = await eventually(within: 10) { await headend.openTaps[slow.id] == nil }
            #expect(dropped, "the slow tap is dropped (queued \(slow.queuedBytes) bytes)")
            var slowEnd: (any Error)?
            do {
                for try await _ in slow {}
            } catch {
                slowEnd = error
            }
            guard case .consumerTooSlow(let queued)? = slowEnd as? TapEnd else {
                Issue.record("the slow consumer learns why it ended, got \(String(describing: slowEnd))")
                return
            }
            #expect(queued > 64 << 10)

            let atDrop = fastReader.entries.count
            let goesOn = await eventually(within: 5) { fastReader.entries.count >= atDrop + 30 }
            #expect(goesOn, "the other consumer keeps receiving")
            #expect(source.state == .warm && source.cache.hasKeyframe, "the ingest was never held up")
            #expect(await headend.openTaps[fast.id] != nil)

            await headend.shutdown()
            let ended = await eventually(within: 2) { fastReader.ended != nil }
            #expect(ended, "shutdown ends the remaining taps")
            if case .failure(let error)? = fastReader.ended {
                #expect(error as? TapEnd == .headendStopped)
            } else {
                Issue.record("the consumer hears the head-end stopped: \(String(describing: fastReader.ended))")
            }
        }
    }
}
