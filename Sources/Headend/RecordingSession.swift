import Foundation
import GStreamer
import Lineup
import Logging

/// What a recording's loop takes, in one ordered stream: the tap's entries, its end, a tick
/// (stalls, the end time, progress), the muxer's bus, a stop.
enum RecordingInput: Sendable {
    case entry(GOPCache.Entry)
    /// The tap ended (`final`: the head-end stopped, no tap comes again).
    case tapEnded(String, final: Bool)
    case tick
    case muxer(BusMessage)
    case stop
}

/// The loop of one recording (`Recorder`): owned by its task, never shared. Reads its inputs in
/// order; GStreamer is called only to push (never blocks) and to build and stop the muxer.
final class RecordingSession {
    let plan: RecordingPlan
    let headend: Headend
    let logger: Logger
    let stallAfter: Duration
    let events: AsyncStream<RecordingEvent>.Continuation

    private var muxer: RecordingMuxer?
    /// The source time of the part's keyframe and where it goes in the file's timeline.
    private var base: ClockTime = 0
    private var offset: ClockTime = 0
    /// The newest video time written (file timeline), and when it was.
    private var lastOut: ClockTime = 0
    /// Where this part starts in the file's timeline (after the parts before it, or after the
    /// beginning fetched from the archive).
    private var firstOut: ClockTime = 0
    private var lastWrittenWall: Date?
    private var lastInput = ContinuousClock.now
    private var lastProgress = ContinuousClock.now
    private var videoCaps: Caps?
    /// A stall or an ended tap: from when, and why; the part goes on at the next keyframe.
    private var gap: (from: Date, reason: String)?
    /// The stop asked, and until when the muxer is given to write what it holds.
    private var finishing: (reason: RecordingStop, deadline: ContinuousClock.Instant)?
    private var stopped: RecordingStop?
    /// Where this part starts on the wall clock (its first keyframe), and the breaks last reported.
    private var partStart: Date?
    private var breaksSaid: [TimeshiftBreak] = []
    /// The fetch of the part that aired before the recording's first keyframe (from the
    /// channel's archive), when one runs: nil when it is whole, else why not.
    private var beginning: Task<String?, Never>?
    /// The file's size before this part (a resumed TS recording appends to it).
    private var partOffset = 0

    init(plan: RecordingPlan, headend: Headend, logger: Logger, stallAfter: Duration, events: AsyncStream<RecordingEvent>.Continuation) {
        self.plan = plan
        self.headend = headend
        self.logger = logger
        self.stallAfter = stallAfter
        self.events = events
    }

