import Foundation
import GStreamer

/// Writes a stretch of a timeshift buffer to a file without re-encoding: `appsrc` per track with
/// the buffer's caps → the codec's parser → the container's muxer → `filesink`.
///
/// The clip starts at the keyframe of the GOP holding `from` and ends with the last entry at or
/// before `to` (so it is at most one GOP longer than asked). Timestamps are moved so the clip
/// starts at zero. Blocking: `write` runs on the caller's thread (a clip job's queue), reads
/// segment files there, and builds and stops the pipeline on the media thread.
struct ClipWriter {
    let buffer: TimeshiftBuffer
    /// Audio formats by stream, for audio entries that do not carry caps (the cache's).
    let audioCaps: [Int: Caps]
    let container: ClipContainer
    /// Cut at the asked times, not at keyframes: the first and the last partial GOP are
    /// re-encoded (`PartialGOPEncoder`), everything between is copied.
    var exact = false

    /// The GOPs and the wall-clock span a clip of `range` takes from the buffer.
    func plan(_ range: ClosedRange<Date>) -> (gops: [TimeshiftBuffer.GOPInfo], start: Date)? {
        guard let first = buffer.gop(at: range.lowerBound) else { return nil }
        let gops = buffer.index.filter { $0.serial >= first.serial && $0.start <= range.upperBound }
        return gops.isEmpty ? nil : (gops, first.start)
    }

