import Foundation
import Headend
import Lineup
import Logging
import Recordings

/// A recording the loop is writing.
struct RunningRecording {
    var active: ActiveRecording
    var reading: Task<Void, Never>
    /// The part being written (nil until `started`).
    var part: Int?
    var bytes: Int64 = 0
    /// Resumed after a restart: the store records the gap itself when the part is added.
    var resumed: Bool
    /// Removed while running: ends as partial, "stopped by request".
    var removed = false
}

extension RecordingService {
    /// The loop: call once; returns after `shutdown()` with every recording stopped and stored
    /// (left `recording`, so that the next start resumes it).
    public func run() async {
        var running: [RecordingID: RunningRecording] = [:]
        var conflicts: [RecordingConflict] = []
        let ticking = Task { [input, tick] in
            while !Task.isCancelled {
                try? await Task.sleep(for: tick)
                input.yield(.tick)
            }
        }
        defer { ticking.cancel() }
        await resumeInterrupted(&running)
        applyRetention(running: Set(running.keys))
        conflicts = derive(adding: [])?.conflicts ?? conflicts
        await startDue(&running)
        loop: for await next in inputs {
            switch next {
            case .derive:
                conflicts = derive(adding: [])?.conflicts ?? conflicts
            case .lineup(let moves, let reply):
                followLineup(moves)
                let schedule = derive(adding: [])
                conflicts = schedule?.conflicts ?? conflicts
                reply(.derived(schedule?.notes ?? []))
            case .derived(let reply):
                let schedule = derive(adding: [])
                conflicts = schedule?.conflicts ?? conflicts
                reply(.derived(schedule?.notes ?? []))
            case .tick:
                await startDue(&running)
            case .event(let id, let event):
                follow(event, of: id, &running)
            case .add(let request, let reply):
                let schedule = derive(adding: [request])
                conflicts = schedule?.conflicts ?? conflicts
                await startDue(&running)
                reply(answer(request, schedule))
            case .remove(let id, let reply):
                reply(remove(id, &running))
            case .resolve(let option, let reply):
                let (outcome, schedule) = await resolve(option, conflicts: conflicts, &running)
                conflicts = schedule?.conflicts ?? conflicts
                reply(outcome)
            case .list(let reply):
                reply(.listing((try? store.recordings()) ?? [], conflicts))
            case .shutdown:
                break loop
            }
        }
        // Stopped, each stays `recording` with its part closed: the next start resumes it
        // (`interrupted()`), its gap recorded.
        for (id, r) in running {
            r.active.stop()
            _ = await r.active.finished()
            r.reading.cancel()
            if let part = r.part { try? store.finishPart(id, number: part, bytes: r.bytes, at: Date()) }
        }
        input.finish()
    }

    /// Derives the schedule from the store, the guide and the pools, and stores it.
    /// Recordings to come and rules follow the lineup's channels; those that cannot are failed
    /// and told.
    func followLineup(_ moves: RecordingStore.ChannelMoves) {
        do {
            for recording in try store.followLineup(moves) {
                logger.warning("recordings: \(recording.programme.label) will not be recorded: \(recording.error ?? "its channel is no longer in the lineup")")
                notice.yield(.failed(recording))
            }
            if !moves.renumbered.isEmpty {
                let moved = moves.renumbered.sorted { $0.key < $1.key }.map { "\($0.key) → \($0.value)" }.joined(separator: ", ")
                logger.notice("recordings: recordings to come and rules follow the channels renumbered (\(moved))")
            }
        } catch {
            logger.error("recordings: the lineup's changes could not be stored: \(error)")
        }
    }

    func derive(adding oneOffs: [OneOffRequest]) -> Schedule? {
        let now = Date()
        do {
            let programmes: [GuideProgramme]
            do { programmes = try sources.programmes(now.addingTimeInterval(-86_400), now.addingTimeInterval(horizon)) } catch {
                logger.warning("recordings: the guide could not be read (\(error)); deriving without it")
                programmes = []
            }
            let input = ScheduleInput(rules: try store.rules(), oneOffs: oneOffs, programmes: programmes,
                                      existing: try store.recordings(), channels: sources.channels(), pools: sources.pools(),
                                      timeZone: timeZone, now: now)
            let schedule = RecordingScheduler.derive(input)
            try store.save(schedule)
            for note in schedule.notes { logger.info("recordings: \(note.message)") }
            for conflict in schedule.conflicts { notice.yield(.conflict(conflict)) }
            lastConflicts.withLock { $0 = schedule.conflicts }
            return schedule
        } catch {
            logger.error("recordings: the schedule could not be derived or stored: \(error)")
            return nil
        }
    }

