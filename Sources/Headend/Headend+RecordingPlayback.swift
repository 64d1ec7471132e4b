import FlipboxCore
import Foundation
import Lineup

/// A recording to play on a feed: its file, the parts written into it, and its programme.
public struct RecordingPlayback: Sendable {
    public var id: String
    /// How people call it (`Title - S01E02 - Subtitle`).
    public var title: String
    /// The lineup channel it was recorded from.
    public var channel: ChannelNumber
    public var file: URL
    /// The parts written, in file order (start, end or last write, bytes counted).
    public var parts: [RecordingTimeline.Part]
    /// The programme inside the padding, when the recording follows one: its start and end are
    /// the playback's markers.
    public var programme: ClosedRange<Date>?
    /// Whether the recording is still being written (asked at the file's end, any thread).
    public var isGrowing: @Sendable () -> Bool
    /// The ad breaks inside it, in start order: each one's start and end are marks.
    public var breaks: [TimeshiftBreak]
    /// Jump over each break when the picture reaches it (once; one the viewer goes into plays).
    public var skipBreaks: Bool

    public init(id: String, title: String, channel: ChannelNumber, file: URL, parts: [RecordingTimeline.Part],
                programme: ClosedRange<Date>?, breaks: [TimeshiftBreak] = [], skipBreaks: Bool = false,
                isGrowing: @escaping @Sendable () -> Bool) {
        self.id = id
        self.title = title
        self.channel = channel
        self.file = file
        self.parts = parts
        self.programme = programme
        self.breaks = breaks.sorted { $0.start < $1.start }
        self.skipBreaks = skipBreaks
        self.isGrowing = isGrowing
    }

    /// Its timeline as the file is now (a growing one up to now).
    public func timeline(now: Date = Date()) -> RecordingTimeline {
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value ?? 0
        return RecordingTimeline(parts: parts, fileSize: size, growingUntil: isGrowing() ? now : nil)
    }

    /// Whether its file is MPEG-TS: a playback starts anywhere in it (a Matroska file only from
    /// its start).
    var seeks: Bool { IngestPlan.isTransportStream(path: file.path) }
}

/// A feed playing a recording: a source of its own reads the file from a moment (no stream of
/// any pool), the feed decodes it as it would a channel.
struct RecordingPlay {
    var playback: RecordingPlayback
    var source: ChannelSource
    var reader: RecordingFileReader
    /// The moment the file was read from.
    var from: Date
    /// When that moment's picture came (nil: not yet).
    var started: ContinuousClock.Instant?
    /// Paused at this moment (read again from there on resume); at the end once it ended.
    var pausedAt: Date?
    /// The recording's span when the playback began.
    var span: ClosedRange<Date>
    /// It played to its end.
    var ended = false
    /// The breaks skipped or chosen so far (carried from one reading of the file to the next).
    var skipping: BreakSkipping

    var position: Date {
        if let pausedAt { return pausedAt }
        guard let started else { return from }
        let at = from.addingTimeInterval((ContinuousClock.now - started).seconds)
        return min(at, playback.isGrowing() ? Date() : span.upperBound)
    }
}

// Recordings play on the box as a channel's archive does (pause, seek, markers, the position
// bar), but from a source of their own: the recording's file, read from the moment asked (its
// byte from the timeline) by a `RecordingFileReader` into an ingest like any other, paced at real
// time, decoded by the feed as a channel is. No pool stream is taken, and a recording still being
// written is watched as it grows (the reader waits at the file's end). The channel's own source
// goes on (it may be recording that very file); the feed comes back to it at `live`.
extension Headend {
    /// How close to its end a recording's resume point may be before it plays from its start.
    public static let resumeSlack: TimeInterval = 10

