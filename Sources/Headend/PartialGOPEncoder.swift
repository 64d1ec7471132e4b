import Foundation
import GStreamer

/// Re-encodes part of one GOP for an exact clip: the frames of a GOP whose presentation time
/// falls in a window, decoded from the GOP's keyframe and encoded again as a GOP of their own
/// (a keyframe, then frames without reordering), in the source's codec and stream format.
///
/// A clip cut at keyframes starts up to one GOP early and may end on frames that need a later
/// one; an exact clip re-encodes only its first and last partial GOP and copies everything in
/// between untouched (what GStreamer's encodebin calls smart rendering). The muxers take the
/// change of parameter sets: MP4 keeps one sample description per set, Matroska and MP4 read
/// them in band (`avc3`/`hev1`), TS carries them in the stream anyway.
///
/// Two pipelines, fed from the caller's thread: `appsrc ! parser ! decodebin ! videoconvert !
/// appsink` decodes; the frames inside the window go on to `appsrc ! encoder ! parser !
/// appsink`. Blocking: call on the clip job's queue.
struct PartialGOPEncoder {
    /// The source's caps (the GOP cache's: codec, profile, stream format).
    let caps: Caps
    /// The bitrate to encode at, in kbit/s.
    let kilobitsPerSecond: Int

    /// The encoded frames, with the caps they need.
    struct Result: @unchecked Sendable {
        let caps: Caps
        let buffers: [Buffer]
    }

    /// Throws `.unsupported` when video of `caps` cannot be cut exactly here: interlaced
    /// pictures (which the encoders here would not keep), or a codec with no encoder on the box.
    static func check(_ caps: Caps) throws(ClipFailure) {
        if caps.describesInterlacedVideo {
            throw ClipFailure(.unsupported, "an exact cut of interlaced video is not possible; ask for a clip cut at keyframes")
        }
        _ = try encoder(for: caps, kilobitsPerSecond: 1000)
    }

    /// The encoder chain for the source's codec, ending in its parser in the source's stream
    /// format; throws `.unsupported` when the codec or the encoder is not there.
    static func encoder(for caps: Caps, kilobitsPerSecond kbps: Int) throws(ClipFailure) -> String {
        let keyframes = "key-int-max=100000"
        switch caps.mediaType {
        case "video/x-h264":
            try require("x264enc", for: "H.264", package: "gstreamer1.0-plugins-ugly")
            // A profile the encoder can make: x264 makes baseline, main and high (and the
            // constrained variants as their parents).
            let profile = caps.string("profile").map { $0.replacingOccurrences(of: "constrained-", with: "") }
                .flatMap { ["baseline", "main", "high"].contains($0) ? ",profile=\($0)" : nil } ?? ""
            let format = caps.string("stream-format") ?? "byte-stream"
            return "x264enc speed-preset=faster bframes=0 \(keyframes) bitrate=\(kbps) ! video/x-h264\(profile) ! h264parse config-interval=-1 ! video/x-h264,stream-format=\(format),alignment=au"
        case "video/x-h265":
            try require("x265enc", for: "H.265", package: "gstreamer1.0-plugins-bad")
            let format = caps.string("stream-format") ?? "byte-stream"
            return "x265enc speed-preset=faster \(keyframes) bitrate=\(kbps) option-string=bframes=0 ! h265parse config-interval=-1 ! video/x-h265,stream-format=\(format),alignment=au"
        case "video/mpeg" where caps.int("mpegversion") == 2 || caps.int("mpegversion") == 1:
            try require("avenc_mpeg2video", for: "MPEG-2 video", package: "gstreamer1.0-libav")
            return "avenc_mpeg2video bitrate=\(kbps * 1000) gop-size=1000 max-bframes=0 ! mpegvideoparse"
        default:
            throw ClipFailure(.unsupported, "an exact cut of \(caps.mediaType) is not possible (no encoder for it); ask for a clip cut at keyframes")
        }
    }

    private static func require(_ factory: String, for codec: String, package: String) throws(ClipFailure) {
        guard GStreamer.hasElement(factory) else {
            throw ClipFailure(.unsupported, "an exact cut of \(codec) needs GStreamer's \(factory) (Debian package \(package)); ask for a clip cut at keyframes")
        }
    }

