import Foundation
import GStreamer
@testable import Headend
import Testing

extension HeadendTests {
    /// `GOPCache` fed by a real live H.264 encoder.
    @Suite struct GOPCacheBehaviour {
        init() throws { try GStreamer.initialize() }

        /// A live 160x90@30 H.264 encoder with a keyframe every `gop` frames, feeding `cache`.
        final class Encoder: @unchecked Sendable {
            let pipeline: Pipeline
            init(cache: GOPCache, gop: Int, bitrateKbps: Int = 300, pattern: String = "ball") throws {
                pipeline = try Pipeline(description: """
                    videotestsrc is-live=true pattern=\(pattern) ! video/x-raw,width=160,height=90,framerate=30/1 ! \
                    x264enc tune=zerolatency speed-preset=ultrafast key-int-max=\(gop) bitrate=\(bitrateKbps) ! \
                    h264parse config-interval=-1 ! video/x-h264,stream-format=byte-stream,alignment=au ! appsink name=video sync=false
                    """)
                pipeline.appSink(named: "video")?.onSample { s in cache.append(s, track: .video) }
                try pipeline.setState(.playing)
            }
            func stop() { pipeline.shutdown() }
        }

        /// Collects the entries a consumer receives (streaming thread).
        final class Received: @unchecked Sendable {
            private let lock = NSLock()
            private var entries: [GOPCache.Entry] = []
            func add(_ e: GOPCache.Entry) { lock.withLock { entries.append(e) } }
            var all: [GOPCache.Entry] { lock.withLock { entries } }
        }

        @Test func attachReturnsTheGOPFromItsKeyframeThenLiveEntriesInOrder() async throws {
            let cache = GOPCache()
            #expect(!cache.hasKeyframe)
            let encoder = try Encoder(cache: cache, gop: 10)
            defer { encoder.stop() }
            // Past the first GOP, so the cached one is a later one that began at a keyframe.
            #expect(await eventually(within: 5) { cache.hasKeyframe && cache.byteCount > 0 })
            try await Task.sleep(for: .milliseconds(500))

            let received = Received()
            let snapshot = cache.attach(.feed(1)) { received.add($0) }
            #expect(snapshot.video?.mediaType == "video/x-h264")
            #expect(snapshot.video?.string("stream-format") == "byte-stream")
            #expect(snapshot.audio == nil)
            let gop = snapshot.entries
            #expect(gop.first?.isKeyframe == true, "the cached GOP starts at a keyframe")
            // One GOP, or two while the newest is too short for a decoder to start from it.
            let keyframes = gop.indices.filter { gop[$0].isKeyframe }
            #expect(keyframes.count <= 2, "at most two GOPs cached: \(keyframes.count) keyframes")
            if keyframes.count == 2 {
                #expect(gop.count - keyframes[1] < GOPCache.decoderLead, "the previous GOP is kept only while the newest is short")
            }
            #expect(gop.count >= 1 && gop.count <= 20, "at most two GOPs (10 frames each) cached: \(gop.count)")
            #expect(gop.allSatisfy { $0.pts.isValid && $0.track == .video })

            #expect(await eventually(within: 3) { received.all.filter(\.isKeyframe).count >= 2 })
            cache.detach(.feed(1))
            let after = received.all.count
            try await Task.sleep(for: .milliseconds(200))
            #expect(received.all.count == after, "nothing arrives after detach")

            // Live entries follow the snapshot without a gap or a repeat, in increasing time.
            let times = (gop + received.all).map(\.pts)
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "strictly increasing pts")
            let frame = ClockTime.second / 30
            if let last = gop.last, let next = received.all.first {
                #expect(next.pts - last.pts < 2 * frame, "no frame lost between snapshot and live: \(next.pts - last.pts) ns")
            }

            // Every later keyframe restarts the cache at itself.
            #expect(cache.hasKeyframe)
            let again = cache.attach(.feed(2)) { _ in }
            cache.detach(.feed(2))
            #expect(again.entries.first?.isKeyframe == true)
            #expect(again.entries.first.map { $0.pts > gop[0].pts } == true)
        }

        /// The cache's state lock is never held while a consumer runs: a consumer that takes its
        /// time does not hold up a flip reading the cache, and a consumer may read the cache
        /// itself. (Before, both waited on the one lock: the reader for as long as the consumer
        /// took, the consumer for ever.)
        @Test func aSlowConsumerHoldsUpNoReaderOfTheCache() async throws {
            let cache = GOPCache()
            let encoder = try Encoder(cache: cache, gop: 10)
            defer { encoder.stop() }
            #expect(await eventually(within: 5) { cache.hasKeyframe })
            let inConsumer = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
            let sawKeyframe = Received()
            let first = Once()
            _ = cache.attach(.feed(1)) { entry in
                guard first.take() else { return }
                // Reads the cache from inside the consumer, then blocks until released.
                if cache.startKeyframe() != nil { sawKeyframe.add(entry) }
                inConsumer.signal()
                _ = release.wait(timeout: .now() + 10)
            }
            defer { cache.detach(.feed(1)) }
            #expect(inConsumer.wait(timeout: .now() + 5) == .success, "the consumer ran and read the cache")
            #expect(sawKeyframe.all.count == 1)
            // The consumer is blocked on the streaming thread now; a reader gets through.
            let read = DispatchSemaphore(value: 0)
            Thread { _ = cache.startKeyframe(); _ = cache.byteCount; _ = cache.lastDelivery; read.signal() }.start()
            let answered = read.wait(timeout: .now() + 3) == .success
            release.signal()
            #expect(answered, "a reader of the cache waited for a consumer")
        }

        /// True for its first `take()` only.
        final class Once: @unchecked Sendable {
            private let lock = NSLock()
            private var taken = false
            func take() -> Bool { lock.withLock { defer { taken = true }; return !taken } }
        }

        @Test func gopLargerThanTheBudgetIsDroppedAndFlagged() async throws {
            let cache = GOPCache(budgetBytes: 4_000)
            // A keyframe every 300 frames (10 s) at a high rate: a GOP outgrows 4 kB quickly.
            let encoder = try Encoder(cache: cache, gop: 300, bitrateKbps: 2000, pattern: "snow")
            defer { encoder.stop() }
            #expect(await eventually(within: 5) { cache.isOverBudget })
            #expect(!cache.hasKeyframe, "an over-budget GOP is not kept")
            #expect(cache.byteCount <= cache.budgetBytes)
            #expect(cache.lastDelivery != nil, "the source still delivers")
        }

        @Test func resetForgetsEverything() async throws {
            let cache = GOPCache()
            let encoder = try Encoder(cache: cache, gop: 10)
            #expect(await eventually(within: 5) { cache.hasKeyframe })
            encoder.stop()
            cache.reset()
            #expect(!cache.hasKeyframe)
            #expect(cache.byteCount == 0)
            #expect(cache.lastDelivery == nil)
        }
    }
}
