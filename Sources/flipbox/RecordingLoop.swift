import Foundation
import Guide
import Headend
import Lineup
import Logging
import RecordingWiring
import Recordings
import ServiceLifecycle
import Switcher

/// Runs the box's recordings (`RecordingService`) while it plays; on graceful shutdown the
/// recordings stop and the next start resumes them.
struct RecordingLoop: Service {
    let recordings: RecordingService
    /// Told every notice, for the event stream.
    let player: Player

    func run() async throws {
        let relay = Task { [recordings, player] in
            for await notice in recordings.notices {
                player.publishRecording(notice)
                var titles: [RecordingID: String] = [:]
                if case .conflict(let c) = notice {
                    for id in c.notRecorded { titles[id] = (try? recordings.store.recording(id))?.programme.title }
                }
                await player.sayRecording(notice, titles: titles)
            }
        }
        defer { relay.cancel() }
        await withGracefulShutdownHandler {
            await recordings.run()
        } onGracefulShutdown: { [recordings] in
            recordings.shutdown()
        }
    }

    /// The recording service over the head-end, the lineup and its guide: files under
    /// `directory` (default `STATE/recordings`), the schedule in `STATE/recordings.sqlite`. Throws
    /// when the directory cannot be written or the store opened, saying how to fix it.
    static func make(headend: Headend, guide: Guide?, stateDirectory: String, directory: String?,
                     retention: Retention.Policy = .init(), logger: Logger) throws(RecordingError) -> RecordingService {
        let folder = Self.folder(stateDirectory: stateDirectory, given: directory)
        let sources = RecordingService.Sources(
            // The lineup now: a reading of its source taken while the box runs adds channels.
            channel: { headend.lineup.channel(number: $0) },
            channels: { Set(headend.lineup.listedChannels.map(\.number)) },
            programmes: { from, to in
                guard let guide else { return [] }
                return try RecordingGuide.programmes(lineup: guide.lineup, match: guide.match, store: guide.store, from: from, to: to)
            },
            pools: { poolLimits(headend: headend, lineup: headend.lineup) })
        let service = try RecordingService(stateDirectory: stateDirectory, directory: folder, headend: headend, sources: sources,
                                           logger: logger, retention: retention)
        guide?.onRefresh { service.guideChanged() }
        return service
    }

    /// Where the recordings' files are: `given` (`--recordings-dir`), else `STATE/recordings`.
    static func folder(stateDirectory: String, given: String?) -> URL {
        URL(fileURLWithPath: given ?? (stateDirectory as NSString).appendingPathComponent("recordings"))
    }

    /// The head-end's pools as the scheduler counts them: each channel's pool (that of its first
    /// source) and the limits in force now.
    static func poolLimits(headend: Headend, lineup: Lineup) -> PoolLimits {
        var limits: [String: Int] = [:]
        for pool in headend.pools() { if let limit = pool.limit { limits[pool.name] = limit } }
        var poolOfChannel: [ChannelNumber: String] = [:]
        for channel in lineup.listedChannels { if let pool = headend.poolName(of: channel) { poolOfChannel[channel.number] = pool } }
        return PoolLimits(poolOfChannel: poolOfChannel, limits: limits)
    }
}

/// The on-screen guide's record keys, on the box's recording service.
struct GuideRecordings: GuideRecording {
    let service: RecordingService

    func record(channel: ChannelNumber, programmeStart start: Date) async throws -> String {
        let r = try await service.add(OneOffRequest(id: RecordingID.fresh(), target: .programmeAt(channel: channel, start: start)))
        let joined = r.isOneOff ? "" : " (a series rule records it already)"
        return "Recording \(r.programme.title) at \(ProgrammeSummary.time(r.programme.start)) on \(r.channel)\(joined)"
    }

    func recordSeries(title: String) async throws -> String {
        func folded(_ text: String) -> String { text.trimmingCharacters(in: .whitespaces).lowercased() }
        let exact = try service.rules().first { rule in
            if case .exact(let written) = rule.title { folded(written) == folded(title) } else { false }
        }
        if let rule = exact {
            return "\(title) is recorded as a series already (rule \(rule.id))"
        }
        let (recordings, notes) = try await service.save(RecordingRule(id: RuleID.fresh(), title: .exact(title), newEpisodesOnly: true))
        let count = recordings.filter { $0.state.isActive }.count
        return "Series \(title): \(count) to record" + (notes.isEmpty ? "" : " — " + notes.joined(separator: "; "))
    }
}