    /// Makes and starts the source reading `playback` from `from` for `feed`; the moment it
    /// starts at (a gap's end, the span's bounds). `skipped`: the breaks skipped or chosen by
    /// the reading it follows (a seek within the same playback); a break holding `from` plays.
    func startRecordingSource(feed: FeedID, _ playback: RecordingPlayback, from: Date,
                              skipped: BreakSkipping? = nil) throws(TimeshiftFailure) -> RecordingPlay {
        let timeline = playback.timeline()
        guard let span = timeline.span else {
            throw TimeshiftFailure(.notRecorded, "\(playback.title) has nothing written yet")
        }
        guard FileManager.default.isReadableFile(atPath: playback.file.path) else {
            throw TimeshiftFailure(.notRecorded, "the file of \(playback.title) is gone or cannot be read: \(playback.file.path)")
        }
        let seeks = playback.seeks
        let at = seeks ? timeline.moment(from) : span.lowerBound
        let offset = seeks ? timeline.offset(at: at) : 0
        let reader = RecordingFileReader(path: playback.file.path, offset: UInt64(offset), snapsToKeyframe: seeks, isGrowing: playback.isGrowing)
        guard var channel = lineup.channel(number: playback.channel) else {
            throw TimeshiftFailure(.unknownChannel, "\(playback.title) was recorded from channel \(playback.channel), which is no longer in the lineup")
        }
        channel.sources = [playback.file.path]
        let source = ChannelSource(channel: channel, logger: logger, stallTimeout: .seconds(6), fileReader: reader) { _ in }
        source.archiveEvents.set { [weak self] event in
            self?.onMediaThread { $0.recordingPlayStopped(feed: feed, source: source, event) }
        }
        logger.info("playing recording \(playback.title) from \(TimeshiftTime.format(at)) (byte \(offset) of \(playback.file.lastPathComponent))")
        var skipping = skipped ?? BreakSkipping(breaks: playback.breaks)
        skipping.moved(to: at)
        return RecordingPlay(playback: playback, source: source, reader: reader, from: at, span: span, skipping: skipping)
    }

    /// Plays `playback` from `from` on `feed`, which shows something else now (its channel
    /// live, its archive, its buffer or another recording); waits for its first picture.
    public func playRecording(feed: FeedID, _ playback: RecordingPlayback, from: Date) async throws(TimeshiftFailure) {
        guard let entry = decoders[feed], pending[feed]?.sink != nil else {
            throw TimeshiftFailure(.nothingShown, "no channel is on screen")
        }
        let play = try startRecordingSource(feed: feed, playback, from: from)
        if recordingPlays[feed] != nil {
            await stopRecordingPlay(feed: feed, reportLeft: true)
        } else {
            await endArchive(feed: feed)
            endReplay(feed: feed)
            stopFeedPicture(feed)
            await entry.source.setHot(feed, false)
        }
        try await runRecording(play, on: feed)
    }

    /// Puts `play` on `feed` (its picture from the file's next keyframe) and waits for it.
    private func runRecording(_ play: RecordingPlay, on feed: FeedID) async throws(TimeshiftFailure) {
        guard let sink = pending[feed]?.sink else { throw TimeshiftFailure(.nothingShown, "no channel is on screen") }
        recordingPlays[feed] = play
        decoders[feed] = (nil, play.source)
        restartFeed(feed, source: play.source, sink: sink)
        await play.source.play(archive: play.playback.file.path)
        await play.source.setHot(feed, true)
        if let failure = await feedStarted(feed: feed, { $0.recordingPlays[feed]?.started != nil }) {
            await stopRecordingPlay(feed: feed, reportLeft: false)
            throw TimeshiftFailure(.archive, "\(play.playback.title) did not play: \(failure)")
        }
    }

    /// The source a flip activates for a recording (see `activate`): started, its feed noted.
    func activateRecording(feed: FeedID, _ playback: RecordingPlayback, from: Date) async throws(TimeshiftFailure) -> ChannelSource {
        let play = try startRecordingSource(feed: feed, playback, from: from)
        recordingPlays[feed] = play
        await play.source.play(archive: playback.file.path)
        return play.source
    }

    /// Called when a decoder starts on `feed` (media thread): the recording's picture came.
    func recordingDecoderStarted(feed: FeedID) {
        guard let play = recordingPlays[feed], play.started == nil else { return }
        recordingPlays[feed]?.started = .now
        finishArchiveWait(feed: feed, failure: nil)
        if play.playback.skipBreaks, !play.playback.breaks.isEmpty { watchBreaks(feed: feed, source: play.source) }
    }

    /// How often a playback that skips breaks looks whether its picture reached one.
    static let breakWatch: Duration = .milliseconds(200)

    /// While `source` reads `feed`'s recording: when its position reaches a break to skip, the
    /// recording is read again from the break's end (media thread; ends with that reading).
    private func watchBreaks(feed: FeedID, source: ChannelSource) {
        guard var play = recordingPlays[feed], play.source === source else { return }
        if play.pausedAt == nil, !play.ended, let end = play.skipping.jump(at: play.position) {
            recordingPlays[feed]?.skipping = play.skipping
            logger.info("recording \(play.playback.title): break skipped at \(TimeshiftTime.format(play.position)), on from \(TimeshiftTime.format(end))")
            chore(.skipBreak(feed, source: source, to: end))
            return
        }
        onMediaThread(after: Self.breakWatch) { $0.watchBreaks(feed: feed, source: source) }
    }

