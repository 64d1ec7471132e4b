import FlipboxCore
import Foundation
import GStreamer
import Lineup

/// What a viewer asks of the channel on screen in time.
public enum TimeshiftCommand: Sendable, Hashable {
    case pause, resume, togglePause
    /// Moves by a signed amount (back is negative); past the live edge is live.
    case seekBy(Duration)
    /// Moves to a wall-clock moment (clamped to the buffer).
    case seekTo(Date)
    /// Back to the live edge.
    case live
    /// To the newest marker before the picture (programme boundary or marker set over the API).
    case previousMarker
    /// To the oldest marker after the picture.
    case nextMarker
}

/// Where the channel on screen stands in time.
public struct TimeshiftStatus: Sendable, Hashable, Codable {
    public var channel: ChannelNumber
    public var live: Bool
    public var paused: Bool
    /// The moment on screen (the live edge when live).
    public var position: Date
    /// The oldest moment a viewer can go back to, and the newest the buffer holds.
    public var bufferStart: Date?
    public var liveEdge: Date?
    /// Keyframes held (each is a point a seek lands on).
    public var keyframes: Int
    public var bytesInMemory: Int
    /// Whether the buffer's older part goes to disk: `ok`, or `full`/`failed` while the disk
    /// refuses segments and the buffer keeps only what fits in its memory cap.
    public var disk: TimeshiftDiskState = .ok
    /// While the disk refuses: the error (with the directory) and what the buffer does meanwhile.
    public var diskMessage: String?
    /// The markers within the buffer, in time order.
    public var markers: [TimeshiftMarker] = []
    /// The breaks within the buffer, in time order.
    public var breaks: [TimeshiftBreak] = []
    /// Set on the answer to a seek that landed elsewhere than asked (clamped to the buffer,
    /// live, or at the start of an unwatched break).
    public var adjustment: TimeshiftAdjustment?
    /// Whether the channel's provider keeps its past (catch-up): a seek before `bufferStart`
    /// plays the provider's archive.
    public var catchup = false
    /// Whether the picture comes from the provider's archive now.
    public var archive = false
    /// The oldest moment the provider's archive keeps, when its depth is known (`catchup-days`).
    public var archiveStart: Date?
    /// Set while the picture is a recording played back: which, and whether it is still being
    /// written (`bufferStart`...`liveEdge` is then the recording's span).
    public var recording: RecordingPlace?
    /// How far behind live the picture is, in seconds.
    public var behind: Double { liveEdge.map { max(0, $0.timeIntervalSince(position)) } ?? 0 }

    enum CodingKeys: String, CodingKey {
        case channel, live, paused, position, bufferStart, liveEdge, keyframes, bytesInMemory, disk, diskMessage, behind, markers, breaks, adjustment
        case catchup, archive, archiveStart, recording
    }

    /// A recording on screen.
    public struct RecordingPlace: Sendable, Hashable, Codable {
        public var id: String
        public var title: String
        /// Still being written: its end moves on.
        public var growing: Bool
        /// It played to its end (paused there).
        public var ended: Bool
        public init(id: String, title: String, growing: Bool, ended: Bool) {
            self.id = id
            self.title = title
            self.growing = growing
            self.ended = ended
        }
    }

    public init(channel: ChannelNumber, live: Bool, paused: Bool, position: Date, bufferStart: Date?, liveEdge: Date?, keyframes: Int, bytesInMemory: Int) {
        self.channel = channel
        self.live = live
        self.paused = paused
        self.position = position
        self.bufferStart = bufferStart
        self.liveEdge = liveEdge
        self.keyframes = keyframes
        self.bytesInMemory = bytesInMemory
    }

