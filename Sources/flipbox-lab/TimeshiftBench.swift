import FlipboxCore
import Foundation
import GStreamer
import Headend
import Lineup
import Logging

/// `flipbox bench --timeshift N`: what timeshift costs and how fast it moves, on the benchmark's
/// warm channels (docs/performance.md).
///
/// 1. The cost of recording: every warm channel's ingest recorded into a timeshift buffer whose
///    memory is small, so nearly everything goes to segment files; CPU against the same channels
///    without buffers, in turn (three pairs of 10 s windows).
/// 2. On the channel shown (1280x720 decode): pause (frames that still arrive), N seeks to random
///    buffered moments (command to the first decoded frame), and back to live after every fifth.
struct TimeshiftBench {
    let lineup: Lineup
    let seeks: Int
    let logger: Logger
    let say: (String) -> Void
    let measure: (Int) async throws -> (core: Double, rss: Int)

    /// Decoded frames with their arrival (decoder streaming threads).
    final class FrameClock: DecodedFrameSink, @unchecked Sendable {
        private let lock = NSLock()
        private var times: [ContinuousClock.Instant] = []
        func presentVideo(_ frame: Buffer, feed: FeedID) { lock.withLock { times.append(.now) } }
        func presentAudio(_ samples: Buffer, feed: FeedID) {}
        var count: Int { lock.withLock { times.count } }
        /// The first frame after `instant`.
        func first(after instant: ContinuousClock.Instant) -> ContinuousClock.Instant? { lock.withLock { times.first { $0 > instant } } }
        var last: ContinuousClock.Instant? { lock.withLock { times.last } }
    }

    /// Pairs of windows (recording off, then on) and each window's seconds.
    static let recordingRounds = 3
    static let recordingWindow = 10

    func run() async throws -> [String: Any] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-timeshift-bench-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let headend = Headend(lineup: lineup, policy: .all, target: DecodeTarget(width: 1280, height: 720), logger: logger)
        defer { Task { await headend.shutdown() } }
        await headend.applyPolicy(current: 0, last: nil)
        let sources = headend.sources
        let deadline = ContinuousClock.now + .seconds(30)
        while !sources.allSatisfy(\.cache.hasKeyframe), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(200)) }
        try await Task.sleep(for: .seconds(2))
        // Recording off and on in turn, three times, 10 s a window: each pair's difference is
        // the cost, and a machine whose load drifts moves both sides of a pair alike. Every warm
        // channel is recorded the way a shown channel is, with 1 MB of memory each: the rest
        // goes to disk.
        let settings = TimeshiftSettings(window: .seconds(600), memoryBytes: 1 << 20, directory: directory)
        var pairs: [(without: Double, with: Double)] = []
        var onDisk = 0
        for round in 1...Self.recordingRounds {
            say("timeshift: \(sources.count) warm channels without buffers (\(round)/\(Self.recordingRounds))")
            let bare = try await measure(Self.recordingWindow)
            var recordings: [TimeshiftRecording] = []
            for source in sources {
                let buffer = try TimeshiftBuffer(channel: "bench-\(source.channel.number)", settings: settings, logger: logger)
                recordings.append(try await headend.record(source.channel, into: buffer))
            }
            // Past the first megabyte of each, so the writes run through the whole window.
            try await Task.sleep(for: .seconds(4))
            say("timeshift: \(sources.count) channels recorded to disk (\(round)/\(Self.recordingRounds))")
            let recording = try await measure(Self.recordingWindow)
            onDisk += recordings.map { $0.buffer.index.filter(\.onDisk).reduce(0) { $0 + $1.bytes } }.reduce(0, +)
            for recording in recordings { recording.close() }
            pairs.append((bare.core, recording.core))
        }

        // The channel shown, with its own buffer (64 MB of memory, then disk), 30 s deep.
        await headend.setTimeshift(TimeshiftSettings(window: .seconds(600), memoryBytes: 8 << 20, directory: directory))
        let frames = FrameClock()
        let (feed, _) = try await headend.activate(lineup.channels[0], sink: frames)
        say("timeshift: filling 30 s of the channel shown")
        try await Task.sleep(for: .seconds(30))

        // Pause: frames decoded after the command returned.
        let beforePause = frames.count
        let pauseAsked = ContinuousClock.now
        _ = try await headend.timeshift(feed: feed, .pause)
        let pauseReturned = ContinuousClock.now
        try await Task.sleep(for: .seconds(1))
        let afterPause = frames.count - beforePause
        let lastFrame = frames.last.map { max(0, ($0 - pauseAsked).milliseconds) }
        _ = try await headend.timeshift(feed: feed, .resume)

        var seekMs: [Double] = []
        var liveMs: [Double] = []
        var failures = 0
        var firstFailure: String?
        for i in 0..<seeks {
            guard let status = await headend.status(feed: feed), let start = status.bufferStart, let edge = status.liveEdge else { break }
            let span = edge.timeIntervalSince(start) - 4
            let target = start.addingTimeInterval(1 + Double.random(in: 0...max(0, span)))
            let asked = ContinuousClock.now
            do {
                _ = try await headend.timeshift(feed: feed, .seekTo(target))
                if let first = await firstFrame(frames, after: asked) { seekMs.append((first - asked).milliseconds) } else {
                    failures += 1
                    firstFailure = firstFailure ?? "no frame within 2 s of a seek"
                }
            } catch {
                failures += 1
                firstFailure = firstFailure ?? "\(error)"
            }
            try await Task.sleep(for: .milliseconds(400))
            if i % 5 == 4 {
                let asked = ContinuousClock.now
                _ = try? await headend.timeshift(feed: feed, .live)
                if let first = await firstFrame(frames, after: asked) { liveMs.append((first - asked).milliseconds) } else { failures += 1 }
                try await Task.sleep(for: .milliseconds(400))
            }
        }
        await headend.deactivate(feed: feed)

        func stats(_ values: [Double]) -> [String: Any] {
            let sorted = values.sorted()
            return ["count": sorted.count, "p50": round1(BenchReport.percentile(sorted, 0.5)),
                    "p95": round1(BenchReport.percentile(sorted, 0.95)), "max": round1(sorted.last)]
        }
        return [
            "channels": sources.count,
            "recordCoreWithout": round1(pairs.map(\.without).reduce(0, +) / Double(pairs.count) * 100),
            "recordCoreWith": round1(pairs.map(\.with).reduce(0, +) / Double(pairs.count) * 100),
            "recordCostPoints": pairs.map { round1(($0.with - $0.without) * 100) },
            "recordedToDiskBytes": onDisk,
            "pauseCommandMs": round1((pauseReturned - pauseAsked).milliseconds), "framesAfterPause": afterPause,
            "lastFrameAfterPauseMs": round1(lastFrame),
            "seekToFirstFrameMs": stats(seekMs), "liveToFirstFrameMs": stats(liveMs), "failures": failures, "firstFailure": firstFailure ?? NSNull(),
        ]
    }

    /// Waits up to 2 s for the first decoded frame after `instant`.
    private func firstFrame(_ frames: FrameClock, after instant: ContinuousClock.Instant) async -> ContinuousClock.Instant? {
        let deadline = instant + .seconds(2)
        while ContinuousClock.now < deadline {
            if let first = frames.first(after: instant) { return first }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return nil
    }
}

private func round1(_ v: Double?) -> Any { v.map { ($0 * 10).rounded() / 10 } ?? NSNull() }
