import Foundation
import GStreamer
import Logging

/// Decodes the keyframe a flip starts from on its own, so its picture is on screen before the
/// channel's decoder gives it out.
///
/// A decoder of a stream with B-frames (nearly all H.264 and HEVC) holds each picture back until
/// it has decoded the frames that show before it (two or three): the keyframe of a flip leaves
/// the channel's decoder after three frames' decoding, about 30 ms for a 1080i frame on this
/// machine. Decoded alone and drained, it leaves after its own: 10 ms. The channel's decoder
/// gets the GOP once this picture is out (`Headend.decodeFirstPicture`), so the two do not share
/// the two cores while the viewer waits; it starts from the same keyframe, so its first frame is
/// this picture again, and the frames after it catch up within a few frames. An MPEG-2 decoder
/// gives its keyframe out at once, so a warm flip there goes without
/// (`VideoFamily.hasReorderDelay`).
///
/// A cold flip gains more: its keyframe arrives live, and the frames after it 2-3 frame periods
/// later. So does a flip whose decoder is still to be built (no spare of its family: tens to
/// hundreds of milliseconds), and a cold flip whose keyframe came before the sound's format,
/// which the decoder waits for: there the picture is shown before the decoder exists
/// (`Headend.showEarlyPicture`), for MPEG-2 too.
///
/// One per stream format (`PictureFormat`), built idle and PLAYING like the spare decoders:
/// `appsrc ! parser ! decoder ! deinterlace ! convert ! scale ! appsink`, the same conversion as
/// the channel's decoder (deinterlacing; BT.2020, PQ and HLG left at 10 bits and remapped to
/// the output's SDR by table, `DecodeTarget.outputFrame`). The keyframe is
/// drained by an end-of-stream that a flush then clears for the next flip (on the media
/// thread); after a failure it is reset to READY and started again. A flip that comes while it
/// is busy goes without.
final class FirstPictureDecoder: @unchecked Sendable {
    let family: VideoFamily
    private let target: DecodeTarget
    private let pipeline: Pipeline
    private let source: AppSource
    private let lock = NSLock()
    /// Where the picture of the keyframe being decoded goes; nil while idle or once delivered.
    private var deliver: (@Sendable (Buffer) -> Void)?
    /// Told when the keyframe went through, with or without a picture.
    private var whenFinished: (@Sendable () -> Void)?
    /// Told (media thread) each time it is ready for another keyframe.
    private var readyAgain: (@Sendable () -> Void)?
    private var busy = false
    /// The colours of the keyframe's stream when it hands over 10-bit frames to remap (wide
    /// gamut, HDR).
    private var remapFrom: Colorimetry?
    /// Between the end of a keyframe and the decoder's flush or restart.
    private var recycling = false
    private var isShutDown = false
    /// Restarts the decoder if the keyframe taken neither gives a picture nor ends in time;
    /// called off when it does (a cancelled timeout never runs).
    private var deadline: MediaTimeout?
    private var failures = 0
    private var restartCount = 0
    private var keyframeCount = 0
    private let logger: Logger

    /// A keyframe without a picture or an end after this restarts the decoder.
    static let deadline: Duration = .seconds(2)
    /// A decoder that failed this often in a row (an error, or no end within the deadline) is not
    /// used again.
    static let failureLimit = 3

    /// Builds and starts an idle decoder for `family` (media thread).
    init(family: VideoFamily, target: DecodeTarget, logger: Logger) throws {
        guard let chain = family.decoderChain else {
            throw GStreamerError(.pipelineDescription, "internal: no first-picture decoder for \(family.displayName)")
        }
        self.family = family
        self.target = target
        self.logger = logger
        pipeline = try Pipeline(description: """
            appsrc name=src format=time ! \(chain) ! \(target.conversion) ! capsfilter name=size caps="\(target.videoCaps)" ! \
            appsink name=out sync=false async=false qos=false max-buffers=2
            """)
        guard let src = pipeline.appSource(named: "src"), let out = pipeline.appSink(named: "out") else {
            pipeline.shutdown()
            throw GStreamerError(.pipelineDescription, "internal: first-picture pipeline incomplete")
        }
        source = src
        out.onSample { [weak self] sample in
            guard let self, let decoded = sample.buffer else { return }
            let (handler, remapFrom) = self.lock.withLock {
                defer { self.deliver = nil }
                return (self.deliver, self.remapFrom)
            }
            guard let handler, let picture = target.outputFrame(decoded, caps: sample.caps, from: remapFrom) else { return }
            handler(picture)
        }
        do { try pipeline.setState(.playing) } catch {
            pipeline.shutdown()
            throw error
        }
        // Its bus is read on the thread that posts (no task of its own).
        pipeline.observe { [weak self] message in
            switch message {
            case .endOfStream: self?.finished(failed: false)
            case .error(let element, let text, _):
                self?.logger.debug("first picture: \(element): \(text)")
                self?.finished(failed: true)
            default: break
            }
        }
    }

    /// Calls `handler` (media thread) each time it is ready again after a keyframe.
    func whenReady(_ handler: @escaping @Sendable () -> Void) {
        lock.withLock { readyAgain = handler }
    }

    /// How often it was reset to READY and started again after a failure (a keyframe that
    /// went through is flushed instead).
    var restarts: Int { lock.withLock { restartCount } }

    /// How many keyframes it took.
    var keyframesTaken: Int { lock.withLock { keyframeCount } }

    /// Whether it can take a keyframe now.
    var isReady: Bool { lock.withLock { !busy && failures < Self.failureLimit } }