    /// Times are ISO 8601 with milliseconds, whatever the coder's date strategy.
    private static let time = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func date(_ key: CodingKeys) throws -> Date? {
            guard let text = try c.decodeIfPresent(String.self, forKey: key) else { return nil }
            return try Self.time.parse(text)
        }
        guard let position = try date(.position) else {
            throw DecodingError.keyNotFound(CodingKeys.position, .init(codingPath: c.codingPath, debugDescription: "no position"))
        }
        self.init(channel: try c.decode(ChannelNumber.self, forKey: .channel), live: try c.decode(Bool.self, forKey: .live),
                  paused: try c.decode(Bool.self, forKey: .paused), position: position,
                  bufferStart: try date(.bufferStart), liveEdge: try date(.liveEdge),
                  keyframes: try c.decode(Int.self, forKey: .keyframes), bytesInMemory: try c.decode(Int.self, forKey: .bytesInMemory))
        disk = try c.decodeIfPresent(TimeshiftDiskState.self, forKey: .disk) ?? .ok
        diskMessage = try c.decodeIfPresent(String.self, forKey: .diskMessage)
        markers = try c.decodeIfPresent([TimeshiftMarker].self, forKey: .markers) ?? []
        breaks = try c.decodeIfPresent([TimeshiftBreak].self, forKey: .breaks) ?? []
        adjustment = try c.decodeIfPresent(TimeshiftAdjustment.self, forKey: .adjustment)
        catchup = try c.decodeIfPresent(Bool.self, forKey: .catchup) ?? false
        archive = try c.decodeIfPresent(Bool.self, forKey: .archive) ?? false
        archiveStart = try date(.archiveStart)
        recording = try c.decodeIfPresent(RecordingPlace.self, forKey: .recording)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(channel, forKey: .channel)
        try c.encode(live, forKey: .live)
        try c.encode(paused, forKey: .paused)
        try c.encode(Self.time.format(position), forKey: .position)
        try c.encodeIfPresent(bufferStart.map(Self.time.format), forKey: .bufferStart)
        try c.encodeIfPresent(liveEdge.map(Self.time.format), forKey: .liveEdge)
        try c.encode(keyframes, forKey: .keyframes)
        try c.encode(bytesInMemory, forKey: .bytesInMemory)
        try c.encode(disk, forKey: .disk)
        try c.encodeIfPresent(diskMessage, forKey: .diskMessage)
        try c.encode((behind * 10).rounded() / 10, forKey: .behind)
        try c.encode(markers, forKey: .markers)
        try c.encode(breaks, forKey: .breaks)
        try c.encodeIfPresent(adjustment, forKey: .adjustment)
        try c.encode(catchup, forKey: .catchup)
        try c.encode(archive, forKey: .archive)
        try c.encodeIfPresent(archiveStart.map(Self.time.format), forKey: .archiveStart)
        try c.encodeIfPresent(recording, forKey: .recording)
    }
}

/// Whether a timeshift buffer's segments go to disk.
public enum TimeshiftDiskState: String, Sendable, Hashable, Codable {
    /// They do (or nothing had to go there yet).
    case ok
    /// The disk has no room: memory only, within the cap, until a retry succeeds.
    case full
    /// Writing failed for another reason (a directory gone or not writable): the same.
    case failed
}

/// Why a timeshift command could not be carried out.
public typealias TimeshiftFailure = Failure<TimeshiftFailureCode>

public enum TimeshiftFailureCode: String, FailureCode {
    case off, nothingShown, notBuffered, decoder
    /// No marker that way (previous/next marker).
    case noMarker
    /// No marker with that id (DELETE).
    case unknownMarker
    /// A marker's time is not in the buffer.
    case outsideBuffer
    /// The channel has no provider archive (catch-up).
    case noArchive
    /// Farther back than the provider's archive keeps.
    case outsideArchive
    /// The archive did not play (an error, nothing sent in time).
    case archive
    /// The channel's stream is shared with a recording or a served client.
    case channelShared
    /// The archive is on a server whose streams are all held by what outranks it.
    case poolFull
    /// No channel of that number (catch-up).
    case unknownChannel
    /// No recording of that id (playback).
    case unknownRecording
    /// The recording has no file to play yet, or its file is gone.
    case notRecorded

    public var kind: FailureKind {
        switch self {
        case .off, .nothingShown, .notBuffered, .noMarker, .outsideBuffer, .noArchive, .outsideArchive, .channelShared: .conflict
        case .unknownMarker, .unknownChannel, .unknownRecording: .notFound
        case .notRecorded: .conflict
        case .decoder, .poolFull: .unavailable
        case .archive: .upstream
        }
    }
}

/// A channel's timeshift buffer, filled where its ingest arrives: the channel's GOP cache hands
/// the buffer its cached GOP, then every entry, on the ingest's streaming threads. No queue and
/// no task between them: `TimeshiftBuffer.append` only takes the buffer's lock and schedules
/// disk writes on the disk queue, it never waits for the disk, and one wake-up of a consumer
/// task per entry cost more than the append itself.
public final class TimeshiftRecording: Sendable {
    public let buffer: TimeshiftBuffer
    private let cache: GOPCache
    private let consumer: GOPCache.Consumer

