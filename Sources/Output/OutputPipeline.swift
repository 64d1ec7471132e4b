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
///
/// The picture is either the shown feed or a full-screen card (an interstitial). A card replaces
/// the old channel at once, and gives way to the first frame of the expected feed, but not before
/// its minimum time. Above the picture sit the output-wide layers (`OutputLayer`), in order.
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
    private var activeToken: UInt64 = 0
    private var activeOverlays: [Overlay] = []
    private var pendingFeed: UInt?
    private var pendingToken: UInt64 = 0
    private var pendingOverlays: [Overlay] = []
    /// The card on screen instead of a feed, and until when it must stay.
    private var card: Buffer?
    private var cardHoldUntil: ContinuousClock.Instant?
    /// The pending feed's newest frame, waiting for the card's minimum time.
    private var heldFrame: Buffer?
    private var layers: [OutputLayer: [Overlay]] = [:]
    /// A full-screen picture over the channel (the multiview, `setCover`), and the picture it covered.
    private var cover: Buffer?
    private var uncoveredBase: Base?
    /// The request token and overlays of every feed announced and not cancelled, to go back to one.
    private var feeds: [UInt: (token: UInt64, overlays: [Overlay])] = [:]
    /// The picture without the output-wide layers (to recompose when a layer changes).
    private var lastBase: Base
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
        lastBase = Base(picture: lastFrame, overlays: [], offset: 0)
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
    /// one arrives, with `overlays` on them. `token` names the request the feed belongs to (see
    /// `showCard`). `onFirstFrame` runs once, when that first frame reaches the sink. A newer
    /// `expect` replaces an older pending one (its waiter never runs).
    public func expect(feed: UInt, token: UInt64 = 0, overlays: [Overlay], onFirstFrame: @escaping @Sendable (ContinuousClock.Instant) -> Void) {
        lock.withLock {
            if let old = pendingFeed { firstFrameWaiters.removeValue(forKey: old) }
            pendingFeed = feed
            pendingToken = token
            pendingOverlays = overlays
            heldFrame = nil
            feeds[feed] = (token, overlays)
            firstFrameWaiters[feed] = onFirstFrame
        }
    }

    /// Forgets a pending feed (its flip failed or was superseded).
    public func cancel(feed: UInt) {
        lock.withLock {
            if pendingFeed == feed {
                pendingFeed = nil
                pendingOverlays = []
                heldFrame = nil
            }
            firstFrameWaiters.removeValue(forKey: feed)
            feeds.removeValue(forKey: feed)
        }
    }

    /// Shows `frame` (a full-screen card for request `token`) instead of any channel picture.
    /// Returns false, and shows nothing, when the feed of request `token` is already on screen:
    /// a card never covers the picture it announces. The card gives way to the first frame of
    /// the pending feed, but no earlier than `minimum` from now.
    @discardableResult
    public func showCard(_ frame: Buffer, token: UInt64, minimum: Duration) -> Bool {
        lock.withLock {
            guard token == 0 || activeToken != token || activeFeed == 0 else { return false }
            activeFeed = 0
            activeToken = token
            activeOverlays = []
            // A card replacing a card keeps the older one's minimum time.
            let until = ContinuousClock.now + minimum
            cardHoldUntil = card == nil ? until : max(cardHoldUntil ?? until, until)
            card = frame
            setBase(Base(picture: frame, overlays: [], offset: 0))
            return true
        }
    }

    /// Shows `feed` again (an abandoned flip: the card, or a frame of the abandoned feed that
    /// got on screen first, gives way to the channel still playing). Nothing happens when `feed`
    /// is already shown, or was cancelled.
    public func restore(feed: UInt) {
        lock.withLock {
            guard activeFeed != feed || card != nil, let known = feeds[feed] else { return }
            card = nil
            cardHoldUntil = nil
            heldFrame = nil
            activeFeed = feed
            activeToken = known.token
            activeOverlays = known.overlays
        }
    }

    /// Sets the overlays of one output-wide layer (an empty list removes it) and shows the change
    /// at once, also on a still picture.
    public func setLayer(_ layer: OutputLayer, _ overlays: [Overlay]) {
        lock.withLock {
            if overlays.isEmpty { layers.removeValue(forKey: layer) } else { layers[layer] = overlays }
            setBase(lastBase)
        }
    }

    /// Sets one layer's overlays like `setLayer`, but shows them with the next channel frame
    /// instead of pushing the picture again, unless no frame went out for a frame period (a still
    /// picture). For layers that change every frame (the picture-in-picture window).
    public func updateLayer(_ layer: OutputLayer, _ overlays: [Overlay]) {
        lock.withLock {
            if overlays.isEmpty { layers.removeValue(forKey: layer) } else { layers[layer] = overlays }
            if ContinuousClock.now - lastPush >= .milliseconds(Int64(1000 / fps)) { setBase(lastBase) }
        }
    }

    /// Covers the picture with a full-screen `frame` of the output's format (the multiview), or
    /// uncovers it with nil. While covered, channel frames are neither blended nor shown (their
    /// sound plays on); the layers are still drawn above the cover. Far cheaper than a full-screen
    /// overlay, which would be blended into every frame.
    public func setCover(_ frame: Buffer?) {
        lock.withLock {
            if let frame {
                if cover == nil { uncoveredBase = lastBase }
                cover = frame
                setBase(Base(picture: frame, overlays: [], offset: lastBase.offset))
            } else if cover != nil {
                cover = nil
                setBase(uncoveredBase ?? lastBase)
                uncoveredBase = nil
            }
        }
    }

    /// The picture under the output-wide layers: a frame as it came (channel, card or cover)
    /// and the channel's own overlays (its logo), kept apart so a layer change can recompose
    /// a still picture.
    struct Base {
        var picture: Buffer
        var overlays: [Overlay]
        /// The feed id the composed frame carries.
        var offset: UInt
    }

    /// The output-wide layers' overlays, bottom first (under the lock).
    private var layerOverlays: [Overlay] { OutputLayer.allCases.flatMap { layers[$0] ?? [] } }

    /// Composes `base` with the output-wide layers in one blend and pushes it (under the lock).
    private func setBase(_ base: Base) {
        let all = base.overlays + layerOverlays
        let composed = all.isEmpty ? base.picture : videoFormat.blend(all, into: base.picture)
        push(base, composed: composed.retimed(pts: .none, dts: .none, offset: base.offset))
    }

    /// Pushes a frame composed from `base` (under the lock).
    private func push(_ base: Base, composed: Buffer) {
        lastBase = base
        lastFrame = composed
        lastPush = .now
        videoSource.push(composed)
    }

    public func presentVideo(_ frame: Buffer, feed: UInt) {
        lock.lock()
        if feed == pendingFeed {
            if let hold = cardHoldUntil, ContinuousClock.now < hold {
                heldFrame = frame
                lock.unlock()
                return
            }
            promotePending()
        }
        guard feed == activeFeed else { lock.unlock(); return }
        if let cover {
            // Covered: the channel's frame is neither blended nor shown; the cover goes out at its pace.
            setBase(Base(picture: cover, overlays: [], offset: feed))
            lock.unlock()
            return
        }
        let overlays = activeOverlays
        // The logo and the layers in one blend: one copy of the frame, not one per blend.
        let all = overlays + layerOverlays
        lock.unlock()
        let composed = (all.isEmpty ? frame : videoFormat.blend(all, into: frame)).retimed(pts: .none, dts: .none, offset: feed)
        lock.withLock {
            guard feed == activeFeed else { return }
            push(Base(picture: frame, overlays: overlays, offset: feed), composed: composed)
            if feedTimes[feed]?.firstVideo == nil {
                feedTimes[feed, default: FeedTiming()].firstVideo = lastPush
                if feedTimes.count > 64, let oldest = feedTimes.keys.min() { feedTimes.removeValue(forKey: oldest) }
            }
        }
    }

    /// The pending feed becomes the shown one; a card gives way (under the lock).
    private func promotePending() {
        guard let feed = pendingFeed else { return }
        activeFeed = feed
        activeToken = pendingToken
        activeOverlays = pendingOverlays
        pendingFeed = nil
        pendingOverlays = []
        card = nil
        cardHoldUntil = nil
        heldFrame = nil
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
        if let held = heldFrame, let feed = pendingFeed, let hold = cardHoldUntil, ContinuousClock.now >= hold {
            // The card's minimum time is over and the channel's picture is waiting (a still source).
            let overlays = pendingOverlays
            promotePending()
            setBase(Base(picture: held, overlays: overlays, offset: feed))
        }
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

/// Output-wide overlays above the picture, drawn in this order (later ones on top).
public enum OutputLayer: Int, Sendable, Hashable, CaseIterable, Comparable {
    /// A second channel in a corner window.
    case pictureInPicture
    /// The info banner.
    case banner
    /// The channel number being typed.
    case entry
    /// A short message, such as "No channel 42".
    case message

    public static func < (a: OutputLayer, b: OutputLayer) -> Bool { a.rawValue < b.rawValue }
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
