import Foundation
import GStreamer

/// Receives the decoded output of a channel, already scaled to the output size.
/// Called on decoder streaming threads: copy or forward, never block.
public protocol DecodedFrameSink: AnyObject, Sendable {
    func presentVideo(_ frame: Buffer, feed: UInt)
    func presentAudio(_ samples: Buffer, feed: UInt)
}

/// The formats decoders deliver: raw video at the output size, raw audio at the output rate.
public struct DecodeTarget: Sendable {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
    public var videoCaps: String { "video/x-raw,format=I420,width=\(width),height=\(height),pixel-aspect-ratio=1/1" }
    public static let audioCaps = "audio/x-raw,format=S16LE,layout=interleaved,rate=48000,channels=2"
}

/// A decode pipeline for one shown channel, fed with compressed buffers from its GOP cache.
///
/// Built idle and running (so a flip does not wait for pipeline set-up), then bound to one feed.
/// Buffers are re-timed so that the first keyframe plays "now" in the decoder's clock and the
/// rest follow in real time; the appsinks sync on that clock, so video and audio leave together.
/// A decoder serves one codec family; a feed whose stream changes codec gets a new decoder
/// (`Headend` swaps it at the new codec's first keyframe).
final class ChannelDecoder: @unchecked Sendable {
    /// Decoders are built per codec family; only fully known families are kept spare.
    struct Codec: Sendable, Hashable {
        enum Video: Sendable, Hashable { case h264, h265, other }
        /// `aac` also serves channels without audio (the branch then never gets data).
        enum Audio: Sendable, Hashable { case aac, other }
        var video: Video
        var audio: Audio

        init(video: Video, audio: Audio) {
            self.video = video
            self.audio = audio
        }

        init(video caps: Caps, audio: Caps?) {
            switch caps.mediaType {
            case "video/x-h264": video = .h264
            case "video/x-h265": video = .h265
            default: video = .other
            }
            if let audio, !(audio.mediaType == "audio/mpeg" && audio.int("mpegversion") == 4) {
                self.audio = .other
            } else {
                self.audio = .aac
            }
        }

        /// H.264 with AAC (or no audio): what nearly every channel is, and the spare decoder's kind.
        static let common = Codec(video: .h264, audio: .aac)
    }

    let codec: Codec
    private let pipeline: Pipeline
    private let videoSource: AppSource
    private let audioSource: AppSource
    private let lock = NSLock()
    private var feedValue: UInt = 0
    private weak var sink: DecodedFrameSink?
    /// Source running time to decoder running time, per track (nil until the first keyframe).
    private var offsets: (video: Int64, audio: Int64)?
    private var anchorPTS: ClockTime = 0
    private var audioJumped = false
    private var lastVideo: (source: Int64, shifted: Int64, at: ContinuousClock.Instant)?
    private var lastAudio: (source: Int64, shifted: Int64, at: ContinuousClock.Instant)?

    /// Builds and starts an idle decoder (media thread).
    init(codec: Codec, target: DecodeTarget) throws {
        self.codec = codec
        let videoChain: String
        switch codec.video {
        case .h264: videoChain = "h264parse ! avdec_h264 thread-type=slice"
        case .h265: videoChain = "h265parse ! avdec_h265 thread-type=slice"
        case .other: videoChain = "decodebin"
        }
        // Known decoders are linked up front; decodebin would plug them only when data comes.
        let audioChain = codec.audio == .aac ? "aacparse ! avdec_aac" : "decodebin"
        let description = """
            appsrc name=vsrc format=time is-live=true min-latency=0 ! \(videoChain) ! videoconvert ! videoscale ! \(target.videoCaps) ! appsink name=vout sync=true async=false qos=false max-buffers=4 \
            appsrc name=asrc format=time is-live=true min-latency=0 ! \(audioChain) ! audioconvert ! audioresample ! \(DecodeTarget.audioCaps) ! appsink name=aout sync=true async=false qos=false max-buffers=16
            """
        pipeline = try Pipeline(description: description)
        guard let vsrc = pipeline.appSource(named: "vsrc"), let vout = pipeline.appSink(named: "vout"),
              let asrc = pipeline.appSource(named: "asrc"), let aout = pipeline.appSink(named: "aout") else {
            pipeline.shutdown()
            throw GStreamerError(code: .pipelineDescription, message: "internal: decoder pipeline incomplete")
        }
        videoSource = vsrc
        audioSource = asrc
        vout.onSample { [weak self] sample in
            guard let self, let b = sample.buffer else { return }
            let (feed, sink) = self.binding
            sink?.presentVideo(b, feed: feed)
        }
        aout.onSample { [weak self] sample in
            guard let self, let b = sample.buffer else { return }
            let (feed, sink) = self.binding
            sink?.presentAudio(b, feed: feed)
        }
        // The sinks do not wait to preroll (`async=false`): a channel without audio never feeds
        // the audio branch, which must not hold the pipeline out of PLAYING.
        // The cached GOP is pushed at once and its keyframe is timed "now": each frame is due as
        // soon as it is decoded. Decoders report latency for frame reordering (B-frames: about
        // 2-3 frames); honouring it would hold the first frame back that long for nothing.
        pipeline.setLatency(0)
        try pipeline.setState(.playing)
    }

