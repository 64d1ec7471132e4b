import FlipboxCore
import Foundation
import Lineup
import Synchronization

/// How an archive (catch-up) a channel plays instead of its sources came to a stop.
enum SourceArchiveEvent: Sendable, Equatable {
    /// It reached its end (the moment it was asked for).
    case ended
    /// It answered an error, sent nothing, or stopped sending; the reason in words.
    case failed(String)
}

/// Where a channel's ingest tells the head-end that the archive it played stopped (streaming
/// threads or the media thread; the head-end hops to the media thread).
final class SourceArchiveEvents: Sendable {
    private let handler = Mutex<(@Sendable (SourceArchiveEvent) -> Void)?>(nil)
    func set(_ body: @escaping @Sendable (SourceArchiveEvent) -> Void) { handler.withLock { $0 = body } }
    func send(_ event: SourceArchiveEvent) { handler.withLock { $0 }?(event) }
}

/// A feed showing its channel's past from the provider's archive (catch-up).
struct ArchivePlay {
    /// The lineup position of the channel.
    var channel: Int
    /// The moment the archive was asked from.
    var from: Date
    /// When it was asked: its end (the archive runs to then).
    var asked: Date
    /// When its first picture's keyframe came (nil: not yet).
    var started: ContinuousClock.Instant?
    /// Paused at this moment of the channel (the archive is asked again from there on resume).
    var pausedAt: Date?
    /// Where the feed was before the archive: a moment of the local buffer, nil for live.
    var returnTo: Date?

    /// The moment of the channel on screen.
    var position: Date {
        if let pausedAt { return pausedAt }
        guard let started else { return from }
        return min(asked, from.addingTimeInterval((ContinuousClock.now - started).seconds))
    }
}

// Catch-up: a seek before what the local timeshift buffer holds plays the provider's archive of
// the channel (its `catchup` attributes make the URL), in the channel's own ingest and so in its
// pool's stream: the ingest follows the archive URL instead of the channel's sources, and the
// feed starts again from the archive's first keyframe, as a cold flip does. Seeking forward past
// the archive's start joins the local buffer when it holds that moment, else live; its end does
// the same. The timeshift buffer keeps what it holds meanwhile and takes nothing of the archive.
extension Headend {
    /// How long a server is given to free the slot of the stream a catch-up seek lets go before
    /// the archive's opens (and back): on loopback the live stream's slot was still held 150 ms
    /// after its ingest stopped in 1 run of 4 (the HTTP source lets its connection go on its
    /// own thread), never at 400 ms in 6; a seek is not a flip, and the wait is the seek's only.
    public static let archiveSwitchRelease: Duration = .milliseconds(400)

    /// How long the archive's first keyframe may take before the seek fails.
    static let archiveWait: Duration = .seconds(10)

    /// Carries out `command` when it concerns the archive: any command while the feed plays the
    /// archive, and a seek before the local buffer (or with no buffer) on a channel with an
    /// archive. Nil when it is the local timeshift's business.
    func archiveCommand(feed: FeedID, _ command: TimeshiftCommand, guideMarkers: [TimeshiftMarker]) async throws(TimeshiftFailure) -> TimeshiftStatus? {
        guard let entry = decoders[feed], let index = index(of: entry.source) else { return nil }
        let buffer = timeshiftSettings == nil ? nil : timeshiftBuffers[index]?.buffer
        if let play = archives[feed] {
            let position = play.position
            switch command {
            case .pause:
                pauseArchive(feed: feed)
            case .resume:
                if let at = play.pausedAt { try await playArchive(feed: feed, from: at) }
            case .togglePause:
                if let at = play.pausedAt { try await playArchive(feed: feed, from: at) } else { pauseArchive(feed: feed) }
            case .seekBy(let by):
                try await archiveSeek(feed: feed, to: position.addingTimeInterval(by.seconds), buffer: buffer)
            case .seekTo(let to):
                try await archiveSeek(feed: feed, to: to, buffer: buffer)
            case .live:
                await leaveArchive(feed: feed, to: nil)
            case .previousMarker, .nextMarker:
                let times = guideMarkers.map(\.time).sorted()
                let previous = command == .previousMarker
                guard let target = previous ? TimeshiftNavigation.previous(times, from: position) : TimeshiftNavigation.next(times, from: position) else {
                    throw TimeshiftFailure(.noMarker, "no programme boundary \(previous ? "before" : "after") \(TimeshiftTime.format(position))")
                }
                try await archiveSeek(feed: feed, to: target, buffer: buffer)
            }
            return status(feed: feed, guideMarkers: guideMarkers)
        }
        guard entry.source.channel.catchup != nil else { return nil }
        // Not in the archive: only a seek before what the local buffer holds goes there.
        let position: Date = if let buffer, timeshifted[feed] != nil { timeshiftPosition(feed: feed, buffer: buffer) } else { Date() }
        let target: Date
        switch command {
        case .seekTo(let to): target = to
        case .seekBy(let by): target = position.addingTimeInterval(by.seconds)
        default: return nil
        }
        if let start = buffer?.range?.lowerBound, target >= start { return nil }
        if target >= Date().addingTimeInterval(-TimeshiftNavigation.liveSlack) { return buffer == nil ? status(feed: feed, guideMarkers: guideMarkers) : nil }
        try await archiveSeek(feed: feed, to: target, buffer: buffer)
        return status(feed: feed, guideMarkers: guideMarkers)
    }

