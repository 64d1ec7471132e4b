import Foundation
import GStreamer
import Lineup
import Logging

/// The clips cut from timeshift buffers: jobs that write them, one after another, and the files
/// they leave in `directory` (`ID.mp4` with `ID.json` beside it, written atomically once the
/// clip is complete, so clips outlive a restart).
///
/// Threading: an actor; each job runs as a task the library keeps (cancelled by `delete`);
/// writing happens on the clip queue (see `ClipWriter`). `publish` gets every change of a job
/// (progress in steps of at least 5 %), in order.
public actor ClipLibrary {
    public let directory: URL
    private let headend: Headend
    private let publish: @Sendable (ClipJob) -> Void
    private let logger: Logger
    private var jobs: [String: ClipJob] = [:]
    private var writing: [String: Task<Void, Never>] = [:]
    private let queue = DispatchQueue(label: "flipbox.clips", qos: .utility)
    /// Why a clip of a channel over a range may not be made (parental locks), nil when it may;
    /// nil: nothing is locked. Set by the box (the player's locks, PIN unlocks included).
    private var locks: (@Sendable (ChannelNumber, ClosedRange<Date>) async -> String?)?

    /// Clips of locked content are refused (`.locked`) with `reason`'s answer.
    public func setLocks(_ reason: @escaping @Sendable (ChannelNumber, ClosedRange<Date>) async -> String?) {
        locks = reason
    }

    /// `$XDG_CACHE_HOME/flipbox/clips`, else `~/.cache/flipbox/clips`.
    public static var defaultDirectory: URL {
        TimeshiftSettings.defaultDirectory.deletingLastPathComponent().appendingPathComponent("clips")
    }

    public init(headend: Headend, directory: URL = ClipLibrary.defaultDirectory, logger: Logger, publish: @escaping @Sendable (ClipJob) -> Void) {
        self.headend = headend
        self.directory = directory
        self.publish = publish
        self.logger = logger
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Clips finished before a restart; a file without its description is an unfinished one.
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let decoder = JSONDecoder()
        for name in names where name.hasSuffix(".json") {
            let url = directory.appendingPathComponent(name)
            guard let data = try? Data(contentsOf: url), let job = try? decoder.decode(ClipJob.self, from: data), job.state == .done else { continue }
            jobs[job.id] = job
        }
        for name in names where !name.hasSuffix(".json") {
            let id = (name as NSString).deletingPathExtension
            if jobs[id] == nil { try? FileManager.default.removeItem(at: directory.appendingPathComponent(name)) }
        }
    }

    /// Starts writing a clip of `channel` from `from` to `to`; returns the job at once. `exact`:
    /// cut at those times (re-encoding the partial GOPs at the ends) instead of at keyframes.
    /// Throws `.badRange` (with the buffer's range), `.notBuffered`, `.unknown`, `.unsupported` or `.locked`.
    public func start(channel: ChannelNumber, from: ClipTime, to: ClipTime, format: ClipContainer, exact: Bool = false) async throws(ClipFailure) -> ClipJob {
        // The locks first: a locked channel's buffer is nobody's business (the live edge is about now).
        let now = Date()
        let (start, end) = (from.resolve(liveEdge: now), to.resolve(liveEdge: now))
        if let locks, let reason = await locks(channel, min(start, end)...max(start, end)) {
            logger.notice("a clip of channel \(channel) was refused: it is locked (\(reason))")
            throw ClipFailure(.locked, """
                channel \(channel) is locked (\(reason)): a clip of locked content is made only once it is unlocked with \
                the PIN (POST /api/v1/unlock with its channel)
                """)
        }
        let source = try await headend.clipSource(channel: channel)
        guard let held = source.buffer.range else { throw ClipFailure(.notBuffered, "channel \(channel) has nothing buffered yet") }
        let range = try ClipRange.resolve(from: from, to: to, buffer: held)
        if let caps = source.videoCaps, let refusal = format.refusal(video: caps) { throw ClipFailure(.unsupported, refusal) }
        // Refused at once when the box cannot re-encode the picture, not later in the job.
        if exact, let caps = source.videoCaps { try PartialGOPEncoder.check(caps) }
        let id = Self.newID()
        var job = ClipJob(id: id, channel: channel, format: format, from: range.lowerBound, to: range.upperBound, created: Date())
        job.exact = exact
        jobs[id] = job
        publish(job)
        var writer = ClipWriter(buffer: source.buffer, audioCaps: source.audioCaps, container: format)
        writer.exact = exact
        let file = self.file(job)
        let queue = self.queue
        writing[id] = Task {
            let started = ContinuousClock.now
            do throws(ClipFailure) {
                let duration = try await writer.write(range, to: file, queue: queue) { fraction in
                    await self.progress(id, fraction)
                }
                self.finish(id, result: .success(duration), took: ContinuousClock.now - started)
            } catch {
                self.finish(id, result: .failure(error), took: ContinuousClock.now - started)
            }
        }
        return job
    }

    /// Every job, newest first.
    public func list() -> [ClipJob] { jobs.values.sorted { $0.created > $1.created } }

    public func job(_ id: String) -> ClipJob? { jobs[id] }

    /// The file of a finished clip.
    public func file(of id: String) -> URL? {
        guard let job = jobs[id], job.state == .done else { return nil }
        return file(job)
    }

    /// Waits until job `id` is no longer writing and returns it (nil for an unknown id).
    public func finished(_ id: String) async -> ClipJob? {
        if let task = writing[id] { await task.value }
        return jobs[id]
    }

    /// Removes a clip (stops it first when it is still being written); false for an unknown id.
    public func delete(_ id: String) async -> Bool {
        guard let job = jobs.removeValue(forKey: id) else { return false }
        if let task = writing.removeValue(forKey: id) {
            task.cancel()
            await task.value
        }
        try? FileManager.default.removeItem(at: file(job))
        try? FileManager.default.removeItem(at: description(job))
        return true
    }

    private func progress(_ id: String, _ fraction: Double) {
        guard var job = jobs[id], job.state == .writing, fraction - job.progress >= 0.05 || fraction >= 1 else { return }
        job.progress = min(fraction, 0.99)
        jobs[id] = job
        publish(job)
    }

    private func finish(_ id: String, result: Result<Double, ClipFailure>, took: Duration) {
        writing[id] = nil
        guard var job = jobs[id] else { return }
        job.writeSeconds = took.seconds
        switch result {
        case .success(let duration):
            job.state = .done
            job.progress = 1
            job.duration = duration
            job.bytes = (try? FileManager.default.attributesOfItem(atPath: file(job).path)[.size] as? Int) ?? nil
            do {
                let encoder = JSONEncoder()
                try encoder.encode(job).write(to: description(job), options: .atomic)
            } catch {
                logger.warning("clip \(id): cannot record it in \(directory.path): \(error); it will not outlive a restart")
            }
            logger.info("clip \(id) of channel \(job.channel): \(String(format: "%.1f", duration)) s in \(String(format: "%.2f", took.seconds)) s")
        case .failure(let failure):
            job.state = .failed
            job.error = failure.message
            try? FileManager.default.removeItem(at: file(job))
            logger.warning("clip \(id) of channel \(job.channel) failed: \(failure.message)")
        }
        jobs[id] = job
        publish(job)
    }

    private func file(_ job: ClipJob) -> URL { directory.appendingPathComponent("\(job.id).\(job.format.rawValue)") }
    private func description(_ job: ClipJob) -> URL { directory.appendingPathComponent("\(job.id).json") }

    private static func newID() -> String {
        String((0..<10).map { _ in "abcdefghijkmnpqrstuvwxyz23456789".randomElement()! })
    }
}