    private var binding: (UInt, DecodedFrameSink?) { lock.withLock { (feedValue, sink) } }

    var feed: UInt { lock.withLock { feedValue } }

    /// Whether this decoder can go on with a stream whose video format became `caps` (same
    /// codec; size and profile changes are followed in-band by the parsers).
    func decodes(video caps: Caps) -> Bool {
        let bound = videoSource.caps
        return Codec(video: caps, audio: nil).video == codec.video
            && (codec.video != .other || (bound?.mediaType == caps.mediaType && bound?.int("mpegversion") == caps.int("mpegversion")))
    }

    /// Whether this decoder can go on with audio in `caps`.
    func decodes(audio caps: Caps) -> Bool {
        let bound = audioSource.caps
        return Codec(video: videoSource.caps ?? caps, audio: caps).audio == codec.audio
            && (codec.audio != .other || bound == nil || (bound?.mediaType == caps.mediaType && bound?.int("mpegversion") == caps.int("mpegversion")))
    }

    /// Dedicates the decoder to `feed`: sets the compressed formats; frames go to `sink`.
    func bind(feed: UInt, videoCaps: Caps, audioCaps: Caps?, sink: DecodedFrameSink) {
        videoSource.caps = videoCaps
        if let audioCaps { audioSource.caps = audioCaps }
        lock.withLock {
            feedValue = feed
            self.sink = sink
        }
    }

    var messages: AsyncStream<BusMessage> { pipeline.messages }

    /// Re-times and pushes one cached entry (any thread). Entries before the first keyframe
    /// are skipped; audio older than that keyframe too.
    ///
    /// The first keyframe is timed "now" and everything after it keeps its distance from it, so
    /// a channel plays in real time from its cached keyframe and stays that far behind live (it
    /// never fast-forwards). Only a jump in the source's own timeline (a discontinuity: back, or
    /// forward by more than the time that passed) moves a track's timing, so that it carries on
    /// right after its last buffer.
    func push(_ entry: GOPCache.Entry) {
        lock.lock()
        if offsets == nil {
            let now = pipeline.runningTimeNow
            guard entry.isKeyframe, entry.pts.isValid, now.isValid else { lock.unlock(); return }
            let anchor = Int64(bitPattern: UInt64(now)) - Int64(bitPattern: UInt64(entry.pts))
            offsets = (anchor, anchor)
            anchorPTS = entry.pts
        }
        guard var (videoOffset, audioOffset) = offsets, entry.pts.isValid else { lock.unlock(); return }
        let arrival = ContinuousClock.now
        let isVideo = entry.track == .video
        // Decode order is monotonic for video; presentation order is, for audio.
        let t = Int64(bitPattern: UInt64(isVideo && entry.dts.isValid ? entry.dts : entry.pts))
        if let last = isVideo ? lastVideo : lastAudio {
            let sourceStep = t - last.source
            let elapsed = (arrival - last.at).components
            let wallStep = elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000
            if sourceStep < -Self.jump || sourceStep > wallStep + Self.jump {
                // The source's clock jumped: carry on one frame after the last buffer.
                let carryOn = last.shifted + (isVideo ? Self.videoStep : Self.audioStep) - t
                if isVideo { videoOffset = carryOn } else { audioOffset = carryOn; audioJumped = true }
                offsets = (videoOffset, audioOffset)
            }
        }
        if entry.track == .audio && entry.pts < anchorPTS && !audioJumped { lock.unlock(); return }
        let offset = isVideo ? videoOffset : audioOffset
        if isVideo { lastVideo = (t, t + offset, arrival) } else { lastAudio = (t, t + offset, arrival) }
        lock.unlock()
        func shift(_ t: ClockTime) -> ClockTime {
            guard t.isValid else { return .none }
            let v = Int64(bitPattern: UInt64(t)) + offset
            return v < 0 ? 0 : ClockTime(v)
        }
        let retimed = entry.buffer.retimed(pts: shift(entry.pts), dts: shift(entry.dts))
        switch entry.track {
        case .video: videoSource.push(retimed)
        case .audio: audioSource.push(retimed)
        }
    }

    /// A step in a source's timeline larger than this (beyond the time that passed) is a jump.
    private static let jump = Int64(ClockTime.second)
    private static let videoStep = Int64(ClockTime.second / 30)
    private static let audioStep = Int64(ClockTime.second / 50)

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