    /// A break reached: the recording of `feed` read again from `end`, while `source` still reads it.
    func skipBreak(feed: FeedID, source: ChannelSource, to end: Date) async {
        guard let play = recordingPlays[feed], play.source === source else { return }
        do throws(TimeshiftFailure) {
            try await restartRecording(feed: feed, from: end)
        } catch {
            logger.warning("recording \(play.playback.title): the break could not be skipped: \(error.message)")
        }
    }

    /// Carries out `command` on a feed playing a recording; nil for any other feed.
    func recordingCommand(feed: FeedID, _ command: TimeshiftCommand) async throws(TimeshiftFailure) -> TimeshiftStatus? {
        guard let play = recordingPlays[feed] else { return nil }
        let position = play.position
        switch command {
        case .pause:
            await pauseRecording(feed: feed)
        case .resume:
            if let at = play.pausedAt { try await restartRecording(feed: feed, from: play.ended ? play.span.lowerBound : at) }
        case .togglePause:
            if let at = play.pausedAt { try await restartRecording(feed: feed, from: play.ended ? play.span.lowerBound : at) } else { await pauseRecording(feed: feed) }
        case .seekBy(let by):
            try await restartRecording(feed: feed, from: position.addingTimeInterval(by.seconds))
        case .seekTo(let to):
            try await restartRecording(feed: feed, from: to)
        case .live:
            try await leaveRecording(feed: feed)
            return status(feed: feed) ?? TimeshiftStatus(channel: play.playback.channel, live: true, paused: false, position: Date(),
                                                         bufferStart: nil, liveEdge: nil, keyframes: 0, bytesInMemory: 0)
        case .previousMarker, .nextMarker:
            let times = recordingMarkers(play).map(\.time)
            let previous = command == .previousMarker
            guard let target = previous ? TimeshiftNavigation.previous(times, from: position) : TimeshiftNavigation.next(times, from: position) else {
                throw TimeshiftFailure(.noMarker, "no mark \(previous ? "before" : "after") \(TimeshiftTime.format(position)) in \(play.playback.title)")
            }
            try await restartRecording(feed: feed, from: target)
        }
        return recordingStatus(feed: feed)
    }

    /// Reads the recording again from `target` (within its span; its end is the end).
    private func restartRecording(feed: FeedID, from target: Date) async throws(TimeshiftFailure) {
        guard let play = recordingPlays[feed] else { return }
        guard play.playback.seeks else {
            throw TimeshiftFailure(.outsideBuffer, "\(play.playback.title) is a Matroska file: it plays from its start only")
        }
        let span = play.playback.timeline().span ?? play.span
        if target >= span.upperBound.addingTimeInterval(-1), !play.playback.isGrowing() {
            // Past its end: it stands at its end, paused.
            await pauseRecording(feed: feed)
            recordingPlays[feed]?.pausedAt = span.upperBound
            recordingPlays[feed]?.ended = true
            return
        }
        let next = try startRecordingSource(feed: feed, play.playback, from: min(target, span.upperBound.addingTimeInterval(-1)),
                                            skipped: play.skipping)
        await stopRecordingPlay(feed: feed, reportLeft: false)
        try await runRecording(next, on: feed)
    }

    /// Stops the recording's picture where it is; resuming reads it again from there.
    private func pauseRecording(feed: FeedID) async {
        guard let play = recordingPlays[feed], play.pausedAt == nil, let entry = decoders[feed] else { return }
        recordingPlays[feed]?.pausedAt = play.position
        _ = pending[feed]?.suspend()
        entry.source.cache.detach(.feed(feed))
        try? entry.decoder?.setPaused(true)
        play.reader.stop()
        await play.source.stop()
    }

    /// Back to the channel live from the recording (the channel's own source, in its pool).
    func leaveRecording(feed: FeedID) async throws(TimeshiftFailure) {
        guard let play = recordingPlays[feed], let sink = pending[feed]?.sink else { return }
        guard let live = lineup.channel(number: play.playback.channel).flatMap(source(for:)) else {
            throw TimeshiftFailure(.unknownChannel, "channel \(play.playback.channel) is no longer in the lineup; choose another channel")
        }
        if !(await live.isRunning) {
            do { try await makeRoom(for: live, flipTo: true) } catch {
                throw TimeshiftFailure(.channelShared, "channel \(play.playback.channel) cannot play live: \(error)")
            }
            await live.start()
        }
        await stopRecordingPlay(feed: feed, reportLeft: true)
        decoders[feed] = (nil, live)
        restartFeed(feed, source: live, sink: sink)
        await live.setHot(feed, true)
        await startTimeshift(for: live)
        refreshPoolView()
    }