    /// Goes to `target`: live when it is now or later, the local buffer when it holds it, else
    /// the archive when it keeps it.
    private func archiveSeek(feed: FeedID, to target: Date, buffer: TimeshiftBuffer?) async throws(TimeshiftFailure) {
        guard let entry = decoders[feed] else { throw TimeshiftFailure(.nothingShown, "no channel is on screen") }
        let now = Date(), channel = entry.source.channel
        if target >= now.addingTimeInterval(-TimeshiftNavigation.liveSlack) {
            if archives[feed] != nil { await leaveArchive(feed: feed, to: nil) }
            return
        }
        if let range = buffer?.range, target >= range.lowerBound {
            if archives[feed] != nil { await leaveArchive(feed: feed, to: target) }
            return
        }
        guard let catchup = channel.catchup else {
            throw TimeshiftFailure(.noArchive, "channel \(channel.number) has no archive (its lineup gives no catchup attributes)")
        }
        guard catchup.covers(start: target, now: now) else {
            let depth = catchup.days.map { "its archive keeps \($0) day\($0 == 1 ? "" : "s")" } ?? "its archive does not reach"
            throw TimeshiftFailure(.outsideArchive, "\(TimeshiftTime.format(target)) is too far back for channel \(channel.number): \(depth)")
        }
        try await playArchive(feed: feed, from: target)
    }

    /// Plays `feed`'s channel from the provider's archive at `from` (its picture from the
    /// archive's first keyframe); waits for that keyframe, `archiveWait` at most. When the
    /// archive does not play, the feed goes back to where it was and the failure says why.
    func playArchive(feed: FeedID, from: Date) async throws(TimeshiftFailure) {
        guard let entry = decoders[feed], let index = index(of: entry.source), let sink = pending[feed]?.sink else {
            throw TimeshiftFailure(.nothingShown, "no channel is on screen")
        }
        let channel = entry.source.channel
        guard let catchup = channel.catchup, let live = entry.source.addresses.first else {
            throw TimeshiftFailure(.noArchive, "channel \(channel.number) has no archive (its lineup gives no catchup attributes)")
        }
        let now = Date()
        let url: String
        do { url = try catchup.url(channel: live, start: from, end: now, now: now) } catch {
            throw TimeshiftFailure(.noArchive, "channel \(channel.number): its archive's address cannot be made: \(error)")
        }
        // Its stream is shared with whoever taps it (a recording, a served client): they would
        // get the archive instead of the channel.
        if archives[feed] == nil, openTaps.values.contains(channel.number) {
            let sharing = tapHolders().filter { $0.index == index }.map(\.holder)
            let who = sharing.isEmpty ? "a served client" : sharing.joined(separator: ", ")
            throw TimeshiftFailure(.channelShared, "channel \(channel.number)'s stream is also \(who)'s: its archive cannot take it (it would reach them instead of the channel)")
        }
        // An archive on another server takes a stream of that server's pool.
        if let archivePool = poolMap.pool(for: url), archivePool != pool(of: entry.source) {
            do { try await makeRoom(in: archivePool, for: index) } catch {
                throw TimeshiftFailure(.poolFull, "channel \(channel.number)'s archive cannot play: \(error.message)")
            }
        }
        let returnTo = archives[feed].map(\.returnTo) ?? timeshifted[feed].flatMap { _ in
            timeshiftBuffers[index].map { timeshiftPosition(feed: feed, buffer: $0.buffer) }
        }
        timeshifted.removeValue(forKey: feed)?.replay?.stop()
        stopFeedPicture(feed)
        timeshiftBuffers[index]?.suspend()
        archives[feed] = ArchivePlay(channel: index, from: from, asked: now, returnTo: returnTo)
        logger.info("channel \(channel.number) \(channel.name): playing its archive from \(TimeshiftTime.format(from)) (\(SourceText.shown(url)))")
        await switchStream(of: entry.source, to: url)
        restartFeed(feed, source: entry.source, sink: sink)
        if let failure = await archiveStarted(feed: feed) {
            let back = returnTo.map { "back to \(TimeshiftTime.format($0))" } ?? "back to live"
            logger.warning("channel \(channel.number) \(channel.name): its archive at \(TimeshiftTime.format(from)) did not play: \(failure); \(back)")
            await leaveArchive(feed: feed, to: returnTo)
            throw TimeshiftFailure(.archive, "channel \(channel.number)'s archive at \(TimeshiftTime.format(from)) did not play: \(failure); \(back)")
        }
    }