    init(buffer: TimeshiftBuffer, cache: GOPCache, id: TapID) {
        self.buffer = buffer
        self.cache = cache
        consumer = .tap(id)
        cache.attachSeeded(consumer) { entry in buffer.append(entry) }
    }

    /// Stops filling the buffer for now (its channel plays an archive); it keeps what it holds.
    func suspend() { cache.detach(consumer) }

    /// Fills it again from its channel's ingest (after an archive). Idempotent.
    func resume() {
        let buffer = self.buffer
        cache.detach(consumer)
        cache.attachSeeded(consumer) { entry in buffer.append(entry) }
    }

    /// Stops filling the buffer and closes it (its segment files go). Idempotent.
    public func close() {
        cache.detach(consumer)
        buffer.close()
    }
}

/// A feed that left live: paused on its live decoder, or replaying from the buffer.
struct TimeshiftedFeed {
    var channel: Int
    /// Paused straight from live: the last entry the decoder got, and when.
    var pausedLive: (after: GOPCache.Entry?, at: Date)?
    var replay: TimeshiftReplay?
    /// The moment the last seek asked for: the replay starts at the keyframe before it, so until
    /// the picture reaches it, marker navigation counts from there.
    var target: Date?
}

extension Headend {
    /// Turns timeshift on for the channels shown from now on (nil: off).
    public func setTimeshift(_ settings: TimeshiftSettings?) {
        timeshiftSettings = settings
        if let settings { TimeshiftBuffer.removeStale(in: settings.directory) }
        if settings == nil {
            for index in Array(timeshiftBuffers.keys) { closeTimeshift(channel: index) }
        }
    }

    /// Starts recording `source` into its buffer, seeded with its cached GOP (media thread).
    func startTimeshift(for source: ChannelSource) async {
        guard let settings = timeshiftSettings, let index = sources.firstIndex(where: { $0 === source }) else { return }
        defer { if timeshiftBuffers[index] != nil { timeshiftTimelines[index, default: TimeshiftTimeline()].startPlaying(at: Date()) } }
        if let recording = timeshiftBuffers[index] {
            recording.buffer.isShown = true
            return
        }
        do {
            let buffer = try TimeshiftBuffer(channel: "\(source.channel.number)", settings: settings, logger: logger)
            if let reports { buffer.onDiskChange { [channel = source.channel] in reports.send(.timeshiftDisk(channel)) } }
            timeshiftBuffers[index] = record(source, into: buffer)
        } catch {
            logger.warning("channel \(source.channel.number): no timeshift: \(error)")
        }
    }

    /// With `warmSeconds`, starts a background buffer for a warm channel that has none (media
    /// thread): it keeps the last seconds in memory, and becomes the channel's buffer once shown.
    func startWarmTimeshift(for source: ChannelSource) async {
        guard let settings = timeshiftSettings, settings.warmSeconds != nil,
              let index = sources.firstIndex(where: { $0 === source }), timeshiftBuffers[index] == nil else { return }
        do {
            let buffer = try TimeshiftBuffer(channel: "\(source.channel.number)", settings: settings, logger: logger)
            if let reports { buffer.onDiskChange { [channel = source.channel] in reports.send(.timeshiftDisk(channel)) } }
            buffer.isShown = false
            timeshiftBuffers[index] = record(source, into: buffer)
        } catch {
            logger.warning("channel \(source.channel.number): no warm timeshift: \(error)")
        }
    }

    /// Starts filling `buffer` from `source`'s ingest (see `TimeshiftRecording`).
    func record(_ source: ChannelSource, into buffer: TimeshiftBuffer) -> TimeshiftRecording {
        let id = newTapID()
        return TimeshiftRecording(buffer: buffer, cache: source.cache, id: id)
    }

    /// Fills `buffer` from `channel`'s ingest until the recording is closed, as a shown channel's
    /// timeshift does (`flipbox bench --timeshift` measures what that costs). The channel is not
    /// started or kept running for it.
    public func record(_ channel: Channel, into buffer: TimeshiftBuffer) throws -> TimeshiftRecording {
        guard let source = source(for: channel) else { throw HeadendFailure(.unknownChannel, "channel \(channel.number) \(channel.name) is not in the lineup") }
        return record(source, into: buffer)
    }

