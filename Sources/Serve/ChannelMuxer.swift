import Foundation
import GStreamer
import Headend
import Lineup
import Logging

/// Remuxes one channel's compressed ingest, as an `IngestTap` gives it, into an MPEG transport
/// stream for a `TransportStreamFanout`: `appsrc` (video, and audio when the channel has sound)
/// with the tap's caps → `mpegtsmux` → `appsink`. Nothing is decoded or re-encoded.
///
/// One muxer per served channel, however many clients: they all share its output. Built at the
/// channel's first keyframe (once the audio format is known, or 500 ms later without one) and
/// rebuilt when the picture or sound changes codec. Entries are re-timed onto the muxer's clock
/// (the newest cached entry is "now"), so a live `mpegtsmux` can time out a track that stops
/// instead of waiting for it forever; a jump in the source's timeline (a reconnect) carries a
/// track on right after its last buffer.
///
/// Threading: `run` is the one consumer of the tap (one task); pipelines are built and stopped on
/// the media thread; the appsink hands output to the fanout on GStreamer's streaming thread.
final class ChannelMuxer: @unchecked Sendable {
    let channel: Channel
    private let fanout: TransportStreamFanout
    private let hasAudioStream: @Sendable () -> Bool
    private let logger: Logger
    private var pipeline: Pipeline?
    private var videoSource: AppSource?
    private var audioSource: AppSource?
    private var videoCaps: Caps?
    private var audioCaps: Caps?
    /// Entries waiting for the pipeline (from the first keyframe on, plus audio before it).
    private var held: [GOPCache.Entry] = []
    private var heldSince: ContinuousClock.Instant?
    private var video = TrackClock(step: Int64(ClockTime.second / 30))
    private var audio = TrackClock(step: Int64(ClockTime.second / 50))
    /// Pipelines built (1 after the first keyframe; more after codec changes).
    private(set) var builds = 0

    /// How long the muxer waits after the first keyframe for the audio format.
    static let audioWait: Duration = .milliseconds(500)
    /// How long `mpegtsmux` waits for a late track before muxing without it.
    static let muxLatency: ClockTime = 300 * .millisecond

    init(channel: Channel, fanout: TransportStreamFanout, hasAudioStream: @escaping @Sendable () -> Bool, logger: Logger) {
        self.channel = channel
        self.fanout = fanout
        self.hasAudioStream = hasAudioStream
        self.logger = logger
    }

    /// Feeds the muxer from `tap` until the tap ends; throws the tap's end (`TapEnd`) or a muxer
    /// error. Stops the pipeline before returning.
    func run(_ tap: IngestTap) async throws {
        videoCaps = tap.videoCaps
        audioCaps = tap.audioCaps
        do {
            for try await entry in tap {
                try await receive(entry)
            }
        } catch {
            await stop()
            throw error
        }
        await stop()
    }

    private func receive(_ entry: GOPCache.Entry) async throws {
        if entry.track == .video, entry.isKeyframe, let caps = entry.caps {
            if let current = videoCaps, current.mediaType != caps.mediaType, pipeline != nil {
                logger.warning("serving channel \(channel.number): the picture changed to \(caps.mediaType); restarting its transport stream at this keyframe")
                await stop()
            }
            videoCaps = caps
        }
        if entry.track == .audio, let caps = entry.caps {
            if let current = audioCaps, !Self.sameFormat(current, caps), pipeline != nil {
                logger.warning("serving channel \(channel.number): the sound changed to \(caps.mediaType); restarting its transport stream at the next keyframe")
                await stop()
            }
            audioCaps = caps
        }
        if let pipeline, pipeline.firstError == nil {
            push(entry)
            return
        }
        if let pipeline, let error = pipeline.firstError {
            logger.error("serving channel \(channel.number): the muxer failed (\(error)); restarting it at the next keyframe")
            await stop()
        }
        hold(entry)
        guard let start = held.first, start.isKeyframe, let videoCaps, let heldSince else { return }
        let audioReady = audioCaps != nil || !hasAudioStream() || ContinuousClock.now - heldSince >= Self.audioWait
        guard audioReady else { return }
        try await build(video: videoCaps, audio: audioCaps)
        let backlog = held
        held = []
        self.heldSince = nil
        // The newest held entry plays "now"; what was cached before it is in the past.
        let newest = backlog.map { $0.dts.isValid ? $0.dts : $0.pts }.filter(\.isValid).max() ?? start.pts
        anchor(newest: newest)
        for e in backlog { push(e) }
    }

    /// Keeps what the pipeline will start from: from the first keyframe on, and audio that plays
    /// from it (audio that came just before it is kept for a moment).
    private func hold(_ entry: GOPCache.Entry) {
        if held.first?.isKeyframe == true || entry.isKeyframe {
            if entry.isKeyframe && held.first?.isKeyframe != true {
                let audioAfter = held.filter { $0.track == .audio && $0.pts.isValid && entry.pts.isValid && $0.pts >= entry.pts }
                held = [entry] + audioAfter
                heldSince = .now
            } else if entry.isKeyframe, let first = held.first, first.isKeyframe, held.count > 4096 {
                held = [entry]
                heldSince = .now
            } else {
                held.append(entry)
            }
        } else if entry.track == .audio {
            held.append(entry)
            if held.count > 256 { held.removeFirst(held.count - 256) }
        }
    }