    /// Stops the archive's picture where it is; resuming asks the archive again from there.
    private func pauseArchive(feed: FeedID) {
        guard let play = archives[feed], play.pausedAt == nil, let entry = decoders[feed] else { return }
        archives[feed]?.pausedAt = play.position
        _ = pending[feed]?.suspend()
        entry.source.cache.detach(.feed(feed))
        try? entry.decoder?.setPaused(true)
    }

    /// Back from the archive: the channel's own sources again, then live or the local buffer
    /// at `target`.
    func leaveArchive(feed: FeedID, to target: Date?) async {
        guard let play = archives.removeValue(forKey: feed), let entry = decoders[feed], let sink = pending[feed]?.sink else { return }
        finishArchiveWait(feed: feed, failure: "the archive was left")
        stopFeedPicture(feed)
        // Back on the channel's own server: its pool may have filled while the archive played.
        if let live = entry.source.addresses.first.flatMap({ poolMap.pool(for: $0) }), live != pool(of: entry.source) {
            do { try await makeRoom(in: live, for: play.channel) } catch {
                logger.warning("channel \(entry.source.channel.number): back from its archive: \(error.message)")
            }
        }
        await switchStream(of: entry.source, to: nil)
        timeshiftBuffers[play.channel]?.resume()
        restartFeed(feed, source: entry.source, sink: sink)
        if let target, let buffer = timeshiftBuffers[play.channel]?.buffer, let range = buffer.range, range.contains(target) {
            try? await replay(feed: feed, channel: play.channel, from: target, buffer: buffer)
        }
    }

    /// A feed going away stops its archive: its channel follows its own sources again, and
    /// connects live only when the warm plan wants it (a flip away in a full pool has just given
    /// its stream to the next channel).
    func endArchive(feed: FeedID) async {
        guard let play = archives.removeValue(forKey: feed), let entry = decoders[feed] else { return }
        finishArchiveWait(feed: feed, failure: "the channel was left")
        noteClosing(entry.source)
        await entry.source.play(archive: nil, start: false)
        timeshiftBuffers[play.channel]?.resume()
        refreshPoolView()
    }

    /// Moves `source`'s stream to the archive `url` (nil: back to the channel's sources): the
    /// stream it has open is let go and, when the new one is on the same server and that
    /// server's streams may all be taken (its limit reached, or not known), the server is given
    /// `archiveSwitchRelease` to free the old one's slot before the new one opens (else it
    /// refuses it, or ends another); warm channels do not take the slot meanwhile
    /// (`warmStartWaits`).
    private func switchStream(of source: ChannelSource, to url: String?) async {
        let next = (url ?? source.addresses.first).flatMap { poolMap.pool(for: $0) }
        let open = source.openURL.flatMap { poolMap.pool(for: $0) }.map { openStreams(in: $0).count } ?? 0
        var wait = false
        if let pool = noteClosing(source) {
            wait = next == pool && poolBook.limit(of: pool).map { open >= $0.streams } ?? true
        }
        await source.play(archive: url, start: !wait)
        if wait {
            try? await Task.sleep(for: Self.archiveSwitchRelease)
            await source.start()
        }
        refreshPoolView()
    }

