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
    private var offset: Int64?
    private var anchorPTS: ClockTime = 0

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
    func push(_ entry: GOPCache.Entry) {
        lock.lock()
        if entry.isKeyframe {
            let now = pipeline.runningTimeNow
            if now.isValid {
                let wanted = Int64(bitPattern: UInt64(now)) - Int64(bitPattern: UInt64(entry.pts))
                // Anchor on the first keyframe; re-anchor when the source's clock jumped.
                if offset == nil || abs(wanted - (offset ?? 0)) > Int64(ClockTime.second) {
                    offset = wanted
                    anchorPTS = entry.pts
                }
            }
        }
        guard let offset, entry.pts.isValid else { lock.unlock(); return }
        if entry.track == .audio && entry.pts < anchorPTS { lock.unlock(); return }
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

    /// Stops decoding (media thread).
    func shutdown() {
        pipeline.shutdown()
    }
}