    /// Writes `range` to `file`; `progress` gets the fraction done (0...1) after each GOP.
    /// Returns the clip's length in seconds. Throws `ClipFailure`. Segment files are read and
    /// buffers pushed (which waits while the muxer is behind) on `queue`, never on the media
    /// thread or a Swift concurrency thread.
    func write(_ range: ClosedRange<Date>, to file: URL, queue: DispatchQueue, progress: @Sendable (Double) async -> Void) async throws(ClipFailure) -> Double {
        guard let planned = plan(range) else { throw ClipFailure(.notBuffered, "nothing buffered in that range") }
        let buffer = self.buffer
        let (gops, start, first) = try await opening(planned.gops, range, queue: queue)
        guard let key = first.first, key.isKeyframe, let videoCaps = key.caps else {
            throw ClipFailure(.notBuffered, "the buffer holds no keyframe to start the clip at")
        }
        // Audio formats: those the first GOP carries, else the channel's.
        var audio = audioCaps
        for entry in first where entry.track == .audio { if let caps = entry.caps { audio[entry.stream] = caps } }
        let streams = Set(first.filter { $0.track == .audio }.map(\.stream))
        audio = audio.filter { streams.contains($0.key) && (try? Self.parser(for: $0.value)) != nil }
        var videoParser = try Self.parser(for: videoCaps)
        var keyBase = key.dts.isValid ? min(key.dts, key.pts) : key.pts
        // An exact cut: the partial GOPs at the ends are re-encoded, on the job's queue.
        var ends = ExactEnds()
        if exact {
            let writer = self
            ends = try await Self.reading(on: queue) { try writer.exactEnds(range, gops: gops, first: first) }
            if let from = ends.from { keyBase = from >= ends.delay ? from - ends.delay : 0 }
            videoParser = container.exactParser(for: videoCaps) ?? videoParser
        }
        // The copied frames keep their caps, with what the re-encoded ends' caps say of the
        // picture and the source's leave unsaid (the decoder's defaults the encoder wrote down):
        // Matroska takes a change of parameter sets between them, not of the picture's format.
        let described = [ends.head, ends.tail].compactMap { $0 }.first?.caps
        let copiedCaps = described.map { videoCaps.adding(["colorimetry", "chroma-site", "interlace-mode"], from: $0) } ?? videoCaps
        let startCaps = ends.head?.caps ?? copiedCaps
        let base = keyBase

        let pipeline = try await build(file: file, video: (startCaps, videoParser), audio: audio)
        let video = pipeline.appSource(named: "video")
        let audioSources = Dictionary(uniqueKeysWithValues: audio.keys.map { ($0, pipeline.appSource(named: "audio\($0)")) })
        var last = start
        let delay = ends.delay
        let lastGOPEntries = ends.lastGOPEntries
        do throws(ClipFailure) {
            for (done, gop) in gops.enumerated() {
                if Task.isCancelled { throw ClipFailure(.writing, "the clip was deleted while it was written") }
                let isLast = done == gops.count - 1
                // The re-encoded frames stand in for this GOP's video, with their own caps.
                let encoded: PartialGOPEncoder.Result? = done == 0 ? ends.head : (isLast ? ends.tail : nil)
                if let video, done > 0 {
                    let wanted = encoded?.caps ?? copiedCaps
                    let before = (done == 1 ? ends.head?.caps : nil) ?? copiedCaps
                    if wanted != before { video.caps = wanted }
                }
                let audioFrom = ends.from ?? 0
                let newest = try await Self.reading(on: queue) { () throws -> Date? in
                    let entries = try done == 0 ? first : (isLast ? lastGOPEntries : nil) ?? buffer.read(gop.serial)
                    var newest: Date?
                    var lastDTS: ClockTime?
                    if let encoded, let video {
                        for b in encoded.buffers where b.pts.isValid && b.pts >= base {
                            // No reordering in what was encoded: its decode time trails its
                            // presentation by the source's delay, so the copied frames follow on.
                            var dts = b.pts >= base + delay ? b.pts - delay - base : 0
                            if let l = lastDTS, dts <= l { dts = l + 1 }
                            lastDTS = dts
                            video.push(b.retimed(pts: b.pts - base, dts: dts))
                        }
                    }
                    for entry in entries {
                        let at = buffer.wallTime(of: entry, in: gop.serial) ?? gop.start
                        if isLast, at > range.upperBound { continue }
                        guard entry.pts.isValid, entry.pts >= base else { continue }
                        if entry.track == .video, encoded != nil {
                            newest = max(newest ?? at, at)
                            continue
                        }
                        if entry.track == .audio, exact, entry.pts < audioFrom { continue }
                        let source = entry.track == .video ? video : audioSources[entry.stream] ?? nil
                        guard let source else { continue }
                        let dts = entry.dts.isValid && entry.dts >= base ? entry.dts - base : ClockTime.none
                        source.push(entry.buffer.retimed(pts: entry.pts - base, dts: dts))
                        if entry.track == .video { newest = max(newest ?? at, at) }
                    }
                    return newest
                }
                if let newest { last = max(last, newest) }
                if let error = pipeline.firstError { throw ClipFailure(.writing, "cannot write the clip: \(error)") }
                await progress(Double(done + 1) / Double(gops.count + 1))
            }
        } catch {
            await Self.shutdown(pipeline)
            throw error
        }
        video?.endOfStream()
        for source in audioSources.values { source?.endOfStream() }
        let ended = await Self.waitForEnd(pipeline)
        await Self.shutdown(pipeline)
        guard ended else { throw ClipFailure(.writing, "cannot write the clip: \(pipeline.firstError ?? "the muxer did not finish within 2 minutes")") }
        await progress(1)
        if exact, let from = ends.fromWall { return max(0, min(last, ends.toWall ?? last).timeIntervalSince(from)) }
        return max(0, last.timeIntervalSince(start))
    }

    /// The GOPs to write, the wall time the clip starts at, and the first GOP's entries (read on
    /// `queue`). An exact start after the first GOP's last frame (in the moment before the next
    /// keyframe) is that keyframe: the first GOP then holds nothing to show and is left out.
    private func opening(_ planned: [TimeshiftBuffer.GOPInfo], _ range: ClosedRange<Date>, queue: DispatchQueue) async throws(ClipFailure)
        -> ([TimeshiftBuffer.GOPInfo], Date, [GOPCache.Entry]) {
        let buffer = self.buffer, lower = range.lowerBound, exact = self.exact
        do {
            return try await Self.on(queue) {
                var gops = planned
                var first = try buffer.read(gops[0].serial)
                let opening = gops[0]
                if exact, gops.count > 1,
                   !first.contains(where: { $0.track == .video && (buffer.wallTime(of: $0, in: opening.serial) ?? opening.start) >= lower }) {
                    gops.removeFirst()
                    first = try buffer.read(gops[0].serial)
                }
                return (gops, gops[0].start, first)
            }
        } catch {
            throw ClipFailure(.notBuffered, "the start of the range left the buffer (\(error))")
        }
    }

