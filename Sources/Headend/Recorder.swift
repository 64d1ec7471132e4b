import Foundation
import GStreamer
import Lineup
import Logging

/// What a recording reports, in order, on `ActiveRecording.events`; `stopped` comes once, last.
public enum RecordingEvent: Sendable, Equatable {
    /// The file is open; it starts at the keyframe shown at `firstKeyframe` (wall clock).
    case started(file: URL, firstKeyframe: Date)
    /// The bytes this part wrote (a resumed MPEG-TS recording's part is appended to the
    /// file: its bytes past the first part's) and the seconds of the channel in it, about once
    /// a second.
    case progress(bytes: Int, duration: Double)
    /// Nothing of the channel is in the file from `from` to `to` (a stall, a reconnect, a
    /// restart of the box); the recording goes on after it.
    case gap(from: Date, to: Date, reason: String)
    /// The channel's ad breaks inside what this part wrote so far (SCTE-35 cues, the lineup's
    /// schedule), clipped to it, at most `RecordingBreaks.limit`: sent when they change (about
    /// once a second at most) and at the end, before `stopped`. A break still open runs to the
    /// newest write. Each report holds every break the channel still knows of; one it forgot
    /// (it left the timeshift buffer) is not in later reports, so keep what came before.
    case breaks([TimeshiftBreak])
    /// The part of the programme from `from` to `to`, which aired before the recording could
    /// start live, was fetched from the channel's archive and is now at the front of the file:
    /// `bytes` of it, before the first part's. Sent once the recording has ended, before `stopped`.
    case beginning(from: Date, to: Date, bytes: Int64)
    case stopped(RecordingStop)
}

/// Why a recording stopped. The file keeps what was written, and plays, in every case.
public enum RecordingStop: Sendable, Equatable, CustomStringConvertible {
    /// It reached its end.
    case ended
    /// `stop()` was asked.
    case cancelled
    /// The disk (or the quota) is full: the message names the file.
    case diskFull(String)
    /// The muxer failed, or no keyframe came before the end.
    case failed(String)

    public var description: String {
        switch self {
        case .ended: "ended"
        case .cancelled: "cancelled"
        case .diskFull(let message), .failed(let message): message
        }
    }
}

/// Writes recordings of channels to files: each a pinned ingest tap that holds a stream of the
/// channel's pool and outranks flips and served clients (`Headend+Recordings.swift`), remuxed as
/// it arrives without re-encoding (`RecordingMuxer`).
///
/// A recording starts at the GOP cache's keyframe (no black start), or, when `startAt` is
/// before it and the channel's timeshift buffer still holds `startAt`, at the buffer's keyframe
/// at or before it; and when neither reaches back to `startAt` and the channel has an archive
/// (catch-up) that does, the part before is fetched from the archive and joined in front of
/// the file when the recording ends (MPEG-TS only; `RecordingBeginning`). It ends at the first keyframe that arrives at or after `until`, which is not
/// written (so the file ends within one GOP after `until`); a channel that delivers nothing
/// then ends it at once, one that delivers no keyframe `untilGrace` after it.
public struct Recorder: Sendable {
    public let headend: Headend
    let logger: Logger
    /// Input silence that counts as a stall (the gap is said once the channel is back).
    var stallAfter: Duration = .milliseconds(1500)

    public init(headend: Headend, logger: Logger) {
        self.headend = headend
        self.logger = logger
    }

    /// The longest a recording waits for a keyframe after `until`.
    public static let untilGrace: TimeInterval = 10

    /// Starts recording `channel` into `file` (replaced if it exists) until `until`. Throws at
    /// once when its pool has no stream for it (`PoolFailure`, naming who holds them) or the
    /// channel is unknown.
    public func start(channel: Channel, title: String, until: Date, file: URL, container: RecordingContainer = .mpegts,
                      startAt: Date? = nil) async throws -> ActiveRecording {
        try? FileManager.default.removeItem(at: file)
        let plan = RecordingPlan(channel: channel, title: title, until: until, file: file, container: container,
                                 startAt: startAt, resumed: nil)
        return try await open(plan)
    }

