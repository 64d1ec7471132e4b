import Foundation
import GStreamer
import Headend
import Logging

/// The single output pipeline: a fixed format that never changes on a flip.
///
/// Decoded frames of the shown channel arrive on decoder streaming threads (`presentVideo`); the
/// channel's overlays (its logo) are blended into each frame before it is pushed, so the logo
/// changes in the same frame as the picture. Frames are tagged with their feed id, and a probe
/// on the sink reports the first frame of each feed reaching it: that completes a flip.
public final class OutputPipeline: DecodedFrameSink, @unchecked Sendable {
    public let sink: OutputSink
    public let width: Int
    public let height: Int
    public let fps: Int
    public let videoFormat: VideoFormat
    private let pipeline: Pipeline
    private let videoSource: AppSource
    private let audioSource: AppSource
    private let logger: Logger

    private let lock = NSLock()
    private var activeFeed: UInt = 0
    private var activeOverlays: [Overlay] = []
    private var pendingFeed: UInt?
    private var pendingOverlays: [Overlay] = []
    private var lastFrame: Buffer
    private var lastPush: ContinuousClock.Instant = .now
    private var sinkFeed: UInt = 0
    private var firstFrameWaiters: [UInt: @Sendable (ContinuousClock.Instant) -> Void] = [:]
    private var ticker: Thread?
    private var running = true
    private let audioRing: AudioRing
    private var stats = OutputStatistics()
    private var feedTimes: [UInt: FeedTiming] = [:]
    private var lastSinkTime: ContinuousClock.Instant?

    public init(sink: OutputSink, width: Int, height: Int, fps: Int, logger: Logger) throws {
        self.sink = sink
        self.width = width
        self.height = height
        self.fps = fps
        self.logger = logger
        let videoCaps = try Caps("video/x-raw,format=I420,width=\(width),height=\(height),framerate=\(fps)/1,pixel-aspect-ratio=1/1")
        videoFormat = try VideoFormat(caps: videoCaps)
        let description = """
            appsrc name=vsrc format=time is-live=true do-timestamp=true min-latency=0 ! queue max-size-buffers=1 max-size-bytes=0 max-size-time=0 leaky=downstream ! \(sink.videoDescription()) \
            appsrc name=asrc format=time is-live=true do-timestamp=true min-latency=0 ! queue max-size-buffers=0 max-size-bytes=0 max-size-time=200000000 leaky=downstream ! audioconvert ! audioresample ! \(sink.audioDescription())
            """
        pipeline = try Pipeline(description: description)
        guard let vsrc = pipeline.appSource(named: "vsrc"), let asrc = pipeline.appSource(named: "asrc"),
              let vsink = pipeline.child(named: "vsink"), let sinkPad = vsink.staticPad("sink") else {
            pipeline.shutdown()
            throw GStreamerError(code: .pipelineDescription, message: "internal: output pipeline incomplete")
        }
        videoSource = vsrc
        audioSource = asrc
        vsrc.caps = videoCaps
        asrc.caps = try Caps(DecodeTarget.audioCaps)
        audioRing = AudioRing(capacity: 48000 * 2 * 2)
        lastFrame = try videoFormat.solidFrame(r: 0, g: 0, b: 0)
        sinkPad.onBuffer { [weak self] buffer in self?.reachedSink(buffer) }
    }

    /// Starts the output (media thread). Throws with the sink's own error if the display cannot be opened.
    public func start() async throws {
        try await MediaExecutor.shared.run { [pipeline] in
            try pipeline.setState(.playing)
        }
        // Surface a sink that fails at once (no display, no DRM device).
        try? await Task.sleep(for: .milliseconds(100))
        if let error = pipeline.firstError {
            throw GStreamerError(code: .stateChange, message: "the \(sink.rawValue) output cannot start: \(error)")
        }
        let period = 1.0 / Double(fps)
        let t = Thread { [weak self] in
            while let self, self.isRunning {
                Thread.sleep(forTimeInterval: period)
                self.tick()
            }
        }
        t.name = "flipbox-output-tick"
        t.start()
        ticker = t
    }

    private var isRunning: Bool { lock.withLock { running } }

    public var messages: AsyncStream<BusMessage> { pipeline.messages }

    /// Announces that frames of `feed` should replace the current picture as soon as the first
    /// one arrives, with `overlays` on them. `onFirstFrame` runs once, when that first frame
    /// reaches the sink. A newer `expect` replaces an older pending one (its waiter never runs).
    public func expect(feed: UInt, overlays: [Overlay], onFirstFrame: @escaping @Sendable (ContinuousClock.Instant) -> Void) {
        lock.withLock {
            if let old = pendingFeed { firstFrameWaiters.removeValue(forKey: old) }
            pendingFeed = feed
            pendingOverlays = overlays
            firstFrameWaiters[feed] = onFirstFrame
        }
    }

    /// Forgets a pending feed (its flip failed or was superseded).
    public func cancel(feed: UInt) {
        lock.withLock {
            if pendingFeed == feed {
                pendingFeed = nil
                pendingOverlays = []
            }
            firstFrameWaiters.removeValue(forKey: feed)
        }
    }


