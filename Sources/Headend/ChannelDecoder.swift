import FlipboxCore
import Foundation
import GStreamer
import Lineup
import Logging
import MediaFormats

/// Receives the decoded output of a channel, already scaled to the output size (or to the size
/// the sink asks for). Called on decoder streaming threads: copy or forward, never block.
public protocol DecodedFrameSink: AnyObject, Sendable {
    func presentVideo(_ frame: Buffer, feed: FeedID)
    func presentAudio(_ samples: Buffer, feed: FeedID)
    /// Receives the still picture of a channel without video (its radio card): a card itself,
    /// so a sink may put it up at once where it would hold a channel picture back (behind the
    /// tuning card's minimum time). The default shows it as a video frame.
    func presentStill(_ picture: Buffer, feed: FeedID)
    /// Receives a channel's sound passed through undecoded (`DecodeTarget.passthrough`): IEC
    /// 61937 bursts in the output's sample format (48 kHz stereo S16LE), for a receiver on HDMI
    /// or S/PDIF to decode. They must reach the sound card untouched: no gain, no mixing. The
    /// default drops them (a sink that plays no sound).
    func presentBitstream(_ bursts: Buffer, feed: FeedID)
    /// Receives the keyframe a feed starts from, decoded on its own (`FirstPictureDecoder`) while
    /// the feed's decoder starts: it may come after the decoder's own first frame, and is stale
    /// then. A sink that orders pictures drops it once it has had a decoded frame of `feed`; the
    /// default shows it as a video frame.
    func presentFirstPicture(_ picture: Buffer, feed: FeedID)
    /// The size this sink shows pictures at (a picture-in-picture window); nil, the default: the
    /// decode target's (the output's). Asked when a decoder is bound and with every frame: the
    /// decoder scales to it in its own pipeline, follows a change from its next frames on, and
    /// hands over only frames of the size asked for (I420, the target's colours). Any thread.
    var frameSize: (width: Int, height: Int)? { get }
}

extension DecodedFrameSink {
    public var frameSize: (width: Int, height: Int)? { nil }
    public func presentBitstream(_ bursts: Buffer, feed: FeedID) {}
    public func presentStill(_ picture: Buffer, feed: FeedID) { presentVideo(picture, feed: feed) }
    public func presentFirstPicture(_ picture: Buffer, feed: FeedID) { presentVideo(picture, feed: feed) }
}

/// The formats decoders deliver: raw video at the output size, raw audio at the output rate;
/// and how they get there (deinterlacing).
public struct DecodeTarget: Sendable {
    public var width: Int
    public var height: Int
    /// The output's frame rate: interlaced video is deinterlaced to one frame per field when
    /// the output shows 50 frames a second or more, else to one frame per frame.
    public var fps: Int
    /// How interlaced video is deinterlaced; progressive video never is.
    public var deinterlace: Deinterlace
    /// The audio families that reach the receiver behind HDMI or S/PDIF as AC-3, for it to
    /// decode (`--audio-passthrough`): AC-3 as sent, E-AC-3 re-encoded; the rest is decoded.
    public var passthrough: Set<AudioFamily>

    public init(width: Int, height: Int, fps: Int = 30, deinterlace: Deinterlace = .default, passthrough: Set<AudioFamily> = []) {
        self.width = width
        self.height = height
        self.fps = fps
        self.deinterlace = deinterlace
        self.passthrough = passthrough.intersection(AudioFamily.passedThrough)
    }

    /// The colours of the output frames: what GStreamer takes for YUV of the output's size when
    /// caps do not say (the output pipeline, its cards and snapshots assume it), so a BT.601 SD
    /// channel on an HD output is converted to BT.709 instead of shown with the wrong matrix.
    public var colorimetry: String { colorimetryOverride ?? (height >= 2160 ? "bt2020" : height > 576 ? "bt709" : "bt601") }
    private var colorimetryOverride: String?

