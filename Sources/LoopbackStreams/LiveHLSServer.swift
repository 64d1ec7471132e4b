import Foundation

/// An `HLSClip` served as a live HLS channel over HTTP on 127.0.0.1: `GET /live.m3u8` is a
/// sliding window of `window` segments that moves on as time goes (the clip's segments over and
/// over, `EXT-X-DISCONTINUITY` at every loop, media and discontinuity sequence numbers counting
/// up), and `GET /K.ts` is segment K of that endless sequence. The window starts full: the
/// first playlist already names `window` segments. Hostile on request (`mode`):
///
/// - `.slow`: every answer starts after 1 s and its body comes at 32 KB/s (a quarter of a
///   1 Mb/s channel), until the mode changes;
/// - `.dropping`: every connection is reset (RST): a playlist request before any answer, a
///   segment halfway through its body.
///
/// With `subtitles`, `GET /master.m3u8` names the video (`live.m3u8`) and a WebVTT rendition
/// (`subs.m3u8`, the same window of `K.vtt` segments, each with the `X-TIMESTAMP-MAP` of video
/// segment K); `subtitleMode` makes that rendition bad.
///
/// Thread-safe. `stop()` ends every thread; it is called by `deinit` too.
public final class LiveHLSServer: @unchecked Sendable {
    public enum Mode: Sendable { case normal, slow, dropping }

    /// A WebVTT rendition: its `NAME` and `LANGUAGE`, and the cue text of each of the clip's
    /// segments (nil: no cue), shown for the whole segment.
    public struct Subtitles: Sendable {
        public var name: String
        public var language: String
        public var text: @Sendable (Int) -> String?
        public init(name: String, language: String, text: @escaping @Sendable (Int) -> String?) {
            self.name = name
            self.language = language
            self.text = text
        }
    }

    /// How the subtitle rendition misbehaves: its segments are HTML pages, its playlist is
    /// 404, its playlist request is never answered, or a hostile source answers every segment
    /// or the playlist with the text given (numbers out of every range).
    public enum SubtitleMode: Sendable, Hashable {
        case normal, notWebVTT, missing, hanging
        case hostileSegment(String)
        case hostilePlaylist(String)
    }

    private let clip: HLSClip
    private let window: Int
    private let origin: Double
    /// Seconds one pass of the clip's segments lasts.
    private let loopDuration: Double
    private let lock = NSLock()
    private var modeValue = Mode.normal
    private var playlistCount = 0
    private var segmentCount = 0
    private var dropCount = 0
    private var server: LoopbackHTTPServer!
    private let subtitles: Subtitles?
    private var subtitleModeValue = SubtitleMode.normal
    private var subtitleRequests = 0

    public init(clip: HLSClip, window: Int = 4, subtitles: Subtitles? = nil) throws {
        self.clip = clip
        self.subtitles = subtitles
        self.window = window
        loopDuration = clip.segments.map(\.duration).reduce(0, +)
        // Started as long ago as the first `window` segments last (and a millisecond), so the
        // first playlist names that many.
        let head = (0..<window).map { clip.segments[$0 % clip.segments.count].duration }.reduce(0, +)
        origin = TransportStreamSender.now() - head - 0.001
        server = try LoopbackHTTPServer { [weak self] connection in self?.serve(connection) }
    }

    deinit { stop() }

    /// The channel's address (its playlist; the master playlist when it has subtitles).
    public var url: String { server.url(subtitles == nil ? "/live.m3u8" : "/master.m3u8") }

    public var subtitleMode: SubtitleMode {
        get { lock.withLock { subtitleModeValue } }
        set { lock.withLock { subtitleModeValue = newValue } }
    }

    /// Requests for the subtitle playlist and segments so far.
    public var subtitleFetches: Int { lock.withLock { subtitleRequests } }

    public var mode: Mode {
        get { lock.withLock { modeValue } }
        set { lock.withLock { modeValue = newValue } }
    }

    /// Playlists answered whole so far.
    public var playlists: Int { lock.withLock { playlistCount } }
    /// Segments answered whole so far.
    public var segmentsServed: Int { lock.withLock { segmentCount } }
    /// Connections reset while `.dropping`.
    public var drops: Int { lock.withLock { dropCount } }

    public func stop() { server?.stop() }

    /// The playlist at `now` (monotonic seconds).
    func playlist(at now: Double, segmentSuffix: String = ".ts") -> String {
        let n = clip.segments.count
        // Segments complete by now: whole passes, then those of this pass that have ended.
        let elapsed = max(0, now - origin)
        let passes = Int(elapsed / loopDuration)
        var rest = elapsed - Double(passes) * loopDuration
        var complete = passes * n
        for segment in clip.segments {
            guard rest >= segment.duration else { break }
            rest -= segment.duration
            complete += 1
        }
        let first = max(0, complete - window)
        // The discontinuity tags no longer listed: one at the start of every pass after the first.
        var text = """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:\(clip.targetDuration)
            #EXT-X-MEDIA-SEQUENCE:\(first)
            #EXT-X-DISCONTINUITY-SEQUENCE:\(first > 0 ? (first - 1) / n : 0)

            """
        for k in first..<complete {
            if k > 0, k % n == 0 { text += "#EXT-X-DISCONTINUITY\n" }
            text += "#EXTINF:\(String(format: "%.3f", clip.segments[k % n].duration)),\n\(k)\(segmentSuffix)\n"
        }
        return text
    }