    /// The re-encoded ends of an exact clip and where they cut.
    struct ExactEnds: @unchecked Sendable {
        /// The first GOP's frames from the asked start (nil: the start is its keyframe).
        var head: PartialGOPEncoder.Result?
        /// The last GOP's frames up to the asked end (nil: nothing of it is left out).
        var tail: PartialGOPEncoder.Result?
        /// The presentation time of the first frame shown; nil when the clip starts at a keyframe.
        var from: ClockTime?
        var fromWall: Date?
        var toWall: Date?
        /// How far the source's decode times trail its presentation times (B-frame reordering).
        var delay: ClockTime = 0
        /// The last GOP's entries as the end was decided on them (when it is not the first).
        var lastGOPEntries: [GOPCache.Entry]?
    }

    /// Finds the frames at the asked start and end and re-encodes the partial GOPs there.
    /// Blocking: reads segment files and runs the encoders.
    func exactEnds(_ range: ClosedRange<Date>, gops: [TimeshiftBuffer.GOPInfo], first: [GOPCache.Entry]) throws -> ExactEnds {
        var ends = ExactEnds()
        let firstVideo = first.filter { $0.track == .video && $0.pts.isValid }
        guard let key = firstVideo.first, let caps = key.caps else { return ends }
        ends.delay = firstVideo.compactMap { $0.dts.isValid && $0.pts > $0.dts ? $0.pts - $0.dts : nil }.max() ?? 0
        // The bitrate the source spends on this GOP, and a half more: the re-encoded frames
        // are few, and a fresh keyframe costs more than the source's predicted frames did.
        let ptsSpan = (firstVideo.map(\.pts).max() ?? key.pts) - key.pts
        let seconds = max(Double(ptsSpan) / 1e9, 0.5)
        let bytes = firstVideo.reduce(0) { $0 + $1.buffer.size }
        let kbps = min(max(Int(Double(bytes) * 8 / seconds / 1000 * 1.5), 300), 50_000)
        let encoder = PartialGOPEncoder(caps: caps, kilobitsPerSecond: kbps)
        func wall(_ e: GOPCache.Entry, _ serial: UInt64) -> Date { buffer.wallTime(of: e, in: serial) ?? gops[0].start }

        // The start: the first frame (by presentation) at or after the asked time.
        let shown = firstVideo.filter { wall($0, gops[0].serial) >= range.lowerBound }
        guard let fromEntry = shown.min(by: { $0.pts < $1.pts }) else { return ends }
        ends.fromWall = wall(fromEntry, gops[0].serial)
        let single = gops.count == 1
        let toInFirst = single ? firstVideo.filter { wall($0, gops[0].serial) <= range.upperBound }.map(\.pts).max() : nil
        let cutsFirstEnd = single && firstVideo.contains { wall($0, gops[0].serial) > range.upperBound }
        if fromEntry.pts > key.pts || cutsFirstEnd {
            ends.from = fromEntry.pts
            ends.head = try encoder.encode(first, window: fromEntry.pts...(cutsFirstEnd ? (toInFirst ?? fromEntry.pts) : ClockTime.max))
        }
        if single {
            ends.toWall = firstVideo.filter { wall($0, gops[0].serial) <= range.upperBound }.map { wall($0, gops[0].serial) }.max()
            return ends
        }
        // The end: the last GOP's frames up to the asked time, when some of it is left out.
        let lastGOP = gops[gops.count - 1]
        let lastAll = try buffer.read(lastGOP.serial)
        // The writer uses these same entries: read again, an open GOP could have grown.
        ends.lastGOPEntries = lastAll
        let lastEntries = lastAll.filter { $0.track == .video && $0.pts.isValid }
        let kept = lastEntries.filter { wall($0, lastGOP.serial) <= range.upperBound }
        ends.toWall = kept.map { wall($0, lastGOP.serial) }.max()
        if kept.count < lastEntries.count, let to = kept.map(\.pts).max(), let lastKey = lastEntries.first, lastKey.isKeyframe {
            ends.tail = try encoder.encode(lastEntries, window: lastKey.pts...to)
        }
        return ends
    }