    /// The same target at another size, in this target's colours (a picture-in-picture window
    /// blended into the output keeps the output's matrix, whatever its own height).
    public func resized(width: Int, height: Int) -> DecodeTarget {
        var t = self
        t.colorimetryOverride = colorimetry
        t.width = width
        t.height = height
        return t
    }

    public var videoCaps: String {
        "video/x-raw,format=I420,width=\(width),height=\(height),pixel-aspect-ratio=1/1,colorimetry=\(colorimetry)"
    }
    /// What a decoder hands over of a wide-gamut or HDR stream: 10-bit 4:2:0 at the target's
    /// size, in the stream's own colours, for `ColourRemap` to bring to the output's
    /// (`outputFrame`).
    public var deepVideoCaps: String {
        "video/x-raw,format=I420_10LE,width=\(width),height=\(height),pixel-aspect-ratio=1/1"
    }
    /// The output's colours.
    public var colour: Colorimetry { Colorimetry(colorimetry, height: height) }
    public static let audioCaps = "audio/x-raw,format=S16LE,layout=interleaved,rate=48000,channels=2"

    /// The conversion from the decoder's format to the output's: the matrix, and the size.
    /// Wide-gamut and HDR streams leave it at 10 bits, in their own colours (`deepVideoCaps`),
    /// and are remapped by table after it (`outputFrame`).
    var conversion: String {
        // Both cores (up to 4) convert and scale each frame: the first picture of a flip waits
        // for it.
        let threads = min(4, max(1, ProcessInfo.processInfo.activeProcessorCount))
        var chain = "videoconvert name=convert n-threads=\(threads) ! videoscale n-threads=\(threads)"
        if let d = deinterlace.element(fieldRate: fps >= 50) { chain = d + " ! " + chain }
        return chain
    }
}

extension DecodeTarget {
    /// Caps for the decoder's output filter: `videoCaps`, or `deepVideoCaps` for a stream that
    /// is remapped.
    func frameCaps(deep: Bool) -> String { deep ? deepVideoCaps : videoCaps }

    /// The colours a stream of `caps` (a parser's) is remapped from when they are wide-gamut or
    /// HDR (its decoders then hand over 10-bit frames); nil when `videoconvert`'s matrix
    /// conversion is all it needs.
    static func remapSource(of caps: Caps) -> Colorimetry? {
        let colour = Colorimetry(caps: caps)
        return colour.needsRemap ? colour : nil
    }

    /// A decoded frame (of `caps`) as the output takes it: a 10-bit frame of a wide-gamut or
    /// HDR stream remapped from `source` (the colours of the stream bound; else the frame's own)
    /// to the output's; any other passes as it is. Blocks the first time a pair of colours is
    /// seen, while its tables are built (`ColourRemap.prepare` builds them ahead). Any thread.
    func outputFrame(_ frame: Buffer, caps: Caps?, from source: Colorimetry?) -> Buffer? {
        guard let caps, caps.string("format") == "I420_10LE" else { return frame }
        let from = source ?? Colorimetry(caps: caps)
        return ColourRemap.shared(from: from, to: colour).remapped(frame, caps: caps)
    }
}

extension Deinterlace {
    /// The element: `mode=auto` passes progressive frames through untouched and deinterlaces
    /// interlaced ones (also frames flagged interlaced in a mixed stream).
    func element(fieldRate: Bool) -> String? {
        switch self {
        case .off: nil
        case .method(let m): "deinterlace mode=auto method=\(m) fields=\(fieldRate ? "all" : "top")"
        }
    }
}

