import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GStreamer
import Lineup
import Logging
import MediaFormats

/// The WebVTT subtitle renditions of an HLS channel, which `hlsdemux` does not read: the master
/// playlist is read once per connection, each rendition's media playlist is followed (reloaded
/// every target duration while live) and its new segments are read and parsed; the cues are
/// placed on the ingest's running time through `clock` and kept while they may still show.
///
/// Nothing here can stall the video: every request has a deadline, a rendition that fails is
/// retried at its next reload, and each kind of problem is logged once per rendition.
/// `start` and `stop` are called by the channel source (its executor); `tracks` and
/// `text(track:at:)` from any thread.
public final class WebVTTSubtitles: @unchecked Sendable {
    /// The number a rendition's track goes by: `firstIndex` + its position in the master.
    public static let firstIndex = 2000
    /// Renditions followed at most.
    static let maxRenditions = 8
    /// Cues kept per rendition at most (a few minutes of dialogue).
    static let maxCues = 400

    private struct Cue {
        var start: ClockTime
        var end: ClockTime
        var text: String
        /// Its MPEG-TS times, to place it again when the mapping moves.
        var mpeg: (start: Int64, end: Int64)
    }

    /// A cue placed further ahead of the newest video frame than this is misplaced (a jump in
    /// the timestamps the video has not made yet) and waits.
    static let horizon = 120 * ClockTime.second

    let clock = MPEGTSClock()
    private let logger: Logger
    private let label: String
    private let lock = NSLock()
    private var renditions: [HLSSubtitleRendition] = []
    private var cues: [Int: [Cue]] = [:]
    /// Cues read before the video's clock was known (MPEG-TS times), placed once it is.
    private var unplaced: [Int: [(start: Int64, end: Int64, text: String)]] = [:]
    /// `clock.jumps` when the cues were last placed.
    private var placedAtJumps = 0
    /// Whether `unplaced` changed since it was last tried.
    private var newlyRead = false
    private var task: Task<Void, Never>?
    private var tracksFound: (@Sendable () -> Void)?

    /// `label` names the channel in logs (`channel 3 News`).
    init(logger: Logger, label: String) {
        self.logger = logger
        self.label = label
    }

    deinit { task?.cancel() }

    /// The renditions as subtitle tracks, in the master's order (empty until it was read).
    public var tracks: [SubtitleTrack] {
        lock.withLock { renditions }.enumerated().map { i, r in
            SubtitleTrack(index: Self.firstIndex + i, kind: .webVTT, language: r.language.flatMap(LanguageCode.normalized),
                          name: r.name, autoSelect: r.autoSelect && !r.forced)
        }
    }

    /// The text of track `index` showing at `runningTime` of the ingest (cues overlapping in
    /// time are shown together, in order); nil when none shows.
    public func text(track index: Int, at runningTime: ClockTime) -> String? {
        placeWaiting()
        return lock.withLock {
            let showing = (cues[index] ?? []).filter { $0.start <= runningTime && runningTime < $0.end }
            return showing.isEmpty ? nil : showing.map(\.text).joined(separator: "\n")
        }
    }

    /// Calls `handler` (on a task of its own) whenever the renditions of a connection were read.
    func onTracks(_ handler: @escaping @Sendable () -> Void) { lock.withLock { tracksFound = handler } }

    /// Starts following the renditions of the master playlist at `url` (a new connection).
    func start(master url: String) {
        stop()
        guard let master = URL(string: url) else { return }
        // Read from the connection's first byte: the clock pairs the timestamps it reads with
        // the frames in the order they come out, so one turned on while frames are on their way
        // (the demuxer's queue holds seconds of them) would pair each with a later timestamp.
        // Turned off again when the master has no renditions.
        clock.isActive = true
        task = Task { [weak self] in await self?.follow(master: master) }
    }

    /// Stops following and forgets the renditions and cues.
    func stop() {
        task?.cancel()
        task = nil
        clock.reset()
        lock.withLock {
            renditions = []
            cues = [:]
            unplaced = [:]
        }
    }