    private func build(file: URL, video: (Caps, String), audio: [Int: Caps]) async throws(ClipFailure) -> Pipeline {
        let launch = Self.remux(muxer: container.muxer, sink: "filesink name=out sync=false async=false", video: video.1, audio: audio,
                                source: "format=time is-live=false do-timestamp=false block=true max-bytes=8000000")
        let container = self.container
        let result: Result<Pipeline, ClipFailure>
        do {
            result = try await MediaExecutor.shared.run { () -> Result<Pipeline, ClipFailure> in
                let pipeline: Pipeline
                do { pipeline = try Pipeline(description: launch) } catch {
                    return .failure(ClipFailure(.writing, "cannot build the clip muxer: \(error)"))
                }
                pipeline.child(named: "out")?.set("location", string: file.path)
                pipeline.appSource(named: "video")?.caps = video.0
                for (stream, caps) in audio { pipeline.appSource(named: "audio\(stream)")?.caps = caps }
                do { try pipeline.setState(.playing) } catch {
                    let reason = pipeline.firstError ?? "\(error)"
                    pipeline.shutdown()
                    return .failure(ClipFailure(.writing, "cannot write \(video.0.mediaType) into \(container.rawValue): \(reason)"))
                }
                return .success(pipeline)
            }
        } catch {
            throw ClipFailure(.writing, "cannot build the clip muxer: \(error)")
        }
        return try result.get()
    }

    /// The `gst-launch` description of a remux: `appsrc name=video` (`source` its properties)
    /// through `video` (its parser), `appsrc name=audioN` per audio stream through its parser,
    /// into `muxer` (named `mux`) and `sink`.
    static func remux(muxer: String, sink: String, video: String, audio: [Int: Caps], source: String) -> String {
        var description = "\(muxer) name=mux ! \(sink) appsrc name=video \(source) ! \(video) ! queue ! mux."
        for stream in audio.keys.sorted() {
            description += " appsrc name=audio\(stream) \(source) ! \((try? parser(for: audio[stream]!)) ?? "identity") ! queue ! mux."
        }
        return description
    }

    /// Waits for the end of stream at the file sink (the file is complete); false on an error
    /// or after two minutes.
    private static func waitForEnd(_ pipeline: Pipeline) async -> Bool {
        let messages = pipeline.messages
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await message in messages {
                    if case .endOfStream = message { return true }
                    if case .error = message { return false }
                }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(120))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    private static func shutdown(_ pipeline: Pipeline) async {
        _ = try? await MediaExecutor.shared.run { pipeline.shutdown() }
    }

    /// Runs blocking `body` on `queue`: a `ClipFailure` it throws passes as it is, any other
    /// error (a GOP that left the buffer before it was read back) is `.notBuffered`.
    private static func reading<T: Sendable>(on queue: DispatchQueue, _ body: @escaping @Sendable () throws -> T) async throws(ClipFailure) -> T {
        do { return try await on(queue, body) } catch let failure as ClipFailure { throw failure } catch {
            throw ClipFailure(.notBuffered, "part of the range left the buffer while the clip was written (\(error))")
        }
    }

    /// Runs blocking `body` on `queue`.
    static func on<T: Sendable>(_ queue: DispatchQueue, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// The parser that brings a compressed format to what muxers take (`h264parse` makes AVC
    /// for MP4 from the buffer's byte-stream).
    static func parser(for caps: Caps) throws(ClipFailure) -> String {
        switch caps.mediaType {
        case "video/x-h264": return "h264parse"
        case "video/x-h265": return "h265parse"
        case "video/mpeg" where caps.int("mpegversion") == 2 || caps.int("mpegversion") == 1: return "mpegvideoparse"
        case "audio/mpeg" where caps.int("mpegversion") == 1: return "mpegaudioparse"
        case "audio/mpeg" where caps.string("stream-format") == "loas": throw ClipFailure(.unsupported, "LATM/LOAS AAC cannot be remuxed into a clip")
        case "audio/mpeg": return "aacparse"
        case "audio/x-ac3", "audio/x-eac3", "audio/ac3": return "ac3parse"
        case "audio/x-opus": return "opusparse"
        default: throw ClipFailure(.unsupported, "\(caps.mediaType) cannot be remuxed into a clip")
        }
    }
}