/// A decode pipeline for one shown channel, fed with compressed buffers from its GOP cache.
///
/// Built idle and running (so a flip does not wait for pipeline set-up), then bound to one feed.
/// Buffers are re-timed so that the first keyframe plays "now" in the decoder's clock and the
/// rest follow in real time; the appsinks sync on that clock, so video and audio leave together.
/// A decoder serves one video codec family; a feed whose stream changes codec gets a new
/// decoder (`Headend` swaps it at the new codec's first keyframe). Its audio branch plays one of
/// the channel's audio streams and is replaced, while the picture plays on, when the viewer
/// picks another (`selectAudio`). A radio channel's decoder has no video branch: it shows a
/// still picture, from its first sound on.
///
/// Subtitles are drawn into the decoded picture, so they come and go with the channel's own
/// frames and never reach another channel's (`DecoderSubtitles`: DVB pages, closed captions,
/// teletext, WebVTT cues).
final class ChannelDecoder: @unchecked Sendable {
    /// The families a decoder is built for; spare decoders are kept per family.
    struct Codec: Sendable, Hashable, CustomStringConvertible {
        var video: VideoFamily
        var audio: AudioFamily

        init(video: VideoFamily, audio: AudioFamily) {
            self.video = video
            self.audio = audio
        }

        init(video: Caps?, audio: Caps?) {
            self.init(video: VideoFamily(caps: video), audio: AudioFamily(caps: audio))
        }

        /// H.264 with AAC: what nearly every channel is.
        static let common = Codec(video: .h264, audio: .aac)

        /// Whether a decoder built for `self` can play `wanted`: the same video family, and the
        /// same audio family unless `wanted` has no audio (its branch then never gets data).
        func serves(_ wanted: Codec) -> Bool {
            video == wanted.video && (audio == wanted.audio || (wanted.audio == .none && audio != .other))
        }

        var description: String { "\(video.displayName)/\(audio.displayName)" }
    }

    /// One audio decode chain inside the pipeline (`appsrc ! parse ! decode ! convert ! appsink`),
    /// or, for a family passed through, `appsrc ! parse ! appsink` with frames packed in bursts.
    private struct AudioBranch {
        let bin: Bin
        let source: AppSource
        let family: AudioFamily
        let passthrough: Bool
    }

    let codec: Codec
    private let target: DecodeTarget
    private let pipeline: Pipeline
    private let videoSource: AppSource?
    private let lock = NSLock()
    private var audio: AudioBranch
    /// The audio stream (`GOPCache.Entry.stream`) that plays.
    private var audioStream = 0
    /// Recent entries of every audio stream, so another stream can take over where the sound is
    /// now (entries whose time has passed are let go).
    private var recentAudio: [GOPCache.Entry] = []
    private var feedValue: FeedID = 0
    private weak var sink: DecodedFrameSink?
    /// The size the pipeline scales to (the target's, or the bound sink's `frameSize`), and
    /// whether it hands over 10-bit frames to remap (`DecodeTarget.deepVideoCaps`).
    private var size: (width: Int, height: Int)
    private var deep = false
    /// The colours of the bound stream when they are remapped to the output's (wide gamut, HDR).
    private var remapFrom: Colorimetry?
    /// The last still picture scaled to the sink's size, and what it was scaled from.
    private var scaledStill: (source: Buffer, scaled: Buffer)?
    /// The picture of a channel without video (radio), asked for again every second.
    private var still: (@Sendable () -> Buffer?)?
    private var stillShown: ContinuousClock.Instant?
    /// When each entry plays: the anchor, jumps, the hold for the channel's lag and settling,
    /// LATM preroll, lateness (`PlayoutClock`, given the running time and the instant of each push).
    private var clock: PlayoutClock
    /// How far before the first keyframe LATM sound is taken for its configuration (the GOP cache
    /// keeps that much ahead of a keyframe).
    static let latmPrerollLimit = ClockTime(nanoseconds: PlayoutClock.latmPrerollLimit)
    /// The subtitles drawn into the picture (nil without video).
    private let subtitles: DecoderSubtitles?
    /// Whether the decoder has given out a frame since it was bound, and whether a first picture
    /// decoded on the side was shown before it (`showFirstPicture`).
    private var framesOut = false
    private var firstPictureShown = false
    /// Whether a frame was refused passthrough (said once).
    private var burstRefused = false
    private let logger: Logger