    private func follow(master: URL) async {
        let text: String
        do {
            text = try await fetchText(master, deadline: 10)
        } catch {
            // hlsdemux reads the same list: its failure is the channel's, logged there.
            logger.debug("\(label): cannot read the HLS master playlist for subtitles: \(error)")
            if !Task.isCancelled { clock.isActive = false }
            return
        }
        var found = HLSSubtitleRendition.renditions(inMaster: text, base: master)
        guard !found.isEmpty, !Task.isCancelled else {
            if !Task.isCancelled { clock.isActive = false }
            return
        }
        if found.count > Self.maxRenditions {
            logger.warning("\(label): \(found.count) WebVTT subtitle renditions; following the first \(Self.maxRenditions)")
            found = Array(found.prefix(Self.maxRenditions))
        }
        let handler = lock.withLock {
            renditions = found
            return tracksFound
        }
        handler?()
        logger.info("\(label): WebVTT subtitles \(found.map { "\($0.name)\($0.language.map { " (\($0))" } ?? "")" }.joined(separator: ", "))")
        await withTaskGroup(of: Void.self) { group in
            for (i, rendition) in found.enumerated() {
                group.addTask { [weak self] in await self?.follow(rendition, index: Self.firstIndex + i) }
            }
        }
    }

    /// Follows one rendition's media playlist until cancelled (or its list ends).
    private func follow(_ rendition: HLSSubtitleRendition, index: Int) async {
        var problems = ProblemLog()
        var read: Set<Int> = []
        var newest: Int?
        let name = "\(label): the \(rendition.name) subtitles"
        while !Task.isCancelled {
            var wait = 6.0
            do {
                let text = try await fetchText(rendition.url, deadline: 5)
                let playlist: HLSMediaPlaylist
                do {
                    playlist = try HLSMediaPlaylist(parsing: text, base: rendition.url)
                } catch let error as HLSPlaylistError {
                    throw Problem("\(SourceText.shown(rendition.url.absoluteString)) \(error.description)")
                }
                wait = playlist.targetDuration
                problems.cleared("playlist")
                // Live: from the segments a player would start at (the last three), then new ones.
                let fresh = playlist.segments.filter { s in newest.map { s.sequence > $0 } ?? true }
                for segment in (newest == nil ? Array(fresh.suffix(3)) : fresh) where !read.contains(segment.sequence) {
                    guard !Task.isCancelled else { return }
                    read.insert(segment.sequence)
                    newest = max(newest ?? segment.sequence, segment.sequence)
                    do {
                        let body = try await fetchText(segment.url, deadline: max(3, min(10, playlist.targetDuration)))
                        let file = try WebVTTFile(parsing: body)
                        if let problem = file.problems.first {
                            problems.tell("cues", "\(name): \(segment.url.lastPathComponent): \(problem)\(file.problems.count > 1 ? " (and \(file.problems.count - 1) more)" : "")", logger)
                        }
                        take(file, track: index)
                    } catch {
                        problems.tell("segment", "\(name): \(segment.url.lastPathComponent): \(error); the picture plays on without them", logger)
                    }
                }
                // Sequence numbers are never negative (the parser refuses them), so this cannot overflow.
                if read.count > 64, let newest { read = read.filter { $0 > newest - 64 } }
                if playlist.ended { return }
            } catch is CancellationError {
                return
            } catch {
                problems.tell("playlist", "\(name) cannot be read (\(error)); the picture plays on without them, tried again every few seconds", logger)
            }
            try? await Task.sleep(for: .seconds(max(1, min(wait, 30))))
        }
    }