    /// Decodes `entries` (one GOP's video, in decode order, from its keyframe) and encodes the
    /// frames whose presentation time is in `window`. Throws `.writing` when a pipeline fails
    /// and `.unsupported` for interlaced pictures (which the encoders here would not keep).
    func encode(_ entries: [GOPCache.Entry], window: ClosedRange<ClockTime>) throws(ClipFailure) -> Result {
        try Self.check(caps)
        let parser = try ClipWriter.parser(for: caps)
        let encoderChain = try Self.encoder(for: caps, kilobitsPerSecond: kilobitsPerSecond)
        let source = "format=time is-live=false do-timestamp=false block=true max-bytes=16000000"
        let decoder: Pipeline, encoder: Pipeline
        do {
            decoder = try Pipeline(description: "appsrc name=in \(source) ! \(parser) ! decodebin ! videoconvert ! video/x-raw,format=I420 ! appsink name=raw sync=false emit-signals=false max-buffers=0")
            encoder = try Pipeline(description: "appsrc name=raw \(source) ! \(encoderChain) ! appsink name=out sync=false emit-signals=false max-buffers=0")
        } catch {
            throw ClipFailure(.writing, "cannot build the re-encoder for an exact cut: \(error)")
        }
        defer {
            decoder.shutdown()
            encoder.shutdown()
        }
        let collected = Collected()
        guard let input = decoder.appSource(named: "in"), let raw = decoder.appSink(named: "raw"),
              let rawInput = encoder.appSource(named: "raw"), let output = encoder.appSink(named: "out") else {
            throw ClipFailure(.writing, "the re-encoder for an exact cut has no input or output")
        }
        input.caps = caps
        raw.onSample { sample in
            guard let buffer = sample.buffer, window.contains(buffer.pts) else { return }
            if collected.noteRawCaps(sample.caps) { rawInput.caps = sample.caps }
            collected.noteRaw(buffer.pts)
            _ = rawInput.push(buffer)
        }
        output.onSample { sample in collected.add(sample) }
        do {
            try encoder.setState(.playing)
            try decoder.setState(.playing)
        } catch {
            throw ClipFailure(.writing, "cannot start the re-encoder for an exact cut: \(decoder.firstError ?? encoder.firstError ?? "\(error)")")
        }
        for entry in entries where entry.track == .video {
            guard input.push(entry.buffer.retimed(pts: entry.pts, dts: entry.dts)) else { break }
        }
        input.endOfStream()
        guard Self.waitForEnd(decoder) else {
            throw ClipFailure(.writing, "the re-encoder could not decode the cut's GOP: \(decoder.firstError ?? "no end within 60 s")")
        }
        rawInput.endOfStream()
        guard Self.waitForEnd(encoder) else {
            throw ClipFailure(.writing, "the re-encoder could not encode the cut's frames: \(encoder.firstError ?? "no end within 60 s")")
        }
        guard let (outCaps, buffers, rawTimes) = collected.result, !buffers.isEmpty, let firstRaw = rawTimes.first else {
            throw ClipFailure(.writing, "the re-encoder made no frames for the cut (window \(window.lowerBound)...\(window.upperBound) ns)")
        }
        // Encoders move timestamps (GstVideoEncoder starts its output 1000 hours on, to leave
        // room for decode times before presentation). Without reordering, the n-th frame out is
        // the n-th frame in: it gets that frame's time back, and decode time = presentation time.
        let firstOut = buffers[0].pts
        let timed = buffers.enumerated().map { i, b in
            let pts = i < rawTimes.count ? rawTimes[i] : (b.pts >= firstOut ? firstRaw + (b.pts - firstOut) : firstRaw)
            return b.retimed(pts: pts, dts: pts)
        }
        return Result(caps: outCaps, buffers: timed)
    }

    /// Waits (blocking) for the pipeline's end of stream: false on an error or after 60 s.
    private static func waitForEnd(_ pipeline: Pipeline) -> Bool {
        let done = DispatchSemaphore(value: 0)
        let outcome = Outcome()
        let messages = pipeline.messages
        let task = Task.detached {
            for await message in messages {
                if case .endOfStream = message { outcome.set(true); break }
                if case .error = message { outcome.set(false); break }
            }
            done.signal()
        }
        let ended = done.wait(timeout: .now() + 60) == .success && outcome.value
        task.cancel()
        return ended
    }

    private final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var ok = false
        func set(_ value: Bool) { lock.withLock { ok = value } }
        var value: Bool { lock.withLock { ok } }
    }

    /// The encoder's output, gathered from its streaming thread.
    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var caps: Caps?
        private var rawCaps: Caps?
        private var buffers: [Buffer] = []
        private var rawTimes: [ClockTime] = []

        /// A decoded frame went to the encoder (in presentation order).
        func noteRaw(_ pts: ClockTime) { lock.withLock { rawTimes.append(pts) } }

        func add(_ sample: Sample) {
            guard let buffer = sample.buffer else { return }
            lock.withLock {
                if let c = sample.caps { caps = c }
                buffers.append(buffer)
            }
        }

        /// True when `new` differs from the raw caps seen so far (the encoder's input is told).
        func noteRawCaps(_ new: Caps?) -> Bool {
            guard let new else { return false }
            return lock.withLock {
                if let rawCaps, rawCaps == new { return false }
                rawCaps = new
                return true
            }
        }

        var result: (Caps, [Buffer], [ClockTime])? { lock.withLock { caps.map { ($0, buffers, rawTimes) } } }
    }
}
