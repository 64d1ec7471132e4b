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
        guard let (gops, start) = plan(range) else { throw ClipFailure(.notBuffered, "nothing buffered in that range") }
        let buffer = self.buffer
        let first: [GOPCache.Entry]
        do { first = try await Self.on(queue) { try buffer.read(gops[0].serial) } } catch {
            throw ClipFailure(.notBuffered, "the start of the range left the buffer (\(error))")
        }
        guard let key = first.first, key.isKeyframe, let videoCaps = key.caps else {
            throw ClipFailure(.notBuffered, "the buffer holds no keyframe to start the clip at")
        }
        // Audio formats: those the first GOP carries, else the channel's.
        var audio = audioCaps
        for entry in first where entry.track == .audio { if let caps = entry.caps { audio[entry.stream] = caps } }
        let streams = Set(first.filter { $0.track == .audio }.map(\.stream))
        audio = audio.filter { streams.contains($0.key) && (try? Self.parser(for: $0.value)) != nil }
        let videoParser = try Self.parser(for: videoCaps)
        let base = key.dts.isValid ? min(key.dts, key.pts) : key.pts

        let pipeline = try await build(file: file, video: (videoCaps, videoParser), audio: audio)
        let video = pipeline.appSource(named: "video")
        let audioSources = Dictionary(uniqueKeysWithValues: audio.keys.map { ($0, pipeline.appSource(named: "audio\($0)")) })
        var last = start
        do {
            for (done, gop) in gops.enumerated() {
                if Task.isCancelled { throw ClipFailure(.writing, "the clip was deleted while it was written") }
                let isLast = done == gops.count - 1
                let newest = try await Self.on(queue) { () throws -> Date? in
                    let entries = done == 0 ? first : try buffer.read(gop.serial)
                    var newest: Date?
                    for entry in entries {
                        let at = buffer.wallTime(of: entry, in: gop.serial) ?? gop.start
                        if isLast, at > range.upperBound { continue }
                        guard entry.pts.isValid, entry.pts >= base else { continue }
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
        } catch let failure as ClipFailure {
            await Self.shutdown(pipeline)
            throw failure
        } catch {
            await Self.shutdown(pipeline)
            throw ClipFailure(.notBuffered, "part of the range left the buffer while the clip was written (\(error))")
        }
        video?.endOfStream()
        for source in audioSources.values { source?.endOfStream() }
        let ended = await Self.waitForEnd(pipeline)
        await Self.shutdown(pipeline)
        guard ended else { throw ClipFailure(.writing, "cannot write the clip: \(pipeline.firstError ?? "the muxer did not finish within 2 minutes")") }
        await progress(1)
        return max(0, last.timeIntervalSince(start))
    }

    private func build(file: URL, video: (Caps, String), audio: [Int: Caps]) async throws(ClipFailure) -> Pipeline {
        let source = "format=time is-live=false do-timestamp=false block=true max-bytes=8000000"
        var description = "\(container.muxer) name=mux ! filesink name=out sync=false async=false appsrc name=video \(source) ! \(video.1) ! queue ! mux."
        for stream in audio.keys.sorted() {
            description += " appsrc name=audio\(stream) \(source) ! \((try? Self.parser(for: audio[stream]!)) ?? "identity") ! queue ! mux."
        }
        let container = self.container
        let launch = description
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

    /// Runs blocking `body` on `queue`.
    private static func on<T: Sendable>(_ queue: DispatchQueue, _ body: @escaping @Sendable () throws -> T) async throws -> T {
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