    /// Keeps the cues of `file` for `track`, placed on the ingest's running time (once the
    /// video's clock is known).
    func take(_ file: WebVTTFile, track: Int) {
        let read = file.cues.compactMap { cue -> (start: Int64, end: Int64, text: String)? in
            guard let start = file.mpegTime(cue.start), let end = file.mpegTime(cue.end) else { return nil }
            return (start, end, cue.text)
        }
        lock.withLock {
            unplaced[track, default: []].append(contentsOf: read)
            newlyRead = true
            // Video whose clock cannot be read (no MPEG-TS): only the newest wait.
            if let n = unplaced[track]?.count, n > Self.maxCues { unplaced[track]?.removeFirst(n - Self.maxCues) }
        }
        placeWaiting()
    }

    /// Places the cues waiting for the video's clock, when it is known; cues that ended well
    /// before the newest video frame are let go. When the mapping moved (a discontinuity),
    /// the cues still ahead were placed by the old one: they are placed again.
    private func placeWaiting() {
        guard let now = clock.newestRunningTime else { return }
        let jumps = clock.jumps
        lock.withLock {
            if jumps != placedAtJumps {
                placedAtJumps = jumps
                newlyRead = true
                for (track, list) in cues {
                    let ahead = list.filter { $0.start > now }
                    cues[track] = list.filter { $0.start <= now }
                    unplaced[track, default: []].append(contentsOf: ahead.map { ($0.mpeg.start, $0.mpeg.end, $0.text) })
                }
            }
            guard newlyRead else { return }
            newlyRead = false
            var waiting: [Int: [(start: Int64, end: Int64, text: String)]] = [:]
            for (track, read) in unplaced {
                // Running times here are below 2^63 (MPEGTSClock gives no other), so adding seconds cannot overflow.
                var kept = (cues[track] ?? []).filter { $0.end + 10 * ClockTime.second >= now }
                for r in read {
                    guard let start = clock.runningTime(ofMPEG: r.start), let end = clock.runningTime(ofMPEG: r.end), end > start,
                          end + 10 * ClockTime.second >= now else { continue }
                    guard start <= now + Self.horizon else { waiting[track, default: []].append(r); continue }
                    guard !kept.contains(where: { $0.start == start && $0.text == r.text }) else { continue }
                    kept.append(Cue(start: start, end: end, text: r.text, mpeg: (r.start, r.end)))
                }
                kept.sort { $0.start < $1.start }
                if kept.count > Self.maxCues { kept.removeFirst(kept.count - Self.maxCues) }
                cues[track] = kept
            }
            unplaced = waiting.mapValues { Array($0.suffix(Self.maxCues)) }
        }
    }

    /// The largest subtitle playlist or WebVTT file read (a download is stopped there).
    static let maxFileBytes = 4 << 20

    private func fetchText(_ url: URL, deadline: TimeInterval) async throws -> String {
        var request = URLRequest(url: url)
        request.setValue("Flipbox", forHTTPHeaderField: "User-Agent")
        let data: Data, response: URLResponse
        do {
            // Stopped as soon as it passes the limit: never held whole, then measured.
            (data, response) = try await HTTPTransfer.data(for: request, deadline: deadline, limit: Self.maxFileBytes)
        } catch let error as HTTPTransfer.BodyTooLarge {
            throw Problem("\(SourceText.shown(url.absoluteString)) is refused: \(error)")
        } catch let error as URLError where error.code == .timedOut {
            throw Problem("\(SourceText.shown(url.absoluteString)) did not answer within \(Int(deadline)) s")
        } catch let error as URLError {
            throw Problem("cannot fetch \(SourceText.shown(url.absoluteString)): \(error.localizedDescription)")
        }
        if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
            throw Problem("HTTP \(http.statusCode) from \(SourceText.shown(url.absoluteString))")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw Problem("\(SourceText.shown(url.absoluteString)) is not UTF-8 text") }
        return text
    }

    private struct Problem: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Each kind of problem logged once until it clears (then once again when it comes back).
    private struct ProblemLog {
        private var told: Set<String> = []
        mutating func tell(_ kind: String, _ message: String, _ logger: Logger) {
            guard told.insert(kind).inserted else { return }
            logger.warning("\(message)")
        }
        mutating func cleared(_ kind: String) { told.remove(kind) }
    }
}