    /// Builds and starts an idle decoder (media thread).
    init(codec: Codec, target: DecodeTarget, logger: Logger) throws {
        self.codec = codec
        self.logger = logger
        self.target = target
        size = (target.width, target.height)
        clock = PlayoutClock(radio: codec.video.decoderChain == nil, latm: codec.audio == .latm)
        var videoOut: AppSink?
        if let chain = codec.video.decoderChain {
            pipeline = try Pipeline(description: """
                appsrc name=vsrc format=time is-live=true min-latency=0 ! ccextractor name=ccx ! \(chain) ! \(target.conversion) ! \
                capsfilter name=size caps="\(target.videoCaps)" ! \(DecoderSubtitles.overlays) ! appsink name=vout sync=true async=false qos=false max-buffers=4 \
                \(DecoderSubtitles.sources)
                """)
            guard let vsrc = pipeline.appSource(named: "vsrc"), let vout = pipeline.appSink(named: "vout"),
                  let drawn = DecoderSubtitles(pipeline: pipeline) else {
                pipeline.shutdown()
                throw GStreamerError(.pipelineDescription, "internal: decoder pipeline incomplete")
            }
            videoSource = vsrc
            videoOut = vout
            subtitles = drawn
        } else {
            pipeline = Pipeline(name: nil)
            videoSource = nil
            subtitles = nil
        }
        do {
            audio = try Self.addAudioBranch(codec.audio, target: target, to: pipeline)
        } catch {
            pipeline.shutdown()
            throw error
        }
        videoOut?.onSample { [weak self] sample in
            guard let self, let decoded = sample.buffer else { return }
            let (feed, sink, remapFrom) = self.frameBinding
            guard let sink else { return }
            if let wanted = sink.frameSize {
                // A sink of its own size gets only frames of that size (frames scaled before it
                // changed are dropped).
                self.reshape(size: wanted)
                guard let caps = sample.caps, caps.int("width") == wanted.width, caps.int("height") == wanted.height else { return }
            }
            guard let frame = self.target.outputFrame(decoded, caps: sample.caps, from: remapFrom) else { return }
            self.noteLateness(of: decoded, video: true)
            sink.presentVideo(frame, feed: feed)
        }
        attachAudioOutput(audio)
        // WebVTT: each frame gets the text of the cue at its time, before the overlay draws it.
        pipeline.child(named: "webvtt")?.staticPad("video_sink")?.onBuffer { [weak self] buffer in
            self?.showCue(at: buffer.pts)
        }
        // The sinks do not wait to preroll (`async=false`): a channel without audio never feeds
        // the audio branch, which must not hold the pipeline out of PLAYING.
        // The cached GOP is pushed at once and its keyframe is timed "now": each frame is due as
        // soon as it is decoded. Decoders report latency for frame reordering (B-frames: about
        // 2-3 frames); honouring it would hold the first frame back that long for nothing.
        pipeline.setLatency(0)
        do { try pipeline.setState(.playing) } catch {
            pipeline.shutdown()
            throw error
        }
    }

    private static func addAudioBranch(_ family: AudioFamily, target: DecodeTarget, to pipeline: Pipeline) throws -> AudioBranch {
        let passed = target.passthrough.contains(family) ? family.passthroughChain : nil
        let chain = passed ?? "\(family.decoderChain) ! audioconvert ! audioresample ! \(DecodeTarget.audioCaps)"
        let bin = try pipeline.addBranch("""
            appsrc name=asrc format=time is-live=true min-latency=0 ! \(chain) ! \
            appsink name=aout sync=true async=false qos=false max-buffers=16
            """)
        guard let source = bin.appSource(named: "asrc") else {
            throw GStreamerError(.pipelineDescription, "internal: decoder audio branch incomplete")
        }
        return AudioBranch(bin: bin, source: source, family: family, passthrough: passed != nil)
    }