    private static func sameFormat(_ a: Caps, _ b: Caps) -> Bool {
        a.mediaType == b.mediaType && a.int("mpegversion") == b.int("mpegversion")
            && a.int("rate") == b.int("rate") && a.int("channels") == b.int("channels")
    }

    private func build(video: Caps, audio: Caps?) async throws {
        let logger = self.logger
        let number = channel.number
        let built = try await MediaExecutor.shared.run { () throws -> (Pipeline, AppSource, AppSource?) in
            let source = "format=time is-live=true do-timestamp=false min-latency=0 max-bytes=0"
            var description = """
                mpegtsmux name=mux alignment=7 latency=\(Self.muxLatency) ! appsink name=out sync=false async=false emit-signals=false \
                appsrc name=vsrc \(source) ! mux.
                """
            if audio != nil { description += " appsrc name=asrc \(source) ! mux." }
            let pipeline = try Pipeline(description: description)
            guard let vsrc = pipeline.appSource(named: "vsrc"), let out = pipeline.appSink(named: "out") else {
                pipeline.shutdown()
                throw GStreamerError(.pipelineDescription, "internal: muxer pipeline incomplete")
            }
            vsrc.caps = video
            let asrc = pipeline.appSource(named: "asrc")
            if let audio { asrc?.caps = audio }
            let fanout = self.fanout
            out.onSample { sample in
                guard let buffer = sample.buffer else { return }
                buffer.withBytes { fanout.append($0) }
            }
            do {
                try pipeline.setState(.playing)
            } catch {
                pipeline.shutdown()
                throw GStreamerError(.stateChange, "cannot mux channel \(number) (\(video.mediaType)\(audio.map { ", \($0.mediaType)" } ?? "")) into MPEG-TS: \(pipeline.firstError ?? "\(error)")")
            }
            return (pipeline, vsrc, asrc)
        }
        pipeline = built.0
        videoSource = built.1
        audioSource = built.2
        builds += 1
        fanout.resetCache()
        self.video.reset()
        self.audio.reset()
        logger.debug("serving channel \(number): muxing \(video.mediaType)\(audio.map { " and \($0.mediaType)" } ?? "") into MPEG-TS")
    }

    private func anchor(newest: ClockTime) {
        guard let pipeline else { return }
        let now = pipeline.runningTimeNow
        let offset = Int64(bitPattern: UInt64(now.isValid ? now : 0)) - Int64(bitPattern: UInt64(newest))
        video.offset = offset
        audio.offset = offset
    }

    private func push(_ entry: GOPCache.Entry) {
        switch entry.track {
        case .video:
            guard let videoSource, let (pts, dts) = video.retime(entry) else { return }
            videoSource.push(entry.buffer.retimed(pts: pts, dts: dts))
        case .audio:
            guard let audioSource, let (pts, dts) = audio.retime(entry) else { return }
            audioSource.push(entry.buffer.retimed(pts: pts, dts: dts))
        case .subtitle:
            break  // taps carry no subtitle pages
        }
    }

    /// Stops the pipeline (the next keyframe builds a new one).
    private func stop() async {
        guard let pipeline else { return }
        self.pipeline = nil
        videoSource = nil
        audioSource = nil
        await MediaExecutor.shared.runDetachedShutdown(pipeline)
    }
}

extension MediaExecutor {
    /// Shuts `pipeline` down on the media thread.
    func runDetachedShutdown(_ pipeline: Pipeline) async {
        _ = try? await run { pipeline.shutdown() }
    }
}

/// One track's mapping from the ingest's running time to the muxer's: a fixed offset, moved
/// only when the source's timeline jumps (back, or forward by more than the time that passed),
/// so the track carries on one frame after its last buffer and never goes back.
struct TrackClock: Sendable {
    var offset: Int64 = 0
    let step: Int64
    private var last: (source: Int64, shifted: Int64, at: ContinuousClock.Instant)?

    init(step: Int64) { self.step = step }

    mutating func reset() { last = nil }

    /// The new (pts, dts) of `entry`, nil when it has no time.
    mutating func retime(_ entry: GOPCache.Entry, now: ContinuousClock.Instant = .now) -> (ClockTime, ClockTime)? {
        let reference = entry.dts.isValid ? entry.dts : entry.pts
        guard reference.isValid else { return nil }
        let t = Int64(bitPattern: UInt64(reference))
        if let last {
            let elapsed = (now - last.at).components
            let wall = elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000
            let stepped = t - last.source
            if stepped < -Self.jump || stepped > wall + Self.jump {
                offset = last.shifted + step - t
            }
        }
        last = (t, t + offset, now)
        func shift(_ time: ClockTime) -> ClockTime {
            guard time.isValid else { return .none }
            let v = Int64(bitPattern: UInt64(time)) + offset
            return v < 0 ? 0 : ClockTime(v)
        }
        return (shift(entry.pts), shift(entry.dts))
    }

    private static let jump = Int64(ClockTime.second)
}
