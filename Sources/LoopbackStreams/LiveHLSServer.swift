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
/// Thread-safe. `stop()` ends every thread; it is called by `deinit` too.
public final class LiveHLSServer: @unchecked Sendable {
    public enum Mode: Sendable { case normal, slow, dropping }

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

    public init(clip: HLSClip, window: Int = 4) throws {
        self.clip = clip
        self.window = window
        loopDuration = clip.segments.map(\.duration).reduce(0, +)
        // Started as long ago as the first `window` segments last (and a millisecond), so the
        // first playlist names that many.
        let head = (0..<window).map { clip.segments[$0 % clip.segments.count].duration }.reduce(0, +)
        origin = TransportStreamSender.now() - head - 0.001
        server = try LoopbackHTTPServer { [weak self] connection in self?.serve(connection) }
    }

    deinit { stop() }

    /// The channel's address (its playlist).
    public var url: String { server.url("/live.m3u8") }

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
    func playlist(at now: Double) -> String {
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
            text += "#EXTINF:\(String(format: "%.3f", clip.segments[k % n].duration)),\n\(k).ts\n"
        }
        return text
    }

    private func serve(_ connection: LoopbackHTTPConnection) {
        let path = connection.path.split(separator: "?").first.map(String.init) ?? ""
        let body: [UInt8]
        let type: String
        let isSegment: Bool
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