    /// Sends the branch's sound to the bound sink (and, for radio, the still picture with it):
    /// decoded samples, or each frame of a family passed through in its IEC 61937 burst.
    private func attachAudioOutput(_ branch: AudioBranch) {
        let passthrough = branch.passthrough
        branch.bin.appSink(named: "aout")?.onSample { [weak self] sample in
            guard let self, let b = sample.buffer else { return }
            if let pts = b.pts.nanoseconds, !self.lock.withLock({ self.clock.playsDecodedAudio(at: pts) }) { return }
            let (feed, sink) = self.binding
            if self.videoSource == nil, let sink, let picture = self.stillDue().flatMap({ self.sized($0, for: sink) }) {
                sink.presentStill(picture, feed: feed)
            }
            guard passthrough else {
                self.noteLateness(of: b, video: false)
                sink?.presentAudio(b, feed: feed)
                return
            }
            do throws(IEC61937.Refusal) {
                let burst = try IEC61937.burst(ac3: b.bytes())
                sink?.presentBitstream(Buffer(bytes: burst).retimed(pts: b.pts, dts: .none, duration: IEC61937.ac3BurstDuration), feed: feed)
            } catch {
                self.refusedBurst(error)
            }
        }
    }

    /// Notes how late `buffer` leaves the decoder (any thread).
    private func noteLateness(of buffer: Buffer, video: Bool) {
        guard let pts = buffer.pts.nanoseconds, let now = runningTime else { return }
        lock.withLock { clock.noteLateness(of: pts, at: now, video: video) }
    }

    /// How late the bound feed's frames and sound have left the decoder so far.
    var playoutLateness: PlayoutLateness { lock.withLock { clock.lateness } }

    /// The pipeline's running time now, in the playout clock's terms (nil before it plays).
    private var runningTime: Int64? { pipeline.runningTimeNow.nanoseconds }

    /// Says once per decoder why a frame was not passed through (it is left out).
    private func refusedBurst(_ refusal: IEC61937.Refusal) {
        let first: Bool = lock.withLock {
            defer { burstRefused = true }
            return !burstRefused
        }
        if first {
            logger.warning("audio passthrough: \(refusal) cannot be passed through and is left out; turn passthrough off to hear it decoded")
        }
    }

    /// The still picture when it is due: once a second after `bind` showed it (so a picture
    /// made after the flip replaces the stand-in).
    private func stillDue() -> Buffer? {
        let now = ContinuousClock.now
        let provider: (@Sendable () -> Buffer?)? = lock.withLock {
            if let shown = stillShown, now - shown < .seconds(1) { return nil }
            stillShown = now
            return still
        }
        return provider?()
    }

    private var binding: (FeedID, DecodedFrameSink?) { lock.withLock { (feedValue, sink) } }

    /// The feed, sink and colours to remap from for a decoded frame, noting that the decoder
    /// gave one out (a first picture decoded on the side is stale from then on).
    private var frameBinding: (FeedID, DecodedFrameSink?, Colorimetry?) {
        lock.withLock {
            framesOut = true
            return (feedValue, sink, remapFrom)
        }
    }

    var feed: FeedID { lock.withLock { feedValue } }

    /// The audio stream that plays.
    var playingAudioStream: Int { lock.withLock { audioStream } }

    /// A decoder without video (radio).
    var isRadio: Bool { videoSource == nil }

    /// Whether this decoder can go on with a stream whose video format became `caps` (same
    /// codec; size and profile changes are followed in-band by the parsers).
    func decodes(video caps: Caps) -> Bool { change(toVideo: caps) == nil }

