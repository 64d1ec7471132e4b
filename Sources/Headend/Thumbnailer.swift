import Foundation
import GStreamer
import Lineup

/// Why a thumbnail could not be made, for the person asking. Switcher and Control call it `ThumbnailError`.
public typealias ThumbnailFailure = Failure<ThumbnailFailureCode>

public enum ThumbnailFailureCode: String, FailureCode {
    /// No channel with that number.
    case unknownChannel
    /// The channel is cold, connecting, stalled or failed.
    case notWarm
    /// The channel is warm but holds no keyframe (yet, or its GOP outgrew the cache).
    case noPicture
    /// The keyframe could not be decoded or encoded.
    case failed
    /// Decoding took longer than `Thumbnailer.timeout`.
    case timedOut

    public var kind: FailureKind {
        switch self {
        case .unknownChannel: .notFound
        case .notWarm, .noPicture: .conflict
        case .failed: .upstream
        case .timedOut: .timedOut
        }
    }
}

/// Still pictures of warm channels, made by decoding only the keyframe cached in a channel's
/// `GOPCache` (nothing decodes continuously): appsrc (keyframe with its SPS/PPS, caps from the
/// cache) ! parser ! decoder ! videoconvert ! videoscale ! jpegenc ! appsink, built for one
/// picture and torn down. A wide-gamut or HDR picture leaves the pipeline at 10 bits and is
/// tone-mapped to BT.709 (`ColourRemap`, as the output shows it) before it is encoded.
///
/// Isolated to the media thread: pipelines are built, started and stopped there; waiting for
/// the picture suspends and never blocks it. The JPEG is kept per channel and width and served
/// again until the cache holds a newer keyframe, so a channel costs at most one keyframe decode
/// per GOP however often it is asked; concurrent requests for one picture share one decode.
///
/// One per process (`shared`): remembered pictures are keyed by the cache, and dropped once
/// their cache is gone.
public actor Thumbnailer {
    public nonisolated var unownedExecutor: UnownedSerialExecutor { MediaExecutor.shared.asUnownedSerialExecutor() }

    public static let shared = Thumbnailer()

    /// A picture takes longer than this: it fails with `timedOut`.
    public static let timeout: Duration = .seconds(2)
    /// Widths remembered per channel; the oldest goes first.
    static let widthsPerChannel = 4

    /// One JPEG of a channel's keyframe.
    public struct Picture: Sendable {
        public var jpeg: [UInt8]
        public var width: Int
        public var height: Int
        /// Running time of the keyframe in the channel's ingest: equal for pictures of the same keyframe.
        public var keyframeTime: ClockTime
        /// How long decoding and encoding took when it was made.
        public var madeIn: Duration
        /// True when served from the remembered JPEG, without decoding.
        public var reused: Bool
    }

    private struct Key: Hashable {
        var cache: ObjectIdentifier
        var width: Int?
    }

    private struct Made {
        weak var cache: GOPCache?
        /// The keyframe the picture is of (held, so its identity cannot be reused).
        let keyframe: Buffer
        let task: Task<Picture, any Error>
        let at: ContinuousClock.Instant
    }

    private var made: [Key: Made] = [:]
    public init() {}

    /// A JPEG of the keyframe cached in `cache`, `width` pixels wide (height following the
    /// picture's aspect) or at the stream's size when nil.
    public func picture(of cache: GOPCache, width: Int?) async throws(ThumbnailFailure) -> Picture {
        forgetGone()
        guard let (keyframe, caps) = cachedKeyframe(cache) else {
            throw ThumbnailFailure(.noPicture, "no keyframe cached yet")
        }
        let key = Key(cache: ObjectIdentifier(cache), width: width)
        if let known = made[key], known.keyframe === keyframe.buffer {
            do {
                var picture = try await known.task.value
                picture.reused = true
                return picture
            } catch {
                // A failed picture is tried again on the next request.
                if made[key]?.task == known.task { made[key] = nil }
                throw error as? ThumbnailFailure ?? ThumbnailFailure(.failed, "\(error)")
            }
        }
        let task = Task { () async throws -> Picture in
            try await self.decode(keyframe, caps: caps, width: width)
        }
        made[key] = Made(cache: cache, keyframe: keyframe.buffer, task: task, at: .now)
        trim(cache)
        do {
            return try await task.value
        } catch {
            if made[key]?.task == task { made[key] = nil }
            throw error as? ThumbnailFailure ?? ThumbnailFailure(.failed, "\(error)")
        }
    }

    /// The cached keyframe and the caps to decode it.
    private func cachedKeyframe(_ cache: GOPCache) -> (GOPCache.Entry, Caps)? {
        cache.startKeyframe()
    }

    private func decode(_ keyframe: GOPCache.Entry, caps: Caps, width: Int?) async throws(ThumbnailFailure) -> Picture {
        let started = ContinuousClock.now
        let size = Self.outputSize(caps: caps, width: width)
        let remapFrom = DecodeTarget.remapSource(of: caps)
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline(description: Self.description(for: caps, width: size.width, height: size.height, deep: remapFrom != nil))
        } catch {
            throw ThumbnailFailure(.failed, "cannot build a thumbnail decoder for \(caps.mediaType): \(error)")
        }
        // Stopped after the picture is handed over, so the caller does not wait for the teardown.
        defer { MediaExecutor.shared.schedule { pipeline.shutdown() } }
        guard let source = pipeline.appSource(named: "src"), let sink = pipeline.appSink(named: "sink") else {
            throw ThumbnailFailure(.failed, "internal: thumbnail pipeline incomplete")
        }
        let delivery = Delivery()
        sink.onSample { sample in delivery.deliver(Self.still(sample, remappedFrom: remapFrom)) }
        let messages = Task {
            for await message in pipeline.messages {
                switch message {
                case .error(_, let text, _): delivery.deliver(.failure(ThumbnailFailure(.failed, "cannot decode the keyframe: \(text)")))
                case .endOfStream: delivery.deliver(.failure(ThumbnailFailure(.failed, "the decoder produced no picture from the keyframe")))
                default: break
                }
            }
        }
        defer { messages.cancel() }
        let timer = Task {
            try await Task.sleep(for: Self.timeout)
            delivery.deliver(.failure(ThumbnailFailure(.timedOut, "no picture after \(Self.timeout.spoken)")))
        }
        defer { timer.cancel() }
        source.caps = caps
        do {
            try pipeline.setState(.playing)
        } catch {
            throw ThumbnailFailure(.failed, "cannot start the thumbnail decoder: \(pipeline.firstError ?? error.message)")
        }
        source.push(keyframe.buffer.retimed(pts: 0, dts: 0))
        source.endOfStream()
        let still = try await delivery.wait().get()
        return Picture(jpeg: still.jpeg, width: still.width ?? size.width, height: still.height ?? size.height,
                       keyframeTime: keyframe.pts, madeIn: ContinuousClock.now - started, reused: false)
    }

    /// The JPEG of the pipeline's sample: its own, or for a 10-bit frame of colours `remappedFrom`
    /// (streaming thread), the frame remapped to BT.709 and encoded here.
    private static func still(_ sample: Sample, remappedFrom: Colorimetry?) -> Result<Still, ThumbnailFailure> {
        guard let buffer = sample.buffer else { return .failure(ThumbnailFailure(.failed, "the decoder produced no picture")) }
        let (width, height) = (sample.caps?.int("width"), sample.caps?.int("height"))
        guard let remappedFrom else {
            let jpeg = buffer.bytes()
            guard ImageCodec.isJPEG(jpeg) else { return .failure(ThumbnailFailure(.failed, "the encoder produced no JPEG")) }
            return .success(Still(jpeg: jpeg, width: width, height: height))
        }
        guard let caps = sample.caps, let width, let height,
              let frame = ColourRemap.shared(from: remappedFrom, to: Colorimetry("bt709", height: 720)).remapped(buffer, caps: caps) else {
            return .failure(ThumbnailFailure(.failed, "cannot bring the \(remappedFrom) picture to BT.709"))
        }
        do {
            let rawCaps = try Caps("video/x-raw,format=I420,width=\(width),height=\(height),framerate=0/1,pixel-aspect-ratio=1/1,colorimetry=bt709")
            return .success(Still(jpeg: try ImageCodec.jpeg(frame: frame, caps: rawCaps), width: width, height: height))
        } catch {
            return .failure(ThumbnailFailure(.failed, "cannot encode the picture: \(error)"))
        }
    }

    /// The picture size: `width` (or the stream's display width) and the height that keeps the
    /// aspect, both even.
    static func outputSize(caps: Caps, width: Int?) -> (width: Int, height: Int) {
        let w = caps.int("width") ?? 1280, h = caps.int("height") ?? 720
        let par = caps.fraction("pixel-aspect-ratio").map { $0.1 > 0 ? Double($0.0) / Double($0.1) : 1 } ?? 1
        let displayWidth = Double(w) * par
        let outWidth = width ?? Int(displayWidth.rounded())
        let outHeight = Double(outWidth) * Double(h) / max(1, displayWidth)
        func even(_ v: Double) -> Int { max(2, Int((v / 2).rounded()) * 2) }
        return (even(Double(outWidth)), even(outHeight))
    }

    /// The one-picture pipeline for a stream of `caps`. Only numbers are interpolated. One
    /// decoder thread: a single picture gains nothing from a thread pool, and starting one made
    /// the median picture about 10 ms slower on the loaded 2-core test machine (42 vs 32 ms).
    /// `deep`: the picture leaves at 10 bits, in the stream's colours, for `ColourRemap`.
    static func description(for caps: Caps, width: Int, height: Int, deep: Bool = false) -> String {
        let decode: String
        switch caps.mediaType {
        case "video/x-h264": decode = "h264parse ! avdec_h264 max-threads=1"
        case "video/x-h265": decode = "h265parse ! avdec_h265 max-threads=1"
        default: decode = "decodebin"
        }
        let picture = "video/x-raw,width=\(width),height=\(height),pixel-aspect-ratio=1/1"
        return """
            appsrc name=src format=time ! \(decode) ! videoconvert ! videoscale ! \
            \(deep ? picture + ",format=I420_10LE" : picture + " ! jpegenc quality=85") ! \
            appsink name=sink sync=false async=false max-buffers=1
            """
    }

    /// Forgets pictures of caches that are gone (their channel or player was shut down).
    private func forgetGone() {
        made = made.filter { $0.value.cache != nil }
    }

    /// Keeps at most `widthsPerChannel` widths of `cache`.
    private func trim(_ cache: GOPCache) {
        let id = ObjectIdentifier(cache)
        let mine = made.filter { $0.key.cache == id }.sorted { $0.value.at < $1.value.at }
        for (key, _) in mine.dropLast(Self.widthsPerChannel) { made[key] = nil }
    }
}

/// A JPEG out of a thumbnail pipeline, with its size when the pipeline said it.
private struct Still: Sendable {
    let jpeg: [UInt8]
    let width: Int?
    let height: Int?
}

/// The first of: a picture, a pipeline error, end of stream, a timeout. Delivered once (any thread).
private final class Delivery: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<Still, ThumbnailFailure>?
    private var waiter: CheckedContinuation<Result<Still, ThumbnailFailure>, Never>?

    func deliver(_ value: Result<Still, ThumbnailFailure>) {
        lock.lock()
        guard result == nil else { lock.unlock(); return }
        result = value
        let waiter = self.waiter
        self.waiter = nil
        lock.unlock()
        waiter?.resume(returning: value)
    }

    func wait() async -> Result<Still, ThumbnailFailure> {
        await withCheckedContinuation { continuation in
            lock.lock()
            if let result {
                lock.unlock()
                continuation.resume(returning: result)
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
    }
}