    /// The answer to a master or subtitle request (`.some(nil)`: 404); nil for other paths.
    private func subtitleAnswer(_ path: String, _ subtitles: Subtitles) -> ([UInt8], String)?? {
        if path == "/master.m3u8" {
            let master = """
                #EXTM3U
                #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="\(subtitles.name)",LANGUAGE="\(subtitles.language)",AUTOSELECT=YES,URI="subs.m3u8"
                #EXT-X-STREAM-INF:BANDWIDTH=800000,SUBTITLES="subs"
                live.m3u8

                """
            return .some((Array(master.utf8), "application/vnd.apple.mpegurl"))
        }
        let k = path.hasSuffix(".vtt") ? Int(path.dropFirst().dropLast(4)) : nil
        guard path == "/subs.m3u8" || k != nil else { return nil }
        let mode = lock.withLock {
            subtitleRequests += 1
            return subtitleModeValue
        }
        switch mode {
        case .missing:
            return .some(nil)
        case .hanging:
            // Never answered: the connection stays open until the server stops.
            while server?.isRunning == true { TransportStreamSender.sleep(0.2) }
            return .some(nil)
        case .notWebVTT where k != nil:
            return .some((Array("<html><body><h1>Service Unavailable</h1></body></html>".utf8), "text/html"))
        case .hostileSegment(let text) where k != nil:
            return .some((Array(text.utf8), "text/vtt"))
        case .hostilePlaylist(let text) where k == nil:
            return .some((Array(text.utf8), "application/vnd.apple.mpegurl"))
        default:
            break
        }
        guard let k, k >= 0 else {
            return .some((Array(playlist(at: TransportStreamSender.now(), segmentSuffix: ".vtt").utf8), "application/vnd.apple.mpegurl"))
        }
        let segment = clip.segments[k % clip.segments.count]
        var vtt = "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:\(segment.firstVideoPTS ?? 0),LOCAL:00:00:00.000\n\n"
        if let text = subtitles.text(k % clip.segments.count) {
            vtt += "00:00.000 --> 00:\(String(format: "%06.3f", segment.duration))\n\(text)\n"
        }
        return .some((Array(vtt.utf8), "text/vtt"))
    }

    private func serve(_ connection: LoopbackHTTPConnection) {
        let path = connection.path.split(separator: "?").first.map(String.init) ?? ""
        let body: [UInt8]
        let type: String
        let isSegment: Bool
        if let subtitles, let answer = subtitleAnswer(path, subtitles) {
            switch answer {
            case .some(let (body, type)):
                guard connection.sendHead(contentType: type, length: body.count) else { return }
                _ = connection.send(body[...])
            case .none:
                connection.sendHead(status: 404, reason: "Not Found", contentType: "text/plain", length: 0)
            }
            return
        }
        if path == "/live.m3u8" {
            body = Array(playlist(at: TransportStreamSender.now()).utf8)
            type = "application/vnd.apple.mpegurl"
            isSegment = false
        } else if path.hasSuffix(".ts"), let k = Int(path.dropFirst().dropLast(3)), k >= 0 {
            body = clip.segments[k % clip.segments.count].bytes
            type = "video/mp2t"
            isSegment = true
        } else {
            connection.sendHead(status: 404, reason: "Not Found", contentType: "text/plain", length: 0)
            return
        }
        switch mode {
        case .dropping where !isSegment:
            lock.withLock { dropCount += 1 }
            connection.reset()
            return
        case .slow:
            TransportStreamSender.sleep(1)
        default:
            break
        }
        guard connection.sendHead(contentType: type, length: body.count) else { return }
        var offset = 0
        while offset < body.count {
            let mode = self.mode
            if mode == .dropping, isSegment, offset >= body.count / 2 {
                lock.withLock { dropCount += 1 }
                connection.reset()
                return
            }
            // Slow: 4 KB every 125 ms; otherwise what is left (a dropped segment: up to its half).
            let end = mode == .slow ? min(offset + 4096, body.count)
                : mode == .dropping && isSegment ? max(offset, body.count / 2) : body.count
            guard connection.send(body[offset..<end]) else { return }
            offset = end
            if mode == .slow { TransportStreamSender.sleep(0.125) }
        }
        lock.withLock { if isSegment { segmentCount += 1 } else { playlistCount += 1 } }
    }
}