    /// Drops a channel's buffer (its channel stopped, or timeshift was turned off).
    func closeTimeshift(channel index: Int) {
        timeshiftBuffers.removeValue(forKey: index)?.close()
        timeshiftTimelines[index] = nil
        for (feed, shifted) in timeshifted where shifted.channel == index {
            shifted.replay?.stop()
            timeshifted[feed] = nil
        }
    }

    /// Stops a feed's replay (the feed is going away); a buffer whose channel no feed shows any
    /// more keeps only its background share.
    func endReplay(feed: FeedID) {
        if let source = decoders[feed]?.source, let index = sources.firstIndex(where: { $0 === source }),
           let buffer = timeshiftBuffers[index]?.buffer {
            let position = timeshiftPosition(feed: feed, buffer: buffer)
            timeshiftTimelines[index]?.stopPlaying(at: position)
            timeshiftTimelines[index]?.leftAt = timeshifted[feed] != nil ? position : nil
        }
        timeshifted.removeValue(forKey: feed)?.replay?.stop()
        guard let source = decoders[feed]?.source, let index = sources.firstIndex(where: { $0 === source }) else { return }
        let stillShown = decoders.contains { $0.key != feed && $0.value.source === source }
        if !stillShown { timeshiftBuffers[index]?.buffer.isShown = false }
    }

    /// Carries out `command` on `feed` and returns where it then stands. `guideMarkers` are the
    /// programme boundaries of the channel (the caller has the guide); markers outside the buffer
    /// are ignored.
    public func timeshift(feed: FeedID, _ command: TimeshiftCommand, guideMarkers: [TimeshiftMarker] = []) async throws(TimeshiftFailure) -> TimeshiftStatus {
        if let answer = try await recordingCommand(feed: feed, command) { return answer }
        if let answer = try await archiveCommand(feed: feed, command, guideMarkers: guideMarkers) { return answer }
        guard let index = timeshiftChannel(feed: feed), let buffer = timeshiftBuffers[index]?.buffer else {
            _ = try await perform(feed: feed, command, guideMarkers: guideMarkers)
            guard let answer = status(feed: feed, guideMarkers: guideMarkers) else { throw TimeshiftFailure(.nothingShown, "no channel is on screen") }
            return answer
        }
        // What played until now counts as watched; what plays from the new position starts a new part.
        timeshiftTimelines[index, default: TimeshiftTimeline()].stopPlaying(at: timeshiftPosition(feed: feed, buffer: buffer))
        defer {
            if !isPaused(feed), timeshiftBuffers[index] != nil {
                timeshiftTimelines[index, default: TimeshiftTimeline()].startPlaying(at: timeshiftPosition(feed: feed, buffer: buffer))
            }
        }
        let adjustment = try await perform(feed: feed, command, guideMarkers: guideMarkers)
        guard var answer = status(feed: feed, guideMarkers: guideMarkers) else { throw TimeshiftFailure(.nothingShown, "the feed is gone") }
        answer.adjustment = adjustment
        return answer
    }

    /// With `resumePosition`, moves `feed` back to where the viewer left its channel behind live
    /// (once: the position is forgotten); nil when there is nothing to resume or it left the buffer.
    public func resumeLeftPosition(feed: FeedID, guideMarkers: [TimeshiftMarker] = []) async -> TimeshiftStatus? {
        guard timeshiftSettings?.resumePosition == true, let index = timeshiftChannel(feed: feed),
              let at = timeshiftTimelines[index]?.leftAt else { return nil }
        timeshiftTimelines[index]?.leftAt = nil
        guard let range = timeshiftBuffers[index]?.buffer.range, range.contains(at) else { return nil }
        return try? await timeshift(feed: feed, .seekTo(at), guideMarkers: guideMarkers)
    }

    /// The channel (index) `feed` shows, when timeshift is on.
    private func timeshiftChannel(feed: FeedID) -> Int? {
        guard timeshiftSettings != nil, let entry = decoders[feed] else { return nil }
        return sources.firstIndex(where: { $0 === entry.source })
    }