    /// Goes on with a recording that was cut (the box restarted) as its second part: a TS file
    /// is appended to (TS concatenates: the new part's PAT/PMT come again and its times go on
    /// from `startedAt`'s timeline); a Matroska one gets a part file of its own,
    /// `NAME.part2.mkv` (then part3, ...), `ActiveRecording.file`. The gap from the file's
    /// last write to the new part's first keyframe is reported.
    public func resume(channel: Channel, title: String, until: Date, file: URL, container: RecordingContainer = .mpegts,
                       startedAt: Date) async throws -> ActiveRecording {
        let lastWrite = (try? FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate]) as? Date
        let target = container.appends ? file : Self.partFile(after: file)
        let plan = RecordingPlan(channel: channel, title: title, until: until, file: target, container: container,
                                 startAt: nil, resumed: .init(startedAt: startedAt, lastWrite: lastWrite ?? startedAt))
        return try await open(plan)
    }

    /// The first free `NAME.partN.EXT` beside `file`, N from 2.
    static func partFile(after file: URL) -> URL {
        let name = file.deletingPathExtension().lastPathComponent, ext = file.pathExtension
        let directory = file.deletingLastPathComponent()
        var n = 2
        while FileManager.default.fileExists(atPath: directory.appendingPathComponent("\(name).part\(n).\(ext)").path) { n += 1 }
        return directory.appendingPathComponent("\(name).part\(n).\(ext)")
    }

    private func open(_ plan: RecordingPlan) async throws -> ActiveRecording {
        let tap = try await headend.recordingTap(plan.channel, title: plan.title)
        let (inputs, input) = AsyncStream<RecordingInput>.makeStream(bufferingPolicy: .unbounded)
        let (events, event) = AsyncStream<RecordingEvent>.makeStream(bufferingPolicy: .unbounded)
        logger.info("recording \(plan.title) from channel \(plan.channel.number) into \(plan.file.path) until \(plan.until)")
        let session = RecordingSession(plan: plan, headend: headend, logger: logger, stallAfter: stallAfter, events: event)
        let task = Task { await session.run(first: tap, inputs: inputs, input: input) }
        return ActiveRecording(plan: plan, events: events, input: input, task: task)
    }
}

/// What a recording was asked to do.
struct RecordingPlan: Sendable {
    struct Resumed: Sendable {
        /// Where the recording's timeline starts (its first part's start).
        var startedAt: Date
        /// When its file was last written (the gap starts there).
        var lastWrite: Date
    }

    var channel: Channel
    var title: String
    var until: Date
    var file: URL
    var container: RecordingContainer
    var startAt: Date?
    var resumed: Resumed?
}

/// A recording being written. `events` is read by one consumer; `stop()` ends it at once (the
/// muxer writes what it holds; `stopped(.cancelled)`); `finished()` waits for its end.
public final class ActiveRecording: Sendable {
    public let channel: Channel
    public let title: String
    /// The file being written (a part file when a Matroska recording was resumed).
    public let file: URL
    public let until: Date
    public let events: AsyncStream<RecordingEvent>
    private let input: AsyncStream<RecordingInput>.Continuation
    private let task: Task<RecordingStop, Never>

    init(plan: RecordingPlan, events: AsyncStream<RecordingEvent>, input: AsyncStream<RecordingInput>.Continuation,
         task: Task<RecordingStop, Never>) {
        channel = plan.channel
        title = plan.title
        file = plan.file
        until = plan.until
        self.events = events
        self.input = input
        self.task = task
    }

    /// Stops the recording (idempotent, any thread).
    public func stop() { input.yield(.stop) }

    /// Why it stopped, once it has.
    public func finished() async -> RecordingStop { await task.value }
}