    /// Ends `feed`'s recording: its source and reader stop, and the position it was left at is
    /// reported (`reportLeft`) for its resume point.
    func stopRecordingPlay(feed: FeedID, reportLeft: Bool) async {
        guard let play = recordingPlays.removeValue(forKey: feed) else { return }
        finishArchiveWait(feed: feed, failure: "the recording was left")
        if reportLeft {
            let at = play.ended ? nil : play.position
            recordingsLeft.removeAll { $0.id == play.playback.id }
            recordingsLeft.append((play.playback.id, at))
            if recordingsLeft.count > 16 { recordingsLeft.removeFirst() }
            reports?.send(.recordingLeft(id: play.playback.id, at: at))
            logger.info("recording \(play.playback.title) left at \(at.map(TimeshiftTime.format) ?? "its end")")
        }
        _ = pending[feed]?.suspend()
        play.source.cache.detach(.feed(feed))
        if decoders[feed]?.source === play.source {
            decoders[feed]?.decoder?.shutdown()
            decoders[feed] = (nil, play.source)
        }
        play.reader.stop()
        await play.source.shutdown()
    }

    /// The file ended or failed (media thread): the picture stays on its last frame, paused at
    /// the end, and the player is told.
    func recordingPlayStopped(feed: FeedID, source: ChannelSource, _ event: SourceArchiveEvent) {
        guard let play = recordingPlays[feed], play.source === source else { return }
        guard play.started != nil else {
            finishArchiveWait(feed: feed, failure: { if case .failed(let why) = event { why } else { "the file ended before its first picture" } }())
            return
        }
        let end = play.position
        recordingPlays[feed]?.pausedAt = end
        recordingPlays[feed]?.ended = event == .ended
        if case .failed(let why) = event { logger.warning("recording \(play.playback.title) stopped: \(why)") }
        try? decoders[feed]?.decoder?.setPaused(true)
        let why: String? = if case .failed(let why) = event { why } else { nil }
        reports?.send(.recordingEnded(feed, title: play.playback.title, failure: why))
    }

    /// The recording's marks: its start, the programme's start and end inside the padding, and
    /// each break's start and end.
    func recordingMarkers(_ play: RecordingPlay) -> [TimeshiftMarker] {
        Self.recordingMarkers(span: play.span, title: play.playback.title, programme: play.playback.programme,
                              breaks: play.playback.breaks)
    }

    /// The marks of a recording spanning `span` (pure).
    static func recordingMarkers(span: ClosedRange<Date>, title: String, programme: ClosedRange<Date>?,
                                 breaks: [TimeshiftBreak]) -> [TimeshiftMarker] {
        var marks = [TimeshiftMarker(time: span.lowerBound, name: "Start", kind: .programme)]
        if let programme {
            if programme.lowerBound > span.lowerBound { marks.append(TimeshiftMarker(time: programme.lowerBound, name: title, kind: .programme)) }
            marks.append(TimeshiftMarker(time: programme.upperBound, name: "End of \(title)", kind: .programme))
        }
        marks += RecordingBreaks.markers(breaks).filter { $0.time > span.lowerBound }
        return marks.sorted { $0.time < $1.time }
    }

    /// Where `feed` stands in its recording; nil when it plays none.
    func recordingStatus(feed: FeedID) -> TimeshiftStatus? {
        guard let play = recordingPlays[feed] else { return nil }
        let growing = play.playback.isGrowing()
        let span = play.playback.timeline().span ?? play.span
        var status = TimeshiftStatus(channel: play.playback.channel, live: false, paused: play.pausedAt != nil,
                                     position: play.position, bufferStart: span.lowerBound, liveEdge: span.upperBound,
                                     keyframes: 0, bytesInMemory: 0)
        status.markers = recordingMarkers(play)
        status.breaks = play.playback.breaks
        status.recording = TimeshiftStatus.RecordingPlace(id: play.playback.id, title: play.playback.title, growing: growing, ended: play.ended)
        return status
    }

    /// Where recording `id` was last left in this run (the inner nil: at its end); nil when it
    /// was not played since the start. The store has it too, once the player took the report.
    public func leftPosition(of id: String) -> Date?? {
        recordingsLeft.last { $0.id == id }.map(\.at)
    }

    /// Where each recording playing now stands (nil: at its end), for its resume point when the
    /// box stops while it plays.
    public func recordingsPlaying() -> [(id: String, at: Date?)] {
        recordingPlays.values.map { ($0.playback.id, $0.ended ? nil : $0.position) }
    }

    /// The recording `feed` plays, nil when none.
    public func playingRecording(feed: FeedID) -> String? { recordingPlays[feed]?.playback.id }
}