    /// Adds a marker at `time` (nil: where the picture is) on the channel `feed` shows.
    public func addTimeshiftMarker(feed: FeedID, at time: Date?, name: String?) throws(TimeshiftFailure) -> TimeshiftMarker {
        let (index, buffer) = try recording(feed: feed)
        let at = time ?? timeshiftPosition(feed: feed, buffer: buffer)
        guard let range = buffer.range, at >= range.lowerBound, at <= range.upperBound.addingTimeInterval(TimeshiftNavigation.liveSlack) else {
            let held = buffer.range.map { "it holds \(TimeshiftTime.format($0.lowerBound)) to \(TimeshiftTime.format($0.upperBound))" } ?? "it is empty"
            throw TimeshiftFailure(.outsideBuffer, "\(TimeshiftTime.format(at)) is outside the timeshift buffer (\(held))")
        }
        return timeshiftTimelines[index, default: TimeshiftTimeline()].addMarker(at: min(at, range.upperBound), name: name)
    }

    /// Removes marker `id` (set over the API) from the channel `feed` shows.
    public func removeTimeshiftMarker(feed: FeedID, id: Int) throws(TimeshiftFailure) {
        let (index, _) = try recording(feed: feed)
        guard timeshiftTimelines[index]?.removeMarker(id: id) == true else {
            throw TimeshiftFailure(.unknownMarker, "no marker \(id) on this channel (GET /api/v1/timeshift lists them)")
        }
    }

    /// The channel index and buffer of `feed`, or why there is none.
    private func recording(feed: FeedID) throws(TimeshiftFailure) -> (Int, TimeshiftBuffer) {
        guard timeshiftSettings != nil else { throw TimeshiftFailure(.off, "timeshift is off (start with --timeshift, or set timeshift: in the lineup)") }
        guard let entry = decoders[feed], let index = sources.firstIndex(where: { $0 === entry.source }) else {
            throw TimeshiftFailure(.nothingShown, "no channel is on screen")
        }
        guard let buffer = timeshiftBuffers[index]?.buffer else {
            throw TimeshiftFailure(.notBuffered, "channel \(entry.source.channel.number) has no timeshift buffer yet")
        }
        return (index, buffer)
    }

    /// The markers of channel `index` within `range`: the guide's and those set over the API.
    private func markers(channel index: Int, in range: ClosedRange<Date>, guideMarkers: [TimeshiftMarker]) -> [TimeshiftMarker] {
        ((timeshiftTimelines[index]?.markers ?? []) + guideMarkers).filter { range.contains($0.time) }.sorted { $0.time < $1.time }
    }