/// The box's recordings as the player plays them back: each file with its parts, from the store.
struct RecordingShelfOnStore: RecordingShelf {
    let service: RecordingService
    let lineup: Lineup
    /// A recording in state `recording` whose file has not grown for this long is not being
    /// written (the box stopped in its middle and has not resumed it).
    static let stillWritten: TimeInterval = 10

    func playback(of id: String) throws(TimeshiftFailure) -> RecordingPlayback {
        let store = service.store, key = RecordingID(id)
        let found: Recording?
        do { found = try store.recording(key) } catch {
            throw TimeshiftFailure(.notRecorded, "the recordings cannot be read: \(error)")
        }
        guard let recording = found else { throw TimeshiftFailure(.unknownRecording, "there is no recording \(id)") }
        let label = recording.programme.label
        guard let path = recording.filePath, !recording.parts.isEmpty else {
            let when = recording.state == .scheduled ? " (it is to record at \(ProgrammeSummary.time(recording.paddedStart)))" : ""
            throw TimeshiftFailure(.notRecorded, "\(label) has nothing recorded\(when)")
        }
        let file = service.directory.appendingPathComponent(path)
        let parts = recording.parts.map { RecordingTimeline.Part(start: $0.start, end: $0.end ?? $0.lastWrite, bytes: $0.bytes) }
        let programme = recording.programmeID == nil || recording.programme.stop <= recording.programme.start
            ? nil : recording.programme.start...recording.programme.stop
        let growing: @Sendable () -> Bool = {
            guard (try? store.recording(key))?.state == .recording,
                  let modified = try? FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date else { return false }
            return Date().timeIntervalSince(modified) < Self.stillWritten
        }
        let breaks = ((try? store.breaks(of: key)) ?? []).map {
            TimeshiftBreak(start: $0.start, end: $0.end, origin: $0.origin == .lineup ? .lineup : .scte35)
        }
        return RecordingPlayback(id: id, title: label, channel: recording.channel, file: file, parts: parts,
                                 programme: programme, breaks: breaks, isGrowing: growing)
    }

    func listing() -> [RecordingListEntry] {
        let store = service.store
        guard let all = try? store.recordings() else { return [] }
        return all.compactMap { r in
            guard r.filePath != nil, let first = r.parts.first, let last = r.parts.last else { return nil }
            let end = r.state == .recording ? Date() : (last.end ?? last.lastWrite)
            return RecordingListEntry(id: r.id.rawValue, title: r.programme.label, channel: r.channel, start: first.start,
                                      end: max(first.start, end), description: r.programme.description,
                                      recording: r.state == .recording, resume: (try? store.resumePosition(r.id)) ?? nil,
                                      picture: Self.picture(r.programme.icon))
        }
    }

    /// A guide's programme picture, when it is a web address (a guide names no local files).
    static func picture(_ icon: String?) -> LogoReference? {
        guard let icon, icon.count <= 2048, let url = URL(string: icon), let scheme = url.scheme?.lowercased(),
              ["http", "https"].contains(scheme), url.host?.isEmpty == false else { return nil }
        return .remote(url)
    }

    func conflictChoices() -> [ConflictChoice] {
        let conflicts = service.conflicts
        guard !conflicts.isEmpty else { return [] }
        let titles = Dictionary(((try? service.store.recordings()) ?? []).map { ($0.id, $0.programme.label) }, uniquingKeysWith: { a, _ in a })
        return ConflictChoice.choices(for: conflicts, title: { titles[$0] }, channelName: { lineup.channel(number: $0)?.name })
    }

    func resolve(_ choice: ConflictChoice) async throws -> String {
        let moved = try await service.resolve(choice.option)
        if let moved { return "Recording \(moved.programme.label) on \(moved.channel) at \(ProgrammeSummary.time(moved.programme.start))" }
        guard case .drop(let id) = choice.option, let dropped = try? service.store.recording(id) else { return "Done: \(choice.label)" }
        return "Dropped \(dropped.programme.label): the others record"
    }

    func resumePosition(of id: String) -> Date? {
        (try? service.store.resumePosition(RecordingID(id))) ?? nil
    }

    func setResumePosition(of id: String, _ at: Date?) {
        try? service.store.setResumePosition(RecordingID(id), at)
    }
}