    /// Why this decoder cannot go on with video of `caps` (another codec, or colours it converts
    /// otherwise: a stream that turns from SDR to HDR, or back, needs 10-bit frames remapped by
    /// table, or no remap); nil when it can.
    func change(toVideo caps: Caps) -> String? {
        let bound = videoSource?.caps
        let sameCodec = VideoFamily(caps: caps) == codec.video
            && (codec.video != .other || (bound?.mediaType == caps.mediaType && bound?.int("mpegversion") == caps.int("mpegversion")))
        guard sameCodec else { return "the picture changed to \(caps.mediaType)" }
        let colours = DecodeTarget.remapSource(of: caps)
        guard colours == lock.withLock({ remapFrom }) else {
            return "the picture's colours changed to \(colours?.description ?? Colorimetry(caps: caps).description)"
        }
        return nil
    }

    /// Whether this decoder can go on with audio stream `stream` in `caps` (always, for a stream
    /// it does not play).
    func decodes(audio caps: Caps, stream: Int = 0) -> Bool {
        let (branch, playing) = lock.withLock { (audio, audioStream) }
        guard stream == playing else { return true }
        let bound = branch.source.caps
        return AudioFamily(caps: caps) == branch.family
            && (branch.family != .other || bound == nil || (bound?.mediaType == caps.mediaType && bound?.int("mpegversion") == caps.int("mpegversion")))
    }

    /// Dedicates the decoder to `feed`: sets the compressed formats and the audio stream to
    /// play; frames go to `sink`. `still` gives the picture of a channel without video.
    func bind(feed: FeedID, videoCaps: Caps?, audioCaps: Caps?, audioStream: Int = 0, sink: DecodedFrameSink,
              still: (@Sendable () -> Buffer?)? = nil, channelLag: Int64? = nil) {
        if let videoCaps {
            videoSource?.caps = videoCaps
            // BT.2020 and PQ/HLG: tone-mapped and brought into the output's gamut by table, from
            // 10-bit frames. (Not BT.601 vs BT.709 primaries, which differ too little for a
            // conversion in linear light to pay.) Takes effect when the decoder negotiates.
            let from = DecodeTarget.remapSource(of: videoCaps)
            lock.withLock { remapFrom = from }
            reshape(deep: from != nil)
        }
        let branch = lock.withLock { audio }
        if let audioCaps { branch.source.caps = audioCaps }
        let wanted = sink.frameSize
        // A still picture to scale (a radio channel in a picture-in-picture window) is scaled
        // with the first sound, on its streaming thread, not here on the media thread.
        let scaleLater = wanted.map { $0 != (target.width, target.height) } ?? false
        lock.withLock {
            feedValue = feed
            self.sink = sink
            clock.bind(channelLag: channelLag)
            framesOut = false
            firstPictureShown = false
            self.audioStream = audioStream
            self.still = still
            stillShown = still != nil && !scaleLater ? .now : nil
        }
        if let wanted { reshape(size: wanted) }
        // Radio: the picture goes up at once (its sound is cached and follows within tens of
        // milliseconds), so the flip completes as fast as a warm flip to a picture.
        if videoSource == nil, !scaleLater, let picture = still?() { sink.presentStill(picture, feed: feed) }
    }

    /// Shows `picture`, the keyframe this feed starts from decoded on its own
    /// (`FirstPictureDecoder`), unless the decoder has given out a frame of the feed already (then
    /// it is stale). The sink is called outside the lock: a frame the decoder gives out between
    /// this check and the sink's call reaches the sink first, and the sink drops the stale
    /// picture (`presentFirstPicture`). Only for a sink of the target's size. Returns whether it
    /// was handed over (any thread).
    @discardableResult
    func showFirstPicture(_ picture: Buffer, feed: FeedID) -> Bool {
        let bound: DecodedFrameSink? = lock.withLock {
            guard feedValue == feed, !framesOut, let sink, size == (target.width, target.height) else { return nil }
            firstPictureShown = true
            return sink
        }
        guard let bound else { return false }
        bound.presentFirstPicture(picture, feed: feed)
        return true
    }