    /// Carries out `command`; returns how a seek was adjusted, if it was.
    private func perform(feed: FeedID, _ command: TimeshiftCommand, guideMarkers: [TimeshiftMarker]) async throws(TimeshiftFailure) -> TimeshiftAdjustment? {
        guard timeshiftSettings != nil else { throw TimeshiftFailure(.off, "timeshift is off (start with --timeshift, or set timeshift: in the lineup)") }
        guard let entry = decoders[feed], let index = sources.firstIndex(where: { $0 === entry.source }) else {
            throw TimeshiftFailure(.nothingShown, "no channel is on screen")
        }
        guard let recording = timeshiftBuffers[index] else {
            throw TimeshiftFailure(.notBuffered, "channel \(entry.source.channel.number) has no timeshift buffer yet")
        }
        let buffer = recording.buffer
        let position = timeshiftPosition(feed: feed, buffer: buffer)
        switch command {
        case .togglePause:
            return try await perform(feed: feed, isPaused(feed) ? .resume : .pause, guideMarkers: guideMarkers)
        case .pause:
            if isPaused(feed) { break }
            if let replay = timeshifted[feed]?.replay {
                replay.pause()
            } else {
                // Live: stop forwarding and freeze the decoder where it is.
                let last = pending[feed]?.suspend()
                entry.source.cache.detach(.feed(feed))
                timeshifted[feed] = TimeshiftedFeed(channel: index, pausedLive: (last, position), replay: nil)
            }
            try? entry.decoder?.setPaused(true)
        case .resume:
            guard let shifted = timeshifted[feed], isPaused(feed) else { break }
            if let replay = shifted.replay {
                try? entry.decoder?.setPaused(false)
                replay.resume()
            } else if let paused = shifted.pausedLive, let decoder = entry.decoder,
                      let after = paused.after, let gop = buffer.gop(holding: after) {
                // Carry on from the entry after the frozen picture, now from the buffer.
                let replay = TimeshiftReplay(buffer: buffer, decoder: decoder, serial: gop.serial, after: after,
                                             position: paused.at, paused: false)
                timeshifted[feed] = TimeshiftedFeed(channel: index, pausedLive: nil, replay: replay)
                try? decoder.setPaused(false)
                replay.start()
            } else {
                // The paused moment left the buffer: start again from the oldest keyframe held.
                try await replay(feed: feed, channel: index, from: buffer.range?.lowerBound ?? position, buffer: buffer)
            }
        case .seekBy(let by):
            let target = position.addingTimeInterval(by.seconds)
            return try await perform(feed: feed, .seekTo(target), guideMarkers: guideMarkers)
        case .seekTo(let to):
            guard let range = buffer.range else { throw TimeshiftFailure(.notBuffered, "nothing is buffered yet") }
            let breaks = timeshiftTimelines[index]?.breaks(schedule: entry.source.channel.breakSchedule,
                                                           cued: entry.source.spliceCues.intervals(until: range.upperBound),
                                                           in: range, position: position) ?? []
            switch TimeshiftNavigation.landing(from: position, to: to, buffer: range, breaks: breaks, linear: entry.source.channel.linearBreaks) {
            case .live(let adjustment):
                if timeshifted[feed] != nil { try await goLive(feed: feed) }
                return adjustment
            case .at(let time, let adjustment):
                try await replay(feed: feed, channel: index, from: time, buffer: buffer)
                return adjustment
            }
        case .live:
            guard timeshifted[feed] != nil else { break }
            if entry.source.channel.linearBreaks, let edge = buffer.range?.upperBound {
                // Going live skips what lies between: an unwatched break stops it.
                let adjustment = try await perform(feed: feed, .seekTo(edge.addingTimeInterval(TimeshiftNavigation.liveSlack)), guideMarkers: guideMarkers)
                return adjustment?.reason == .pastLive ? nil : adjustment
            }
            try await goLive(feed: feed)
        case .previousMarker, .nextMarker:
            guard let range = buffer.range else { throw TimeshiftFailure(.notBuffered, "nothing is buffered yet") }
            let times = markers(channel: index, in: range, guideMarkers: guideMarkers).map(\.time)
            let previous = command == .previousMarker
            let from = max(position, timeshifted[feed]?.target ?? position)
            guard let target = previous ? TimeshiftNavigation.previous(times, from: from) : TimeshiftNavigation.next(times, from: from) else {
                throw TimeshiftFailure(.noMarker, "no marker \(previous ? "before" : "after") \(TimeshiftTime.format(from)) in the buffer (\(times.count) marker\(times.count == 1 ? "" : "s") held)")
            }
            return try await perform(feed: feed, .seekTo(target), guideMarkers: guideMarkers)
        }
        return nil
    }

    private func isPaused(_ feed: FeedID) -> Bool {
        guard let shifted = timeshifted[feed] else { return false }
        return shifted.pausedLive != nil || shifted.replay?.isPaused == true
    }

    func timeshiftPosition(feed: FeedID, buffer: TimeshiftBuffer) -> Date {
        if let shifted = timeshifted[feed] {
            if let replay = shifted.replay { return replay.position }
            if let paused = shifted.pausedLive { return paused.at }
        }
        return buffer.range?.upperBound ?? Date()
    }

    /// Replays `feed` from the keyframe at or before `time` on a fresh decoder.
    func replay(feed: FeedID, channel index: Int, from time: Date, buffer: TimeshiftBuffer) async throws(TimeshiftFailure) {
        guard let gop = buffer.gop(at: time), let first = try? buffer.read(gop.serial).first, first.isKeyframe,
              let videoCaps = first.caps else {
            throw TimeshiftFailure(.notBuffered, "nothing buffered at that moment")
        }
        let decoder = try freshDecoder(feed: feed, videoCaps: videoCaps)
        let replay = TimeshiftReplay(buffer: buffer, decoder: decoder, serial: gop.serial, after: nil, position: gop.start, paused: false)
        timeshifted[feed]?.replay?.stop()
        timeshifted[feed] = TimeshiftedFeed(channel: index, pausedLive: nil, replay: replay, target: time)
        replay.start()
    }