    /// The decoder of `feed` and its feed machine stop; the source keeps running.
    func stopFeedPicture(_ feed: FeedID) {
        guard let entry = decoders[feed] else { return }
        _ = pending[feed]?.suspend()
        entry.source.cache.detach(.feed(feed))
        entry.decoder?.shutdown()
        decoders[feed] = (nil, entry.source)
    }

    /// `feed` waits for `source`'s next keyframe, as a cold flip does.
    func restartFeed(_ feed: FeedID, source: ChannelSource, sink: DecodedFrameSink) {
        let cold = LiveFeed(feed: feed, warm: false, cache: source.cache, audioKnown: false, headend: self, sink: sink)
        pending[feed] = cold
        _ = source.cache.attach(.feed(feed)) { entry in cold.receive(entry) }
    }

    /// Waits until the archive's first keyframe starts `feed`'s decoder (nil) or it fails (why).
    private func archiveStarted(feed: FeedID) async -> String? {
        await feedStarted(feed: feed) { $0.archives[feed]?.started != nil }
    }

    /// Waits until `started` says `feed`'s new picture came (nil) or it fails (why), `archiveWait`
    /// at most.
    func feedStarted(feed: FeedID, _ started: (isolated Headend) -> Bool) async -> String? {
        if started(self) { return nil }
        nextArchiveWait += 1
        let token = nextArchiveWait
        return await withCheckedContinuation { continuation in
            archiveWaits[feed] = (token, continuation)
            onMediaThread(after: Self.archiveWait) { headend in
                guard headend.archiveWaits[feed]?.token == token else { return }
                headend.finishArchiveWait(feed: feed, failure: "no picture from it within \(Int(Self.archiveWait.seconds)) s")
            }
        }
    }

    /// Ends the wait of `feed` for its archive, if one waits: `failure` nil when it plays.
    func finishArchiveWait(feed: FeedID, failure: String?) {
        archiveWaits.removeValue(forKey: feed)?.continuation.resume(returning: failure)
    }

    /// Called when a decoder starts on `feed` (media thread): an archive's first keyframe came.
    func archiveDecoderStarted(feed: FeedID) {
        guard archives[feed] != nil, archives[feed]?.started == nil else { return }
        archives[feed]?.started = .now
        finishArchiveWait(feed: feed, failure: nil)
    }

    /// The archive channel `index` played stopped (media thread): a feed still waiting for it
    /// fails; one watching it goes on from its end in the local buffer, or live.
    func archiveStopped(_ event: SourceArchiveEvent, channel index: Int) {
        for (feed, play) in archives where play.channel == index && play.pausedAt == nil {
            guard play.started != nil else {
                finishArchiveWait(feed: feed, failure: { if case .failed(let why) = event { why } else { "it ended before its first picture" } }())
                continue
            }
            let number = sources[index].channel.number
            if case .failed(let why) = event { logger.warning("channel \(number): its archive stopped: \(why); going on live") }
            let joinAt: Date? = event == .ended ? play.asked : nil
            chore(.leaveArchive(feed, to: joinAt))
        }
    }

    /// Where `feed` stands when it plays the archive, nil otherwise.
    func archiveStatus(feed: FeedID, guideMarkers: [TimeshiftMarker]) -> TimeshiftStatus? {
        guard let play = archives[feed], let entry = decoders[feed] else { return nil }
        let buffer = timeshiftSettings == nil ? nil : timeshiftBuffers[play.channel]?.buffer
        let range = buffer?.range
        var status = TimeshiftStatus(channel: entry.source.channel.number, live: false, paused: play.pausedAt != nil,
                                     position: play.position, bufferStart: range?.lowerBound, liveEdge: range?.upperBound ?? Date(),
                                     keyframes: buffer?.index.count ?? 0, bytesInMemory: buffer?.bytesInMemory ?? 0)
        status.archive = true
        status.catchup = true
        status.archiveStart = entry.source.channel.catchup?.days.map { Date().addingTimeInterval(-Double($0) * 86_400) }
        let window = play.position.addingTimeInterval(-6 * 3600)...play.position.addingTimeInterval(6 * 3600)
        status.markers = guideMarkers.filter { window.contains($0.time) }.sorted { $0.time < $1.time }
        return status
    }
}