    /// The recording that took `request`: its own, or the one of a rule that records the same
    /// programme already (the request merged into it); else why nothing was scheduled.
    func answer(_ request: OneOffRequest, _ schedule: Schedule?) -> Outcome {
        guard let schedule else {
            return .failure(RecordingError(.storage, "the schedule could not be derived or stored (the log says why)", source: request.id.rawValue))
        }
        do throws(RecordingError) {
            if let own = try store.recording(request.id) { return .recording(own) }
            if let note = schedule.notes.last(where: { $0.recording == request.id }) {
                return .failure(RecordingError(.notFound, note.message, source: request.id.rawValue))
            }
            let merged = try store.recordings().last { r in
                switch request.target {
                case .programme(let id): r.programmeID == id
                case .programmeAt(let channel, let start): r.channel == channel && abs(r.programme.start.timeIntervalSince(start)) < 1
                case .timeRange: false
                }
            }
            if let merged { return .recording(merged) }
            return .failure(RecordingError(.notFound, "nothing in the guide matches the request", source: request.id.rawValue))
        } catch {
            return .failure(error)
        }
    }

    /// Starts each scheduled recording whose padded start has come; fails those missed.
    func startDue(_ running: inout [RecordingID: RunningRecording]) async {
        let now = Date()
        guard let scheduled = try? store.recordings(in: [.scheduled]) else { return }
        for r in scheduled where running[r.id] == nil && r.paddedStart <= now {
            guard r.paddedEnd > now else {
                try? store.finish(r.id, as: .failed, error: "missed: nothing recorded it (the box was not running at its start)")
                if let stored = try? store.recording(r.id) { notice.yield(.failed(stored)) }
                continue
            }
            await start(r, &running)
        }
    }

    private func start(_ r: Recording, _ running: inout [RecordingID: RunningRecording]) async {
        guard let channel = sources.channel(r.channel) else {
            fail(r.id, "channel \(r.channel) is not in the lineup any more")
            return
        }
        let taken = Set(((try? store.recordings()) ?? []).compactMap(\.filePath))
        let path = RecordingFileName.path(for: r.programme, timeZone: timeZone, taken: taken)
        let file = directory.appendingPathComponent(path)
        let input = self.input
        do {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try store.setFilePath(r.id, path)
        } catch {
            fail(r.id, "the folder for \(file.path) cannot be made: \(error.localizedDescription)")
            return
        }
        // Opening the tap waits for the pool; the loop waits with it so that inputs stay in order.
        let opened: Result<ActiveRecording, any Error>
        do {
            opened = .success(try await recorder.start(channel: channel, title: r.programme.title, until: r.paddedEnd, file: file,
                                                       startAt: r.paddedStart))
        } catch { opened = .failure(error) }
        switch opened {
        case .failure(let error):
            fail(r.id, "recording channel \(r.channel) did not start: \(error)")
        case .success(let active):
            let id = r.id
            let reading = Task { for await event in active.events { input.yield(.event(id, event)) } }
            running[id] = RunningRecording(active: active, reading: reading, resumed: false)
            writeSidecar(id)
        }
    }

    /// Resumes recordings a restart cut (second part, the gap stored); finishes those past their end.
    func resumeInterrupted(_ running: inout [RecordingID: RunningRecording]) async {
        let now = Date()
        for r in (try? store.interrupted()) ?? [] {
            guard r.paddedEnd > now, let path = r.filePath, let channel = sources.channel(r.channel) else {
                try? store.finish(r.id, as: r.parts.isEmpty ? .failed : .partial,
                                  error: "the box stopped during the recording and it was past its end on restart; what was written is kept")
                continue
            }
            let file = directory.appendingPathComponent(path)
            let startedAt = r.parts.first?.start ?? r.paddedStart
            let opened: Result<ActiveRecording, any Error>
            do {
                opened = .success(try await recorder.resume(channel: channel, title: r.programme.title, until: r.paddedEnd,
                                                            file: file, startedAt: startedAt))
            } catch { opened = .failure(error) }
            switch opened {
            case .failure(let error):
                try? store.finish(r.id, as: .partial, error: "the recording could not go on after a restart: \(error)")
            case .success(let active):
                let id = r.id, input = self.input
                let reading = Task { for await event in active.events { input.yield(.event(id, event)) } }
                running[id] = RunningRecording(active: active, reading: reading, resumed: true)
            }
        }
    }

    /// Stores what a recording reports.
    func follow(_ event: RecordingEvent, of id: RecordingID, _ running: inout [RecordingID: RunningRecording]) {
        guard var r = running[id] else { return }
        do {
            switch event {
            case .started(_, let firstKeyframe):
                let part = try store.appendPart(to: id, at: firstKeyframe, gapReason: "the box restarted")
                r.part = part.number
                running[id] = r
                if let stored = try store.recording(id) { notice.yield(.started(stored)) }
            case .progress(let bytes, _):
                r.bytes = Int64(clamping: bytes)
                running[id] = r
                if let part = r.part { try store.updatePart(id, number: part, bytes: r.bytes, at: Date()) }
            case .gap(let from, let to, let reason):
                // A resumed part's gap is stored by appendPart already.
                if !(r.resumed && reason.contains("box restarted")), from < to {
                    try store.recordGap(id, from: from, to: to, reason: reason)
                }
            case .breaks(let breaks):
                try store.addBreaks(breaks.map(RecordingBreak.init), to: id)
            case .beginning(let from, let to, let bytes):
                try store.addBeginning(to: id, from: from, to: to, bytes: bytes)
            case .stopped(let reason):
                running[id] = nil
                finishStored(id, r, stop: reason)
                applyRetention(running: Set(running.keys))
            }
        } catch {
            logger.error("recordings: \(id): \(error)")
        }
    }