    /// Runs the recording to its end; returns why it stopped (also the last event).
    func run(first: IngestTap, inputs: AsyncStream<RecordingInput>, input: AsyncStream<RecordingInput>.Continuation) async -> RecordingStop {
        let headend = self.headend, channel = plan.channel, title = plan.title
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await Self.feed(first: first, headend: headend, channel: channel, title: title, into: input) }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(250))
                    input.yield(.tick)
                }
            }
            for await next in inputs {
                await handle(next, group: &group, input: input)
                if stopped != nil { break }
            }
            group.cancelAll()
        }
        input.finish()
        let reason = stopped ?? .cancelled
        await joinBeginning(reason)
        logger.info("recording \(plan.title) into \(plan.file.path) stopped: \(reason)")
        events.yield(.stopped(reason))
        events.finish()
        return reason
    }

    /// Forwards the tap's entries; when it ends (the consumer fell behind, a client took its
    /// place), opens another a second later, until the head-end stops or the task is cancelled.
    private static func feed(first: IngestTap, headend: Headend, channel: Channel, title: String,
                             into input: AsyncStream<RecordingInput>.Continuation) async {
        var tap: IngestTap? = first
        while !Task.isCancelled {
            if let current = tap {
                do {
                    for try await entry in current { input.yield(.entry(entry)) }
                    if !Task.isCancelled { input.yield(.tapEnded("the channel's ingest ended", final: false)) }
                } catch TapEnd.headendStopped {
                    input.yield(.tapEnded("the head-end stopped", final: true))
                    current.close()
                    return
                } catch {
                    input.yield(.tapEnded("\(error)", final: false))
                }
                current.close()
                tap = nil
            }
            try? await Task.sleep(for: .seconds(1))
            if Task.isCancelled { break }
            tap = try? await headend.recordingTap(channel, title: title)
        }
        tap?.close()
    }

    private func handle(_ input: RecordingInput, group: inout TaskGroup<Void>, input continuation: AsyncStream<RecordingInput>.Continuation) async {
        switch input {
        case .entry(let entry):
            lastInput = .now
            guard finishing == nil else { return }
            if muxer == nil {
                await open(at: entry, group: &group, input: continuation)
            } else {
                write(entry)
            }
        case .tapEnded(let reason, let final):
            if final { return finish(.failed("the recording of \(plan.title) stopped: \(reason)")) }
            if gap == nil, muxer != nil { gap = (lastWrittenWall ?? Date(), reason) }
        case .tick:
            await tick()
        case .muxer(let message):
            await muxerSaid(message)
        case .stop:
            finish(.cancelled)
        }
    }

    /// The first keyframe: the muxer starts with it (after the timeshift buffer's GOPs before
    /// it, when the recording starts earlier than the GOP cache).
    private func open(at entry: GOPCache.Entry, group: inout TaskGroup<Void>, input: AsyncStream<RecordingInput>.Continuation) async {
        guard let source = headend.source(for: plan.channel) else { return finish(.failed("channel \(plan.channel.number) is not in the lineup")) }
        guard entry.track == .video, entry.isKeyframe, entry.pts.isValid, let caps = entry.caps ?? source.cache.videoCaps else { return }
        let keyWall = Self.wallTime(of: entry, cache: source.cache)
        var backlog: [GOPCache.Entry] = []
        var firstWall = keyWall
        if let startAt = plan.startAt, startAt < keyWall, let buffer = await headend.timeshiftBuffer(of: plan.channel, holding: startAt) {
            (backlog, firstWall) = await Self.backlog(buffer, from: startAt, before: entry.pts) ?? ([], keyWall)
        }
        let first = backlog.first ?? entry
        var audio = source.cache.audioFormats
        for e in backlog where e.track == .audio { if let c = e.caps, audio[e.stream] == nil { audio[e.stream] = c } }
        let startCaps = first.caps ?? caps
        partOffset = plan.resumed != nil ? fileSize() : 0
        do {
            muxer = try await RecordingMuxer.start(file: plan.file, append: plan.resumed != nil, container: plan.container,
                                                   video: startCaps, audio: audio)
        } catch {
            return finish(.failed(error.message))
        }
        videoCaps = startCaps
        if let muxer {
            let messages = muxer.pipeline.messages
            group.addTask {
                for await message in messages { input.yield(.muxer(message)) }
            }
        }
        base = Self.decodeStart(first)
        if let resumed = plan.resumed {
            // A beginning fetched before the restart and not joined yet comes first in the file:
            // the timeline starts where it does.
            let origin = RecordingBeginning.note(beside: plan.file).map { min($0.from, resumed.startedAt) } ?? resumed.startedAt
            offset = ClockTime(max(0, firstWall.timeIntervalSince(origin)) * 1e9)
        } else if let missed = missedBeginning(before: firstWall) {
            // The file's times start where the beginning's end: once joined, they run on.
            offset = ClockTime(firstWall.timeIntervalSince(missed) * 1e9)
            let fetch = RecordingBeginning(channel: plan.channel, title: plan.title, from: missed, to: firstWall,
                                           file: plan.file, headend: headend, logger: logger)
            logger.info("recording \(plan.title): its first \(Int(firstWall.timeIntervalSince(missed))) s aired before it could start live; fetching them from channel \(plan.channel.number)'s archive")
            beginning = Task { await fetch.fetch() }
        }
        // The part's first keyframe goes at `offset` (not a jump to rebase from).
        firstOut = offset
        lastOut = offset
        events.yield(.started(file: plan.file, firstKeyframe: firstWall))
        partStart = firstWall
        if let resumed = plan.resumed {
            events.yield(.gap(from: resumed.lastWrite, to: firstWall, reason: "the recording was cut (the box restarted) and goes on in its next part"))
        }
        for e in backlog { write(e) }
        write(entry)
    }

    /// Writes `entry` at its place in the file's timeline: after a gap from its next keyframe
    /// on, moved on by the time the gap took; a keyframe at or after the end ends the recording.
    private func write(_ entry: GOPCache.Entry) {
        guard let muxer, entry.pts.isValid else { return }
        let keyframe = entry.track == .video && entry.isKeyframe
        if let gap {
            guard keyframe else { return }
            let now = Date()
            events.yield(.gap(from: gap.from, to: now, reason: gap.reason))
            logger.notice("recording \(plan.title): nothing from channel \(plan.channel.number) for \(String(format: "%.1f", now.timeIntervalSince(gap.from))) s (\(gap.reason)); it goes on")
            self.gap = nil
            rebase(at: entry)
        } else if keyframe {
            if Date() >= plan.until, lastWrittenWall != nil { return finish(.ended) }
            // A source whose times jumped (a reconnect, a loop) goes on where the file is.
            let out = entry.pts >= base ? entry.pts - base + offset : 0
            let elapsed = lastWrittenWall.map { Date().timeIntervalSince($0) } ?? 0
            if entry.pts < base || out < lastOut || Double(out - lastOut) / 1e9 > elapsed + 3 { rebase(at: entry) }
        }
        guard entry.pts >= base else { return }
        let pts = entry.pts - base + offset
        let dts = entry.dts.isValid && entry.dts >= base ? entry.dts - base + offset : ClockTime.none
        if muxer.push(entry, pts: pts, dts: dts, videoCaps: &videoCaps) {
            lastOut = max(lastOut, pts)
            lastWrittenWall = Date()
        }
    }

    /// The part goes on at `keyframe`, placed after what was written by the wall time between.
    private func rebase(at keyframe: GOPCache.Entry) {
        let elapsed = lastWrittenWall.map { max(Date().timeIntervalSince($0), 0.04) } ?? 0.04
        base = Self.decodeStart(keyframe)
        offset = lastOut + ClockTime(elapsed * 1e9)
    }

    private func tick() async {
        let now = ContinuousClock.now
        if let finishing {
            if now >= finishing.deadline { await close(finishing.reason) }
            return
        }
        if muxer == nil {
            if Date() >= plan.until {
                finish(.failed("channel \(plan.channel.number) gave no picture to start the recording of \(plan.title) before its end"))
            }
            return
        }
        if gap == nil, now - lastInput > stallAfter {
            gap = (lastWrittenWall ?? Date(), "channel \(plan.channel.number) stalled")
        }
        if Date() >= plan.until, gap != nil || Date() >= plan.until.addingTimeInterval(Recorder.untilGrace) {
            return finish(.ended)
        }
        if now - lastProgress >= .seconds(1) {
            lastProgress = now
            events.yield(.progress(bytes: partBytes(), duration: Double(lastOut - firstOut) / 1e9))
            reportBreaks(until: Date())
        }
    }

    private func muxerSaid(_ message: BusMessage) async {
        switch message {
        case .error(_, let text, let debug):
            let failure = RecordingMuxer.writeFailure(file: plan.file, message: text, debug: debug)
            logger.error("recording \(plan.title): \(failure.text) [\(debug ?? "")]")
            await close(failure.diskFull ? .diskFull(failure.text) : .failed(failure.text))
        case .endOfStream:
            if let finishing { await close(finishing.reason) }
        default:
            break
        }
    }

    /// Asks the muxer to write what it holds; `close` follows at its end of stream (or after
    /// 10 s). Without a muxer, at once.
    private func finish(_ reason: RecordingStop) {
        guard finishing == nil, stopped == nil else { return }
        guard let muxer else { return stopped = reason }
        finishing = (reason, .now + .seconds(10))
        muxer.finish()
    }

    private func close(_ reason: RecordingStop) async {
        guard stopped == nil else { return }
        if let muxer {
            await muxer.shutdown()
            events.yield(.progress(bytes: partBytes(), duration: Double(lastOut - firstOut) / 1e9))
            reportBreaks(until: lastWrittenWall ?? Date())
        }
        muxer = nil
        stopped = reason
    }

    /// Where the programme began, when the part before `firstWall` is missing and the
    /// channel's archive keeps it: a new TS recording asked to start more than
    /// `missedAtLeast` before its first keyframe.
    private func missedBeginning(before firstWall: Date) -> Date? {
        guard plan.resumed == nil, plan.container == .mpegts, let startAt = plan.startAt,
              firstWall.timeIntervalSince(startAt) > Self.missedAtLeast,
              let catchup = plan.channel.catchup, catchup.covers(start: startAt, now: Date()) else { return nil }
        return startAt
    }

    /// A beginning shorter than this is not fetched (about a GOP: the live start is that close).
    static let missedAtLeast: TimeInterval = 3

    /// Waits for the beginning's fetch (at most `beginningWait`, as an archive may come at real
    /// time; not at all when the recording was stopped by request), then joins it in front of
    /// the file (also one a restart left whole beside the file).
    private func joinBeginning(_ reason: RecordingStop) async {
        if let beginning {
            if reason == .cancelled { beginning.cancel() }
            let why: String? = await withTaskGroup(of: (done: Bool, why: String?).self) { group in
                group.addTask { (true, await beginning.value) }
                group.addTask {
                    try? await Task.sleep(for: .seconds(Self.beginningWait))
                    return (false, "it took more than \(Int(Self.beginningWait)) s")
                }
                let first = await group.next() ?? (false, nil)
                if !first.done { beginning.cancel() }
                group.cancelAll()
                return first.why
            }
            if let why, reason != .cancelled {
                logger.warning("recording \(plan.title): its beginning could not be fetched from the archive: \(why); the file starts where the channel was first recorded")
            }
        }
        guard plan.container == .mpegts, let joined = RecordingBeginning.join(into: plan.file) else { return }
        switch joined {
        case .joined(let note):
            events.yield(.beginning(from: note.from, to: note.to, bytes: note.bytes))
        case .failed(let why):
            logger.warning("recording \(plan.title): \(why)")
        }
    }

    /// The most a recording's end waits for its beginning's fetch, in seconds.
    static let beginningWait: TimeInterval = 300

    /// Reports the channel's breaks inside this part up to `end` when they changed.
    private func reportBreaks(until end: Date) {
        guard let partStart, end > partStart, let source = headend.source(for: plan.channel) else { return }
        let breaks = RecordingBreaks.within(partStart...end, cued: source.spliceCues.intervals(until: end),
                                            schedule: plan.channel.breakSchedule)
        guard breaks != breaksSaid else { return }
        breaksSaid = breaks
        events.yield(.breaks(breaks))
    }

    /// What this part wrote: the file's size past where it started.
    private func partBytes() -> Int { max(0, fileSize() - partOffset) }

    private func fileSize() -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: plan.file.path)[.size]) as? NSNumber)?.intValue ?? 0
    }

    /// Where a keyframe's decoding starts (its DTS when before its PTS).
    private static func decodeStart(_ entry: GOPCache.Entry) -> ClockTime {
        entry.dts.isValid ? min(entry.dts, entry.pts) : entry.pts
    }

    /// The wall-clock time of a cached entry, from the cache's newest video time.
    private static func wallTime(of entry: GOPCache.Entry, cache: GOPCache) -> Date {
        guard let newest = cache.newestVideoTime, entry.pts.isValid else { return Date() }
        let behind = Double(Int64(bitPattern: UInt64(newest.runningTime)) - Int64(bitPattern: UInt64(entry.pts))) / 1e9
        return newest.at.addingTimeInterval(-behind)
    }

    /// The entries of `buffer` from its keyframe at or before `time` up to (not with) the GOP
    /// whose keyframe is at `keyPTS` (the tap's first), and the wall time they start at. Read
    /// on a queue of their own (segment files are on disk). Nil when nothing is before `keyPTS`.
    private static func backlog(_ buffer: TimeshiftBuffer, from time: Date, before keyPTS: ClockTime) async -> ([GOPCache.Entry], Date)? {
        guard let first = buffer.gop(at: time) else { return nil }
        let gops = buffer.index.filter { $0.serial >= first.serial }
        let read = try? await ClipWriter.on(queue) { () -> [GOPCache.Entry] in
            var entries: [GOPCache.Entry] = []
            for gop in gops {
                let part = try buffer.read(gop.serial)
                guard let key = part.first, key.pts.isValid, key.pts < keyPTS else { break }
                entries += part.filter { !$0.pts.isValid || $0.pts < keyPTS }
            }
            return entries
        }
        guard let read, !read.isEmpty else { return nil }
        return (read, first.start)
    }

    private static let queue = DispatchQueue(label: "flipbox.recording.backlog")
}