    /// Whether the first picture of the bound feed came from a `FirstPictureDecoder`.
    var showedFirstPicture: Bool { lock.withLock { firstPictureShown } }

    /// Scales to `size`, and hands over 10-bit frames or not (`deep`), from the next frame on
    /// (any thread): the pipeline renegotiates at the next frame. Under the lock, so changes
    /// reach the filter in order.
    private func reshape(size wanted: (width: Int, height: Int)? = nil, deep wantedDeep: Bool? = nil) {
        lock.withLock {
            let (newSize, newDeep) = (wanted ?? size, wantedDeep ?? deep)
            guard newSize != size || newDeep != deep, let filter = pipeline.child(named: "size"),
                  let caps = try? Caps(target.resized(width: newSize.width, height: newSize.height).frameCaps(deep: newDeep)) else { return }
            (size, deep) = (newSize, newDeep)
            filter.set("caps", caps: caps)
        }
    }

    /// A still picture (a frame of the target's size) at the size `sink` asks for; nil when it
    /// cannot be scaled. The last one scaled is kept (the same picture comes every second).
    private func sized(_ still: Buffer, for sink: DecodedFrameSink) -> Buffer? {
        guard let wanted = sink.frameSize, wanted != (target.width, target.height) else { return still }
        if let last = lock.withLock({ scaledStill }), last.source === still { return last.scaled }
        guard let from = try? Caps(target.videoCaps),
              let to = try? VideoFormat(caps: try Caps(target.resized(width: wanted.width, height: wanted.height).videoCaps)),
              let scaled = try? to.converted(still, caps: from) else { return nil }
        lock.withLock { scaledStill = (still, scaled) }
        return scaled
    }

    /// Plays audio stream `stream` (format `caps`) from now on, in place of the one playing
    /// (media thread): a new audio branch takes over at the moment the sound is at, from the
    /// recent entries of that stream; the picture plays on.
    func selectAudio(stream: Int, caps: Caps) throws {
        let family = AudioFamily(caps: caps)
        let fresh = try Self.addAudioBranch(family, target: target, to: pipeline)
        fresh.source.caps = caps
        attachAudioOutput(fresh)
        fresh.bin.syncStateWithParent()
        let old: AudioBranch = lock.withLock {
            let old = audio
            audio = fresh
            audioStream = stream
            clock.selectAudio(latm: family == .latm)
            // Where the sound is now, in the source's time: the new stream starts there.
            guard let audioOffset = clock.offsets?.audio,
                  let position = clock.sourceTime(atRunningTime: runningTime ?? 0, of: .audio) else { return old }
            for entry in recentAudio where entry.stream == stream {
                if let pts = entry.pts.nanoseconds, pts >= position { pushLocked(entry, offset: audioOffset) }
            }
            return old
        }
        pipeline.removeStopped(old.bin)
    }

    /// The subtitles drawn from now on (nil: none; media thread; `DecoderSubtitles.show`):
    /// returns why a teletext page cannot be decoded, nil when it can (or none is asked for, or
    /// the decoder has no video).
    @discardableResult
    func showSubtitles(_ track: SubtitleTrack?, webVTT cues: WebVTTSubtitles? = nil) -> String? {
        subtitles?.show(track, webVTT: cues) { lock.withLock { (clock, runningTime) } }
    }

    /// Whether the element named `name` belongs to a teletext branch (its errors stop that
    /// branch, not the decoder).
    static func isTeletextElement(_ name: String) -> Bool { DecoderSubtitles.isTeletextElement(name) }

    /// Takes the teletext branch out and hides its text (media thread); the choice stays, and
    /// showing it again builds a new branch.
    func stopTeletext() { subtitles?.stopTeletext() }

    /// Sets the WebVTT overlay's text to the cue at the frame time `pts` (streaming thread,
    /// before the overlay draws the frame).
    private func showCue(at pts: ClockTime) {
        let source = pts.nanoseconds.flatMap { pts in lock.withLock { clock.sourceTime(atRunningTime: pts, of: .video) } }
        subtitles?.showCue(at: source)
    }