    /// Stores the end of a recording from how it stopped.
    func finishStored(_ id: RecordingID, _ r: RunningRecording, stop: RecordingStop) {
        switch stop {
        case .ended:
            finishStored(id, r, reason: nil)
        case .cancelled:
            finishStored(id, r, reason: r.removed ? "stopped by request before its end; what was written is kept"
                                                  : "stopped before its end; what was written is kept")
        case .diskFull(let message), .failed(let message):
            finishStored(id, r, reason: message, failed: r.bytes == 0)
        }
    }

    func finishStored(_ id: RecordingID, _ r: RunningRecording, reason: String?, failed: Bool = false) {
        guard let current = try? store.recording(id), current.state == .recording || current.state == .scheduled else { return }
        if let part = r.part { try? store.finishPart(id, number: part, bytes: r.bytes, at: Date()) }
        let gaps = (try? store.recording(id))?.gaps ?? []
        let state: RecordingState = failed || r.part == nil ? .failed : (reason == nil && gaps.isEmpty ? .done : .partial)
        let error = reason ?? (gaps.isEmpty ? nil : "\(gaps.count) gap\(gaps.count == 1 ? "" : "s") in the recording")
        try? store.finish(id, as: state, error: error)
        writeSidecar(id)
        guard let stored = try? store.recording(id) else { return }
        notice.yield(state == .failed ? .failed(stored) : .stopped(stored))
    }

    /// Cancels a scheduled recording or stops one in progress.
    func remove(_ id: RecordingID, _ running: inout [RecordingID: RunningRecording]) -> Outcome {
        if var r = running[id] {
            r.removed = true
            running[id] = r
            r.active.stop()
            return .removed(true)
        }
        do throws(RecordingError) {
            guard let stored = try store.recording(id) else { return .removed(false) }
            guard stored.state == .scheduled else {
                // Ended (done, partial, failed, cancelled): the files and the entry go.
                try delete(stored, reason: "deleted by request")
                return .removed(true)
            }
            try store.setState(id, .cancelled)
            return .removed(true)
        } catch {
            return .failure(error)
        }
    }

    /// One of `conflicts`' options taken (`resolve(_:)`), and the schedule derived after it.
    func resolve(_ option: ConflictOption, conflicts: [RecordingConflict],
                 _ running: inout [RecordingID: RunningRecording]) async -> (Outcome, Schedule?) {
        guard conflicts.contains(where: { $0.options.contains(option) }) else {
            let message = "that choice is not offered any more: the conflict it was for has changed or gone "
                + "(GET /api/v1/recordings lists today's conflicts and their options)"
            return (.failure(RecordingError(.wrongState, message)), nil)
        }
        switch option {
        case .drop(let id):
            let outcome = remove(id, &running)
            if case .removed(true) = outcome { logger.info("recordings: \(id) dropped to settle a conflict") }
            return (outcome, derive(adding: []))
        case .otherChannel(let id, let channel, let programmeID):
            let request = OneOffRequest(id: RecordingID.fresh(), target: .programme(id: programmeID))
            let added = derive(adding: [request])
            let outcome = answer(request, added)
            guard case .recording = outcome else { return (outcome, added) }
            _ = remove(id, &running)
            logger.info("recordings: \(id) moved to channel \(channel) to settle a conflict")
            let after = derive(adding: [])
            await startDue(&running)
            return (outcome, after ?? added)
        }
    }

    private func fail(_ id: RecordingID, _ message: String) {
        logger.error("recordings: \(id): \(message)")
        try? store.finish(id, as: .failed, error: message)
        if let stored = try? store.recording(id) { notice.yield(.failed(stored)) }
    }

    /// Writes the JSON sidecar beside the file (guide data, span, gaps, breaks).
    func writeSidecar(_ id: RecordingID) {
        guard let r = try? store.recording(id), let path = r.filePath,
              let data = try? RecordingSidecar(r, breaks: (try? store.breaks(of: id)) ?? []).encoded() else { return }
        let url = directory.appendingPathComponent(RecordingFileName.sidecarPath(for: path))
        do { try data.write(to: url, options: .atomic) } catch {
            logger.warning("recordings: the sidecar \(url.path) could not be written: \(error.localizedDescription)")
        }
    }
}

extension RecordingBreak {
    /// A break the recorder reported, as the store keeps it.
    init(_ reported: TimeshiftBreak) {
        self.init(start: reported.start, end: reported.end, origin: reported.origin)
    }
}
