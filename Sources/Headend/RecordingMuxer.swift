import Foundation
import GStreamer
import Lineup

/// The file format of a recording. The compressed streams go in unchanged (remuxed with the
/// clips' parsers, never re-encoded).
public enum RecordingContainer: String, Sendable, Codable, CaseIterable {
    case mpegts, matroska

    public var fileExtension: String { self == .mpegts ? "ts" : "mkv" }

    /// The muxer: Matroska written as a live stream (no seek index at the end), so a file cut
    /// short by a crash or a full disk still plays.
    var muxer: String {
        switch self {
        case .mpegts: "mpegtsmux"
        case .matroska: "matroskamux streamable=true"
        }
    }

    /// Whether a second part can be appended to the file itself (a TS file can be concatenated;
    /// a Matroska file cannot, and gets a part file of its own).
    var appends: Bool { self == .mpegts }
}

/// One part of a recording being written: `appsrc` per track → the codec's parser → the
/// container's muxer → `filesink`, unbuffered, so every muxed packet is in the kernel as soon as
/// it is out (a kill -9 leaves everything written up to then, and the file plays).
///
/// Pushing never blocks (the `appsrc`s queue); build and shutdown run on the media thread. The
/// bus (`messages`) carries the file sink's errors, a full disk included.
final class RecordingMuxer: Sendable {
    let pipeline: Pipeline
    let video: AppSource
    let audio: [Int: AppSource]

    private init(pipeline: Pipeline, video: AppSource, audio: [Int: AppSource]) {
        self.pipeline = pipeline
        self.video = video
        self.audio = audio
    }

    /// Builds and starts the muxer writing `file` (appended to when `append`). Throws a
    /// `RecordingFailure` a person can read.
    static func start(file: URL, append: Bool, container: RecordingContainer, video: Caps, audio: [Int: Caps]) async throws(RecordingFailure) -> RecordingMuxer {
        let videoParser: String
        do { videoParser = try ClipWriter.parser(for: video) } catch { throw RecordingFailure(.unsupported, error.message) }
        let audio = audio.filter { (try? ClipWriter.parser(for: $0.value)) != nil }
        let launch = ClipWriter.remux(muxer: container.muxer, sink: "filesink name=out sync=false async=false buffer-mode=unbuffered",
                                      video: videoParser, audio: audio, source: "format=time is-live=false do-timestamp=false block=false")
        let built: Result<RecordingMuxer, RecordingFailure>
        do {
            built = try await MediaExecutor.shared.run { () -> Result<RecordingMuxer, RecordingFailure> in
                let pipeline: Pipeline
                do { pipeline = try Pipeline(description: launch) } catch {
                    return .failure(RecordingFailure(.writing, "cannot build the recording's muxer: \(error)"))
                }
                guard let out = pipeline.child(named: "out"), let videoSource = pipeline.appSource(named: "video") else {
                    pipeline.shutdown()
                    return .failure(RecordingFailure(.writing, "cannot build the recording's muxer"))
                }
                out.set("location", string: file.path)
                out.set("append", append)
                videoSource.caps = video
                var sources: [Int: AppSource] = [:]
                for (stream, caps) in audio {
                    guard let source = pipeline.appSource(named: "audio\(stream)") else { continue }
                    source.caps = caps
                    sources[stream] = source
                }
                do { try pipeline.setState(.playing) } catch {
                    let reason = pipeline.firstError ?? "\(error)"
                    pipeline.shutdown()
                    return .failure(RecordingFailure(.writing, "cannot write \(video.mediaType) into \(file.path): \(reason)"))
                }
                return .success(RecordingMuxer(pipeline: pipeline, video: videoSource, audio: sources))
            }
        } catch {
            throw RecordingFailure(.writing, "cannot build the recording's muxer: \(error)")
        }
        return try built.get()
    }

    /// Pushes `entry` at `pts`/`dts` of the file's timeline. Video with caps other than
    /// `videoCaps` (what the video track has now) changes the track's caps first; audio of a
    /// stream the muxer has no track for, and subtitles (not recorded yet, as the clips' muxers
    /// take none either), are left out. True when it pushed video.
    @discardableResult
    func push(_ entry: GOPCache.Entry, pts: ClockTime, dts: ClockTime, videoCaps: inout Caps?) -> Bool {
        switch entry.track {
        case .video:
            if let caps = entry.caps, caps != videoCaps {
                video.caps = caps
                videoCaps = caps
            }
            video.push(entry.buffer.retimed(pts: pts, dts: dts))
            return true
        case .audio:
            guard let source = audio[entry.stream] else { return false }
            if let caps = entry.caps, caps != source.caps { source.caps = caps }
            source.push(entry.buffer.retimed(pts: pts, dts: dts))
            return false
        case .subtitle:
            return false
        }
    }

    /// Ends every track: the muxer writes what it holds and posts the end of stream.
    func finish() {
        video.endOfStream()
        for source in audio.values { source.endOfStream() }
    }

    func shutdown() async {
        let pipeline = self.pipeline
        _ = try? await MediaExecutor.shared.run { pipeline.shutdown() }
    }

    /// What a write error means for a person: a full disk (`ENOSPC`, `EDQUOT`) said as such,
    /// else the sink's words. `diskFull` tells the two apart.
    static func writeFailure(file: URL, message: String, debug: String?) -> (diskFull: Bool, text: String) {
        let words = [message, debug ?? ""].joined(separator: " ").lowercased()
        if words.contains("no space left") {
            return (true, "the disk holding \(file.path) is full (no space left on device); what was recorded up to now is kept")
        }
        if words.contains("quota") {
            return (true, "the disk quota for \(file.path) is used up (disk quota exceeded); what was recorded up to now is kept")
        }
        return (false, "cannot write \(file.path): \(message)")
    }
}

/// Why a recording cannot start or goes on no longer.
public typealias RecordingFailure = Failure<RecordingFailureCode>

public enum RecordingFailureCode: String, FailureCode {
    /// A codec the muxers cannot take.
    case unsupported
    /// The muxer or the disk failed.
    case writing

    public var kind: FailureKind {
        switch self {
        case .unsupported: .conflict
        case .writing: .internalFailure
        }
    }
}
