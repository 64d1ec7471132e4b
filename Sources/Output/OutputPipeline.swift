import FlipboxCore
import Foundation
import GStreamer
import Headend
import Lineup
import Logging

/// The single output pipeline: a fixed format that never changes on a flip.
///
/// A shell around `ScreenMachine`, which decides what is on screen: decoded frames of the shown
/// channel arrive on decoder streaming threads (`presentVideo`), cards and layers from the
/// player; each input is decided under the lock, and the compositions that come out are
/// blended (the channel's logo and the layers in one pass) and pushed after the lock is
/// released, in sequence order. Frames are tagged with their feed id, and a probe on the sink
/// reports the first frame of each feed reaching it: that completes a flip.
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

    /// Guards `screen`.
    private let lock = NSLock()
    private var screen: ScreenMachine<Buffer, Overlay>
    /// Guards the push stage: the last frame pushed and its sequence number.
    private let pushLock = NSLock()
    private var lastFrame: Buffer
    private var lastSequence = 0
    /// Guards what the sink saw: statistics, the feeds whose first frame is awaited, feed timings.
    private let watchLock = NSLock()
    private var sinkFeed: FeedID = .none
    private var awaitingFirstFrame: Set<FeedID> = []
    /// Where a first frame at the sink is reported (nil: nowhere).
    private let reports: MediaReports?
    private var stats = OutputStatistics()
    private var watch = PictureWatch()
    /// Brings every channel's sound to one loudness; nil when off.
    private var leveller: LoudnessLeveller?
    private var feedTimes: [FeedID: FeedTiming] = [:]
    private var lastSinkTime: ContinuousClock.Instant?
    /// The screen's one timer (a held frame's card time, repeating a still picture). Under `lock`:
    /// set once the output has started, read by the threads that arm it.
    private let timerQueue = DispatchQueue(label: "flipbox-output-timer")
    private var timer: DispatchSourceTimer?
    private let audioRing: AudioRing
    /// Makes each channel's logo (nil: the output draws none).
    private let logoMaker: LogoOverlays?
    /// Each channel's logo once made, by channel id (`.some(nil)`: it has none to show). Under `lock`.
    private var logos: [String: Overlay?] = [:]
    /// The DRM device kmssink draws through (its `fd`); closed after the pipeline stops.
    private let kmsDevice: FileHandle?
    /// The X11 window the window output draws into with `fullscreen`; closed after the pipeline stops.
    private let fullscreenWindow: FullscreenWindow?

    /// `kms`: the device, connector and mode (the output's size) for the kms sink; nil leaves the
    /// choice to kmssink (its first device and connector, the mode already set).
    /// `audioDevice`: the ALSA device the sound goes to (`--audio-device`); nil: the default one.
    /// `fullscreen`: the window output covers the screen with no cursor (X11: a ``FullscreenWindow``
    /// the sink draws into, the picture centred when smaller than the screen; Wayland: waylandsink's).
    /// `levelAudio`: every channel's sound is brought to one loudness (``LoudnessLeveller``).
    /// `reports`: where the first frame of each expected feed at the sink is reported
    /// (`MediaReport.firstFrame`), in the head-end's stream.
    /// `logos`: makes the logo a channel's feed shows (`expect(feed:token:channel:)`); nil: none.
    public init(sink: OutputSink, width: Int, height: Int, fps: Int, kms: KMSTarget? = nil, audioDevice: AudioDevice? = nil,
                fullscreen: Bool = false, levelAudio: Bool = false, reports: MediaReports? = nil, logos: LogoOverlays? = nil,
                logger: Logger) throws {
        self.sink = sink
        logoMaker = logos
        self.reports = reports
        leveller = levelAudio ? LoudnessLeveller() : nil
        self.width = width
        self.height = height
        self.fps = fps
        self.logger = logger
        let videoCaps = try Caps("video/x-raw,format=I420,width=\(width),height=\(height),framerate=\(fps)/1,pixel-aspect-ratio=1/1")
        videoFormat = try VideoFormat(caps: videoCaps)
        if sink == .kms, let kms {
            guard let device = FileHandle(forUpdatingAtPath: kms.devicePath) else {
                throw KMSDeviceError(.cannotOpen, "the kms output cannot open \(kms.devicePath) (is the user in the video group?)")
            }
            kmsDevice = device
        } else {
            kmsDevice = nil
        }
        fullscreenWindow = sink == .window && fullscreen && !OutputSink.waylandOnly(ProcessInfo.processInfo.environment)
            ? try FullscreenWindow() : nil
        let soundCard = sink == .headless || OutputSink.soundCardPresent() || (sink == .window && OutputSink.soundServerPresent())
        if !soundCard { logger.notice("no sound card (no ALSA playback device in /dev/snd): playing without sound") }
        let description = """
            appsrc name=vsrc format=time is-live=true do-timestamp=true min-latency=0 ! queue max-size-buffers=1 max-size-bytes=0 max-size-time=0 leaky=downstream ! \(sink.videoDescription(kms: kms, kmsDevice: kmsDevice?.fileDescriptor, fullscreen: fullscreen)) \
            appsrc name=asrc format=time is-live=true do-timestamp=true min-latency=0 ! queue max-size-buffers=0 max-size-bytes=0 max-size-time=200000000 leaky=downstream ! audioconvert ! audioresample ! \(sink.audioDescription(soundCard: soundCard, device: audioDevice))
            """
        pipeline = try Pipeline(description: description)
        guard let vsrc = pipeline.appSource(named: "vsrc"), let asrc = pipeline.appSource(named: "asrc"),
              let vsink = pipeline.child(named: "vsink"), let sinkPad = vsink.staticPad("sink") else {
            pipeline.shutdown()
            throw GStreamerError(.pipelineDescription, "internal: output pipeline incomplete")
        }
        if let fullscreenWindow { vsink.setWindowHandle(fullscreenWindow.handle) }
        videoSource = vsrc
        audioSource = asrc
        vsrc.caps = videoCaps
        asrc.caps = try Caps(DecodeTarget.audioCaps)
        audioRing = AudioRing(capacity: 48000 * 2 * 2)
        lastFrame = try videoFormat.solidFrame(r: 0, g: 0, b: 0)
        screen = ScreenMachine(framePeriod: .seconds(1) / fps, blank: lastFrame, at: .now)
        sinkPad.onBuffer { [weak self] buffer in self?.reachedSink(buffer) }
    }

    /// Starts the output (media thread). Throws with the sink's own error if the display cannot
    /// be opened: the bus says so (an error), or the sink reaches PLAYING, whichever comes first.
    public func start() async throws {
        let outcome = StartOutcome()
        let messages = pipeline.messages
        let logger = self.logger, sinkName = sink.rawValue
        Task {
            for await message in messages {
                switch message {
                case .error(let source, let text, let debug):
                    if !outcome.settle(.failure(GStreamerError(.stateChange, "the \(sinkName) output cannot start: \(text)"))) {
                        logger.error("the \(sinkName) output failed in \(source): \(text) [\(debug ?? "")]")
                    }
                case .stateChanged(_, .playing), .asyncDone:
                    outcome.settle(.success(()))
                default: break
                }
            }
        }
        // 20 ms of silence, so a sound card's sink has a buffer to preroll on: an audio sink that
        // waits for its first buffer (alsasink, or the one autoaudiosink picks) would otherwise
        // hold the output short of PLAYING until a channel's sound came, and no channel plays
        // before the output has started (seen on the guest's HDA card: "the output did not start").
        audioSource.push(Buffer(bytes: [UInt8](repeating: 0, count: 48000 / 50 * 2 * 2)))
        try await MediaExecutor.shared.run { [pipeline] in
            try pipeline.setState(.playing)
        }
        try await outcome.wait(timeout: .seconds(5))
        let timer = DispatchSource.makeTimerSource(queue: timerQueue)
        timer.setEventHandler { [weak self] in self?.timerFired() }
        lock.withLock { self.timer = timer }
        timer.schedule(deadline: .now() + .milliseconds(1000 / fps))
        timer.resume()
    }

    // MARK: Inputs (any thread)

    /// Announces that frames of `feed` should replace the current picture as soon as the first
    /// one arrives, with `overlays` on them. `token` names the request the feed belongs to (see
    /// `showCard`). The first frame is reported once (`MediaReport.firstFrame`) when it reaches
    /// the sink. A newer `expect` replaces an older pending one (which then never reaches the
    /// sink). Ignored for a request already abandoned (`abandon`). Called
    /// before the head-end can make any frame of the feed.
    public func expect(feed: FeedID, token: RequestID? = nil, overlays: [Overlay]) {
        expecting(feed) { $0.expect(feed: feed, token: token, overlays: overlays) }
    }

    /// Has `feed`'s first frame awaited, then steps the screen with `expect` (under `lock`);
    /// stops awaiting it when the screen does not take it. Returns what `expect` returned.
    @discardableResult
    private func expecting(_ feed: FeedID, _ expect: (inout ScreenMachine<Buffer, Overlay>) -> Bool) -> Bool {
        // Awaited first, so a first frame right after the `expect` is reported.
        watchLock.withLock { _ = awaitingFirstFrame.insert(feed) }
        guard !lock.withLock({ expect(&screen) }) else { return true }
        _ = watchLock.withLock { awaitingFirstFrame.remove(feed) }
        return false
    }

    /// `expect(feed:token:overlays:)` for a feed of `channel`, with the channel's logo on it. A
    /// logo never stands between the viewer and the picture: one not made yet is made now, off
    /// the flip's way, and joins the picture when it is.
    public func expect(feed: FeedID, token: RequestID? = nil, channel: Channel) {
        var logo: Overlay??
        let expected = expecting(feed) { screen in
            logo = logos[channel.id]
            return screen.expect(feed: feed, token: token, overlays: (logo ?? nil).map { [$0] } ?? [])
        }
        guard expected, logo == nil, let logoMaker else { return }
        Task { [weak self] in
            let made = await logoMaker.overlay(for: channel)
            self?.took(made, channel: channel.id, feed: feed)
        }
    }

    /// Makes the logos of `channels` now, one after the other, so no flip to them shows its
    /// first pictures without.
    public func makeLogos(of channels: [Channel]) async {
        guard let logoMaker else { return }
        for channel in channels where lock.withLock({ logos[channel.id] == nil }) {
            took(await logoMaker.overlay(for: channel), channel: channel.id, feed: nil)
        }
    }

    /// Forgets the logos of the channels `ids` (their logo or its style changed): made again for
    /// their next feed.
    public func forgetLogos(of ids: Set<String>) async {
        guard let logoMaker, !ids.isEmpty else { return }
        await logoMaker.forget(ids)
        lock.withLock { for id in ids { logos[id] = nil } }
    }

    private func took(_ logo: Overlay?, channel id: String, feed: FeedID?) {
        lock.withLock {
            logos[id] = .some(logo)
            if let feed, let logo { screen.setOverlays([logo], feed: feed) }
        }
    }

    /// Request `token` was abandoned before its picture came (a newer flip superseded it): the
    /// feed it expects, even if announced later by its decoder, never takes the screen.
    public func abandon(request token: RequestID) {
        lock.withLock { screen.abandon(token) }
    }

    /// Expects `feed` again after a card replaced its picture (its source stalled): its next
    /// frame replaces the card and is reported as `MediaReport.firstFrame` at the sink.
    public func expectAgain(feed: FeedID) {
        guard lock.withLock({ screen.expectAgain(feed: feed) }) else { return }
        watchLock.withLock { _ = awaitingFirstFrame.insert(feed) }
    }

    /// Gives `feed` its overlays (its logo came after the flip); shown from its next frame.
    public func setOverlays(_ overlays: [Overlay], feed: FeedID) {
        lock.withLock { screen.setOverlays(overlays, feed: feed) }
    }

    /// Forgets a pending feed (its flip failed or was superseded).
    public func cancel(feed: FeedID) {
        lock.withLock { screen.cancel(feed: feed) }
        _ = watchLock.withLock { awaitingFirstFrame.remove(feed) }
    }

    /// Shows `frame` (a full-screen card for request `token`) instead of any channel picture.
    /// Returns false, and shows nothing, when the feed of request `token` is already on screen:
    /// a card never covers the picture it announces. The card gives way to the first frame of
    /// the pending feed, but no earlier than `minimum` from now.
    @discardableResult
    public func showCard(_ frame: Buffer, token: RequestID?, minimum: Duration) -> Bool {
        let (shown, actions) = lock.withLock {
            screen.showCard(frame, token: token, minimum: minimum, at: .now)
        }
        carryOut(actions)
        return shown
    }

    /// Shows `feed` again (an abandoned flip: the card, or a frame of the abandoned feed that
    /// got on screen first, gives way to the channel still playing).
    public func restore(feed: FeedID) {
        lock.withLock { screen.restore(feed: feed) }
    }

    /// Sets the pictures of one layer (an empty list removes it) and shows the change at once,
    /// also on a still picture.
    public func setLayer(_ layer: ScreenLayer, _ overlays: [Overlay]) {
        carryOut(lock.withLock { screen.setLayer(layer, overlays, at: .now) })
    }

    /// Sets one layer's pictures like `setLayer`, but shows them with the next channel frame
    /// unless the picture is still. For layers that change every frame (picture-in-picture).
    public func updateLayer(_ layer: ScreenLayer, _ overlays: [Overlay]) {
        carryOut(lock.withLock { screen.updateLayer(layer, overlays, at: .now) })
    }

    /// Covers the picture with a full-screen `frame` of the output's format (the multiview), or
    /// uncovers it with nil. While covered, channel frames are neither blended nor shown (their
    /// sound plays on); the layers are still drawn above the cover.
    public func setCover(_ frame: Buffer?) {
        carryOut(lock.withLock { screen.setCover(frame, at: .now) })
    }

    public func presentVideo(_ frame: Buffer, feed: FeedID) {
        carryOut(lock.withLock { screen.videoFrame(frame, feed: feed, at: .now) })
    }

    /// The keyframe a feed starts from, decoded on the side: dropped when the feed's decoder
    /// has given out a frame already (the screen's rule, under its lock).
    public func presentFirstPicture(_ picture: Buffer, feed: FeedID) {
        carryOut(lock.withLock { screen.videoFrame(picture, feed: feed, at: .now, firstPicture: true) })
    }

    /// A radio channel's card: put up at once, also behind the tuning card's minimum time (a
    /// card replacing a card), so its sound starts as soon as it comes.
    public func presentStill(_ picture: Buffer, feed: FeedID) {
        carryOut(lock.withLock { screen.videoFrame(picture, feed: feed, at: .now, still: true) })
    }

    public func presentAudio(_ samples: Buffer, feed: FeedID) {
        play(samples, feed: feed, levelled: true)
    }

    /// Plays IEC 61937 bursts (sound passed through undecoded) bit for bit: no loudness gain,
    /// and the output's conversion passes 48 kHz stereo S16LE through untouched.
    public func presentBitstream(_ bursts: Buffer, feed: FeedID) {
        play(bursts, feed: feed, levelled: false)
    }

    /// Pushes `feed`'s sound when it is the one heard, brought to the common loudness when
    /// `levelled` and the leveller is on; notes when its sound started.
    private func play(_ samples: Buffer, feed: FeedID, levelled: Bool) {
        guard lock.withLock({ screen.playsAudio(of: feed) }) else { return }
        let gain: Double? = watchLock.withLock {
            if feedTimes[feed]?.firstAudio == nil { feedTimes[feed, default: FeedTiming()].firstAudio = .now }
            guard levelled, leveller != nil else { return nil }
            let energy = samples.s16Energy()
            return leveller?.gain(feed: feed.value, energy: energy.sumOfSquares, samples: energy.samples,
                                  seconds: Double(energy.samples) / Double(48000 * 2))
        }
        let played = gain.map { abs($0 - 1) < 0.001 ? samples : samples.s16Scaled(by: $0) } ?? samples
        audioSource.push(played.retimed(pts: .none, dts: .none))
        audioRing.append(played)
    }

    // MARK: Carrying out

    /// Blends and pushes what the machine decided, outside its lock; never a composition older
    /// than the last one pushed. Then arms the timer for the machine's next deadline.
    private func carryOut(_ actions: [ScreenMachine<Buffer, Overlay>.Action]) {
        for action in actions {
            switch action {
            case .compose(let c):
                let composed = (c.overlays.isEmpty ? c.picture : videoFormat.blend(c.overlays, into: c.picture))
                    .retimed(pts: .none, dts: .none, offset: c.feed.value)
                let pushed = pushLock.withLock {
                    guard c.sequence > lastSequence else { return false }
                    lastSequence = c.sequence
                    lastFrame = composed
                    videoSource.push(composed)
                    return true
                }
                if pushed {
                    let digest = c.feed == .none || c.covered ? nil : c.picture.sampledDigest()
                    watchLock.withLock {
                        if let digest { watch.picture(feed: c.feed.value, digest: digest, at: .now, wall: Date()) } else { watch.noPicture(at: .now) }
                    }
                }
                if pushed, c.feed != .none {
                    watchLock.withLock {
                        if feedTimes[c.feed]?.firstVideo == nil {
                            feedTimes[c.feed, default: FeedTiming()].firstVideo = .now
                            if feedTimes.count > 64, let oldest = feedTimes.keys.min() { feedTimes.removeValue(forKey: oldest) }
                        }
                    }
                }
            case .repeatLast:
                pushLock.withLock { videoSource.push(lastFrame.retimed(pts: .none, dts: .none, offset: lastFrame.offset)) }
                watchLock.withLock { stats.repeatedFrames += 1 }
            }
        }
        if !actions.isEmpty { arm() }
    }

    /// Sets the timer to the machine's next deadline.
    private func arm() {
        let (deadline, timer) = lock.withLock { (screen.nextDeadline, self.timer) }
        let delay = max(.zero, deadline - .now)
        timer?.schedule(deadline: .now() + .nanoseconds(Int(delay.milliseconds * 1_000_000)))
    }

    private func timerFired() {
        let actions = lock.withLock { screen.tick(at: .now) }
        carryOut(actions)
        arm()
    }

    private func reachedSink(_ buffer: Buffer) {
        let feed = FeedID(buffer.offset)
        let now = ContinuousClock.now
        let first: Bool = watchLock.withLock {
            stats.framesShown += 1
            watch.frameShown(at: now, wall: Date())
            if let last = lastSinkTime {
                let gap = now - last
                if gap > stats.longestGap { stats.longestGap = gap }
                if gap > .milliseconds(Int64(2000 / fps)) { stats.gapsOverTwoFrames += 1 }
            }
            lastSinkTime = now
            guard feed != sinkFeed else { return false }
            sinkFeed = feed
            return awaitingFirstFrame.remove(feed) != nil
        }
        if first { reports?.send(.firstFrame(feed, at: now)) }
    }

    // MARK: Reading

    /// Counters since start, or since the last `resetStatistics()`.
    public func statistics() -> OutputStatistics { watchLock.withLock { stats } }

    /// Gaps at the sink and still pictures since the start (not reset by `resetStatistics()`).
    public func pictureReading() -> PictureWatch.Reading { watchLock.withLock { watch.reading(at: .now) } }

    public func resetStatistics() {
        watchLock.withLock {
            stats = OutputStatistics()
            lastSinkTime = nil
        }
    }

    /// When the first video frame and the first audio buffer of `feed` were pushed to the output.
    public func timing(feed: FeedID) -> FeedTiming? { watchLock.withLock { feedTimes[feed] } }

    /// The composed output frame as shown, as PNG, optionally scaled to `width`.
    public func snapshotPNG(width: Int? = nil) throws -> [UInt8] {
        let frame = pushLock.withLock { lastFrame }
        return try ImageCodec.png(frame: frame, caps: videoFormat.caps, width: width)
    }

    /// The last `milliseconds` of output audio as 48 kHz stereo S16LE samples.
    public func recentAudio(milliseconds: Int) -> [Int16] {
        audioRing.last(samples: 48 * milliseconds * 2)
    }

    /// Starts the display side again (the whole output through READY, so the kms sink sets its
    /// mode anew): for a display that was unplugged or switched off and is back. The picture and
    /// sound resume from the next frame; nothing else changes.
    public func restartDisplay() async throws {
        try await MediaExecutor.shared.run { [pipeline] in
            try pipeline.setState(.ready)
            try pipeline.setState(.playing)
        }
    }

    public func shutdown() async {
        lock.withLock { timer }?.cancel()
        _ = try? await MediaExecutor.shared.run { [pipeline] in pipeline.shutdown() }
        try? kmsDevice?.close()
        fullscreenWindow?.close()
    }
}

/// The first outcome of starting the output, settled once; waited for with a time limit.
private final class StartOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<Void, GStreamerError>?
    private var waiter: CheckedContinuation<Void, any Error>?

    /// Records the outcome; false when one was already recorded (this one is then ignored).
    @discardableResult
    func settle(_ outcome: Result<Void, GStreamerError>) -> Bool {
        let (first, waiter): (Bool, CheckedContinuation<Void, any Error>?) = lock.withLock {
            guard result == nil else { return (false, nil) }
            result = outcome
            defer { self.waiter = nil }
            return (true, self.waiter)
        }
        waiter?.resume(with: outcome.mapError { $0 as any Error })
        return first
    }

    func wait(timeout: Duration) async throws {
        Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.settle(.failure(GStreamerError(.timeout, "the output did not start within \(timeout.spoken)")))
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let done: Result<Void, GStreamerError>? = lock.withLock {
                if let result { return result }
                waiter = continuation
                return nil
            }
            if let done { continuation.resume(with: done.mapError { $0 as any Error }) }
        }
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