    /// The subtitles drawn.
    var shownSubtitles: SubtitleTrack? { subtitles?.shownTrack }

    /// Hands the pipeline's messages to `handler` on the thread that posts them (errors posted
    /// before come first); until `shutdown()`.
    func observeMessages(_ handler: @escaping @Sendable (BusMessage) -> Void) { pipeline.observe(handler) }

    /// Re-times and pushes one cached entry (any thread). Entries before the first keyframe
    /// are skipped (for radio: before the first sound); audio older than that keyframe too (AAC in
    /// LATM from the frame that carried its configuration is decoded, not played);
    /// audio of the streams not playing is only kept for a switch.
    ///
    /// The first keyframe is timed "now" and everything after it keeps its distance from it
    /// (plus, once, the wait for data the channel sends later than that keyframe: `channelLag`), so
    /// a channel plays in real time from its cached keyframe and stays that far behind live (it
    /// never fast-forwards). Only a jump in the source's own timeline (a discontinuity: back, or
    /// forward by more than the time that passed) moves a track's timing, so that it carries on
    /// right after its last buffer.
    ///
    /// `live`: the entry arrived just now (not cached or held while the decoder was built): if it
    /// comes later than due, the decoder puts its playing back (settling). The rule is
    /// `PlayoutClock`'s; the decoder reads its running time and the arrival clock for it once.
    func push(_ entry: GOPCache.Entry, live: Bool = false) {
        lock.lock()
        defer { lock.unlock() }
        // The clocks the playout rule decides on, read once.
        let now = PlayoutClock.Now(runningTime: runningTime, instant: DeliveryLag.nanoseconds(.now))
        if entry.track == .subtitle {
            let placed = entry.pts.nanoseconds.flatMap(clock.placeOnPicture)
            subtitles?.take(entry, placed: placed, runningTime: now.runningTime)
            return
        }
        if entry.track == .audio {
            keepRecent(entry, runningTime: now.runningTime)
            if entry.stream != audioStream { return }
        }
        guard let timing = entry.playoutTiming, let push = clock.take(timing, live: live, at: now) else { return }
        pushLocked(entry, offset: push.offset)
    }

    /// Pushes `entry` shifted by `offset` (lock held: pushes keep their order; appsrc does not block).
    private func pushLocked(_ entry: GOPCache.Entry, offset: Int64) {
        switch entry.track {
        case .video: videoSource?.push(entry.retimed(by: offset))
        case .audio: audio.source.push(entry.retimed(by: offset))
        case .subtitle: break  // placed on the picture's timeline by `DecoderSubtitles`
        }
    }

    /// Keeps `entry` among the recent audio (lock held), letting go of what has played.
    private func keepRecent(_ entry: GOPCache.Entry, runningTime: Int64?) {
        recentAudio.append(entry)
        guard recentAudio.count > 64 else { return }
        if let position = clock.sourceTime(atRunningTime: runningTime ?? 0, of: .audio) {
            let played = position - Int64(ClockTime.second)
            if let keep = recentAudio.firstIndex(where: { ($0.pts.nanoseconds ?? .max) >= played }), keep > 0 {
                recentAudio.removeFirst(keep)
            }
        }
        // However far behind live the channel plays, a minute of sound is enough.
        if recentAudio.count > 6000 { recentAudio.removeFirst(recentAudio.count - 6000) }
    }

    /// Pauses or resumes the decoder's pipeline (media thread): a paused decoder holds its
    /// picture and its clock, so what is pushed meanwhile plays on from there when it resumes.
    func setPaused(_ paused: Bool) throws {
        try pipeline.setState(paused ? .paused : .playing)
    }

    /// Stops decoding (media thread).
    func shutdown() {
        pipeline.shutdown()
    }
}