    /// Decodes `keyframe` (with `more`: the second field of a frame sent as two field pictures)
    /// of a stream in `caps`; its picture, at the target's size and colours, goes to `deliver` on
    /// a streaming thread; `finished` is called once it went through, picture or not. False, and
    /// nothing is decoded, while it is busy (media thread).
    func decode(_ keyframe: Buffer, more: [Buffer], caps: Caps, deliver: @escaping @Sendable (Buffer) -> Void,
                finished: @escaping @Sendable () -> Void) -> Bool {
        let taken: Bool = lock.withLock {
            guard !busy, failures < Self.failureLimit else { return false }
            busy = true
            keyframeCount += 1
            self.deliver = deliver
            whenFinished = finished
            // A keyframe that neither gives a picture nor ends (a decoder stuck on bad data) must
            // not keep it busy for good: a timeout on the media thread, for this keyframe only.
            deadline?.cancel()
            deadline = MediaExecutor.shared.schedule(after: Self.deadline) { [weak self] in
                guard let self, self.lock.withLock({ self.busy && !self.recycling }) else { return }
                self.logger.debug("first picture: the \(self.family.displayName) decoder gave nothing within \(Self.deadline); restarting it")
                self.finished(failed: true)
            }
            return true
        }
        guard taken else { return false }
        source.caps = caps
        // Wide gamut and HDR: 10-bit frames, remapped by table as the channel's decoder does.
        let from = DecodeTarget.remapSource(of: caps)
        let wasDeep = lock.withLock {
            defer { remapFrom = from }
            return remapFrom != nil
        }
        if wasDeep != (from != nil), let filter = pipeline.child(named: "size"), let frameCaps = try? Caps(target.frameCaps(deep: from != nil)) {
            filter.set("caps", caps: frameCaps)
        }
        source.push(keyframe.retimed(pts: 0, dts: 0))
        for buffer in more { source.push(buffer.retimed(pts: .none, dts: .none)) }
        source.endOfStreamUntilFlushed()
        return true
    }

    /// The keyframe went through (or failed): flushed for the next one, or back to READY and
    /// PLAYING after a failure (an error, the deadline, or an end without a picture: whatever
    /// state bad data left in the decoder goes with it).
    ///
    /// A flush keeps what a restart throws away and the next keyframe would build again: the
    /// decoder's open codec and the converter's tables (a 10-bit PQ keyframe came out in 14-19 ms
    /// after a flush, 20-25 ms after a restart, measured alone with pad probes).
    private func finished(failed: Bool) {
        let (told, restart, noPicture): ((@Sendable () -> Void)?, Bool, Bool) = lock.withLock {
            defer { whenFinished = nil }
            // Once per keyframe (an error can come with more messages after it).
            guard busy, !recycling, !isShutDown else { return (nil, false, false) }
            recycling = true
            deadline?.cancel()
            deadline = nil
            // The picture handler is taken when the picture comes: still here, there was none.
            return (whenFinished, true, deliver != nil)
        }
        told?()
        guard restart else { return }
        MediaExecutor.shared.schedule { [weak self] in
            guard let self, !self.lock.withLock({ self.isShutDown }) else { return }
            do {
                // A keyframe without a picture (one channel's broken data) restarts it but does
                // not count towards the failures that retire it.
                if failed || noPicture || !self.source.flush() {
                    self.lock.withLock { self.restartCount += 1 }
                    try self.pipeline.setState(.ready)
                    try self.pipeline.setState(.playing)
                }
                self.lock.withLock {
                    self.failures = failed ? self.failures + 1 : 0
                    self.deliver = nil
                    self.whenFinished = nil
                    self.busy = false
                    self.recycling = false
                }
                self.lock.withLock { self.readyAgain }?()
            } catch {
                self.logger.debug("first picture: cannot restart the \(self.family.displayName) decoder: \(error)")
                self.lock.withLock { self.failures = Self.failureLimit }
            }
        }
    }

    /// Stops it (media thread).
    func shutdown() {
        let told = lock.withLock {
            defer { deliver = nil; whenFinished = nil; busy = true; isShutDown = true; deadline?.cancel(); deadline = nil }
            return whenFinished
        }
        told?()
        pipeline.shutdown()
    }
}

/// The kind of stream a first-picture decoder is set up for. A keyframe of another size, scan
/// or colour makes the decoder renegotiate (the codec's context, the deinterlacer, a new
/// converter): a 1080i keyframe after a 720p one took 19-20 ms in the bench instead of 11-13.
/// A flip takes the decoder of its stream's format, else one of its family.
struct PictureFormat: Hashable, Sendable, CustomStringConvertible {
    let family: VideoFamily
    let width: Int
    let height: Int
    let interlaced: Bool
    let colorimetry: String

    init(caps: Caps) {
        family = VideoFamily(caps: caps)
        width = caps.int("width") ?? 0
        height = caps.int("height") ?? 0
        interlaced = (caps.string("interlace-mode") ?? "progressive") != "progressive"
        colorimetry = caps.string("colorimetry") ?? ""
    }

    /// A stand-in for any format of `family` (one not known yet).
    init(anyOf family: VideoFamily) {
        self.family = family
        width = 0
        height = 0
        interlaced = false
        colorimetry = ""
    }

    var description: String { width == 0 ? "any \(family.displayName)" : "\(family.displayName) \(width)x\(height)\(interlaced ? "i" : "p")" }
}

extension VideoFamily {
    /// Whether its decoders hold a keyframe back until the frames shown before it are decoded
    /// (B-frames), so that a flip gains from decoding the keyframe alone (`FirstPictureDecoder`).
    var hasReorderDelay: Bool { self == .h264 || self == .h265 }
}