    /// Back to live on a fresh decoder from the cached GOP, as a warm flip does.
    private func goLive(feed: FeedID) async throws(TimeshiftFailure) {
        guard let entry = decoders[feed], let sink = pending[feed]?.sink else { return }
        timeshifted.removeValue(forKey: feed)?.replay?.stop()
        entry.decoder?.shutdown()
        decoders[feed] = (nil, entry.source)
        let cache = entry.source.cache
        cache.detach(.feed(feed))
        let live = LiveFeed(feed: feed, warm: true, cache: cache, audioKnown: cache.audioCaps != nil, headend: self, sink: sink)
        pending[feed] = live
        let start = cache.attach(.feed(feed)) { live.receive($0) }
        guard start.entries.first?.isKeyframe == true, let video = start.video else {
            throw TimeshiftFailure(.notBuffered, "the channel has no keyframe to go live at")
        }
        do {
            try startDecoder(feed: feed, videoCaps: video, sink: sink, initial: start.entries)
        } catch {
            throw TimeshiftFailure(.decoder, "cannot start a decoder: \(error)")
        }
    }

    /// Replaces `feed`'s decoder by a new one bound to it (the spare when it fits).
    private func freshDecoder(feed: FeedID, videoCaps: Caps) throws(TimeshiftFailure) -> ChannelDecoder {
        guard let entry = decoders[feed], let sink = pending[feed]?.sink else {
            throw TimeshiftFailure(.nothingShown, "the feed is gone")
        }
        _ = pending[feed]?.suspend()
        entry.source.cache.detach(.feed(feed))
        entry.decoder?.shutdown()
        let (stream, audioCaps) = chosenAudio(entry.source)
        let codec = ChannelDecoder.Codec(video: videoCaps, audio: audioCaps)
        let decoder: ChannelDecoder
        if let ready = takeSpare(serving: codec) {
            decoder = ready
            scheduleSpares()
        } else {
            do { decoder = try ChannelDecoder(codec: codec, target: target, logger: logger) } catch {
                decoders[feed] = (nil, entry.source)
                throw TimeshiftFailure(.decoder, "cannot start a decoder for \(videoCaps.mediaType): \(error)")
            }
        }
        decoder.bind(feed: feed, videoCaps: videoCaps, audioCaps: audioCaps, audioStream: stream, sink: sink, still: nil)
        decoders[feed] = (decoder, entry.source)
        return decoder
    }

    /// Where `feed` stands in time; nil when timeshift is off or the feed is not shown.
    public func status(feed: FeedID, guideMarkers: [TimeshiftMarker] = []) -> TimeshiftStatus? {
        if let recording = recordingStatus(feed: feed) { return recording }
        if let archive = archiveStatus(feed: feed, guideMarkers: guideMarkers) { return archive }
        guard let entry = decoders[feed], let index = sources.firstIndex(where: { $0 === entry.source }) else { return nil }
        let catchup = entry.source.channel.catchup
        guard timeshiftSettings != nil else {
            // No local buffer: a channel with an archive still goes back in time through it.
            guard let catchup else { return nil }
            var live = TimeshiftStatus(channel: entry.source.channel.number, live: true, paused: false, position: Date(),
                                       bufferStart: nil, liveEdge: Date(), keyframes: 0, bytesInMemory: 0)
            live.catchup = true
            live.archiveStart = catchup.days.map { Date().addingTimeInterval(-Double($0) * 86_400) }
            return live
        }
        let buffer = timeshiftBuffers[index]?.buffer
        let range = buffer?.range
        let position = buffer.map { timeshiftPosition(feed: feed, buffer: $0) } ?? Date()
        var status = TimeshiftStatus(channel: entry.source.channel.number, live: timeshifted[feed] == nil, paused: isPaused(feed),
                                     position: position, bufferStart: range?.lowerBound, liveEdge: range?.upperBound,
                                     keyframes: buffer?.index.count ?? 0, bytesInMemory: buffer?.bytesInMemory ?? 0)
        status.catchup = catchup != nil
        status.archiveStart = catchup?.days.map { Date().addingTimeInterval(-Double($0) * 86_400) }
        if let refusal = buffer?.diskRefusal {
            status.disk = refusal.full ? .full : .failed
            status.diskMessage = refusal.message
        }
        if let range {
            timeshiftTimelines[index]?.forget(before: range.lowerBound)
            entry.source.spliceCues.forget(before: range.lowerBound)
            status.markers = markers(channel: index, in: range, guideMarkers: guideMarkers)
            status.breaks = timeshiftTimelines[index]?.breaks(schedule: entry.source.channel.breakSchedule,
                                                              cued: entry.source.spliceCues.intervals(until: range.upperBound),
                                                              in: range, position: position) ?? []
        }
        return status
    }
}