    public func presentVideo(_ frame: Buffer, feed: UInt) {
        lock.lock()
        if feed == pendingFeed {
            activeFeed = feed
            activeOverlays = pendingOverlays
            pendingFeed = nil
            pendingOverlays = []
        }
        guard feed == activeFeed else { lock.unlock(); return }
        let overlays = activeOverlays
        lock.unlock()
        let composed = videoFormat.blend(overlays, into: frame).retimed(pts: .none, dts: .none, offset: feed)
        lock.withLock {
            guard feed == activeFeed else { return }
            lastFrame = composed
            lastPush = .now
            if feedTimes[feed]?.firstVideo == nil {
                feedTimes[feed, default: FeedTiming()].firstVideo = lastPush
                if feedTimes.count > 64, let oldest = feedTimes.keys.min() { feedTimes.removeValue(forKey: oldest) }
            }
            videoSource.push(composed)
        }
    }

    public func presentAudio(_ samples: Buffer, feed: UInt) {
        let shown = lock.withLock { () -> Bool in
            guard feed == activeFeed else { return false }
            if feedTimes[feed]?.firstAudio == nil { feedTimes[feed, default: FeedTiming()].firstAudio = .now }
            return true
        }
        guard shown else { return }
        let out = samples.retimed(pts: .none, dts: .none)
        audioSource.push(out)
        audioRing.append(samples)
    }

    /// Keeps the output alive when no channel frames come (source stalled, nothing shown yet):
    /// repeats the last composed frame at the output rate.
    private func tick() {
        lock.lock()
        let idle = ContinuousClock.now - lastPush > .milliseconds(Int64(2000 / fps))
        if idle {
            lastPush = .now
            stats.repeatedFrames += 1
            videoSource.push(lastFrame.retimed(pts: .none, dts: .none, offset: lastFrame.offset))
        }
        lock.unlock()
    }

    private func reachedSink(_ buffer: Buffer) {
        let feed = buffer.offset
        let now = ContinuousClock.now
        let waiter: (@Sendable (ContinuousClock.Instant) -> Void)? = lock.withLock {
            stats.framesShown += 1
            if let last = lastSinkTime {
                let gap = now - last
                if gap > stats.longestGap { stats.longestGap = gap }
                if gap > .milliseconds(Int64(2000 / fps)) { stats.gapsOverTwoFrames += 1 }
            }
            lastSinkTime = now
            guard feed != sinkFeed else { return nil }
            sinkFeed = feed
            return firstFrameWaiters.removeValue(forKey: feed)
        }
        waiter?(now)
    }

    /// Counters since start, or since the last `resetStatistics()`.
    public func statistics() -> OutputStatistics { lock.withLock { stats } }

    public func resetStatistics() {
        lock.withLock {
            stats = OutputStatistics()
            lastSinkTime = nil
        }
    }

    /// When the first video frame and the first audio buffer of `feed` were pushed to the output.
    public func timing(feed: UInt) -> FeedTiming? { lock.withLock { feedTimes[feed] } }

    /// The composed output frame as shown, as PNG, optionally scaled to `width`.
    public func snapshotPNG(width: Int? = nil) throws -> [UInt8] {
        let frame = lock.withLock { lastFrame }
        return try ImageCodec.png(frame: frame, caps: videoFormat.caps, width: width)
    }

    /// The last `milliseconds` of output audio as 48 kHz stereo S16LE samples.
    public func recentAudio(milliseconds: Int) -> [Int16] {
        audioRing.last(samples: 48 * milliseconds * 2)
    }

    public func shutdown() async {
        lock.withLock { running = false }
        _ = try? await MediaExecutor.shared.run { [pipeline] in pipeline.shutdown() }
    }
}

/// What the output did, for the benchmark.
public struct OutputStatistics: Sendable {
    /// Frames that reached the sink.
    public var framesShown = 0
    /// Frames repeated because no channel frame came for two frame periods.
    public var repeatedFrames = 0
    /// Intervals between frames at the sink longer than two frame periods.
    public var gapsOverTwoFrames = 0
    public var longestGap: Duration = .zero
}

/// When a feed's first video frame and first audio buffer went out.
public struct FeedTiming: Sendable {
    public var firstVideo: ContinuousClock.Instant?
    public var firstAudio: ContinuousClock.Instant?
    /// Audio start minus video start (positive: audio started later).
    public var audioOffset: Duration? {
        guard let v = firstVideo, let a = firstAudio else { return nil }
        return a - v
    }
}

/// The most recent output audio, for checks and the audio snapshot endpoint.
final class AudioRing: @unchecked Sendable {
    private let lock = NSLock()
    private var samples: [Int16]
    private var write = 0
    private var filled = 0

    init(capacity: Int) { samples = [Int16](repeating: 0, count: capacity / 2) }

    func append(_ buffer: Buffer) {
        buffer.withBytes { raw in
            let incoming = raw.bindMemory(to: Int16.self)
            lock.withLock {
                for s in incoming {
                    samples[write] = s
                    write = (write + 1) % samples.count
                }
                filled = min(samples.count, filled + incoming.count)
            }
        }
    }

    func last(samples n: Int) -> [Int16] {
        lock.withLock {
            let count = min(n, filled)
            var out = [Int16](repeating: 0, count: count)
            for i in 0..<count {
                out[i] = samples[(write - count + i + samples.count) % samples.count]
            }
            return out
        }
    }
}
