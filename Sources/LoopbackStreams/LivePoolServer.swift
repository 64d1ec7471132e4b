import Foundation

/// Several live MPEG-TS channels from one HTTP server on 127.0.0.1 that gives at most `streams`
/// at once, as the sources most people own do: `GET /ch/N.ts` streams clip N (paced by its PCR,
/// joined at the live point) until the client leaves.
///
/// When every stream is in use, a new request is:
/// - `.refuse`: answered `503 Service Unavailable` with `X-HDHomeRun-Error: 805 All Tuners In
///   Use` (an HDHomeRun with every tuner busy);
/// - `.endsOldest`: served, and the oldest stream ended (its connection closed in order), as
///   many IPTV panels do to an account over its connections.
///
/// `freeDelay`: a stream whose client left holds its slot that long (a tuner released late).
/// It counts what a test checks: refusals, streams it ended, the most open at once, and every
/// stream served per channel. Thread-safe; `stop()` ends every thread (`deinit` too).
public final class LivePoolServer: @unchecked Sendable {
    public enum WhenFull: String, Sendable, CaseIterable {
        case refuse
        case endsOldest = "ends-oldest"
    }

    private struct Stream {
        let id: Int
        let channel: Int
        var ended = false
    }

    private let clips: [TransportStreamClip]
    private let origin = TransportStreamSender.now()
    private let lock = NSLock()
    private var limit: Int
    private let whenFull: WhenFull
    private let fromTheStart: Set<Int>
    private let freeDelay: Double
    private let retryAfter: Int?
    private var open: [Stream] = []
    /// Slots of streams whose client left, held until then (monotonic seconds).
    private var releasing: [Double] = []
    private var nextID = 0
    private var refusalCount = 0
    private var endedCount = 0
    private var mostOpen = 0
    private var served: [Int: Int] = [:]
    private var endings: [(channel: Int, at: ContinuousClock.Instant)] = []
    private var requestLog: [(channel: Int, at: ContinuousClock.Instant)] = []
    private var server: LoopbackHTTPServer!

    private let route: @Sendable (String) -> Int?
    private let other: (@Sendable (LoopbackHTTPConnection) -> Void)?

    /// `retryAfter`: the `Retry-After` of a refusal, in seconds (nil: none sent).
    /// `route`: the channel (0-based) a request's path (without its query) streams; nil for
    /// another request, which `other` answers (an IPTV panel's API beside its streams), else 404.
    /// `fromTheStart`: the clips (0-based) each connection gets from their first packet, a
    /// keyframe, as a provider's archive is asked from a moment; the others are joined live.
    public init(clips: [TransportStreamClip], streams: Int, whenFull: WhenFull, freeDelay: Double = 0, retryAfter: Int? = 2,
                route: @escaping @Sendable (String) -> Int? = LivePoolServer.channelPath,
                other: (@Sendable (LoopbackHTTPConnection) -> Void)? = nil, fromTheStart: Set<Int> = []) throws {
        self.route = route
        self.fromTheStart = fromTheStart
        self.other = other
        self.clips = clips
        self.limit = streams
        self.whenFull = whenFull
        self.freeDelay = freeDelay
        self.retryAfter = retryAfter
        server = try LoopbackHTTPServer { [weak self] connection in self?.serve(connection) }
    }

    deinit { stop() }

    /// Channel `n`'s address (0-based).
    public func url(channel n: Int) -> String { server.url("/ch/\(n).ts") }

    /// `/ch/N.ts` is channel N.
    public static func channelPath(_ path: String) -> Int? {
        guard path.hasPrefix("/ch/"), path.hasSuffix(".ts") else { return nil }
        return Int(path.dropFirst(4).dropLast(3))
    }

    /// `http://127.0.0.1:PORT`.
    public var base: String { server.url("") }

    /// `127.0.0.1:PORT`: the pool its channels share by default.
    public var hostAndPort: String { String(server.url("").dropFirst("http://".count)) }

    /// Requests refused for want of a free stream.
    public var refusals: Int { lock.withLock { refusalCount } }
    /// Streams the server ended to make room for a new one.
    public var endedByServer: Int { lock.withLock { endedCount } }
    /// The most streams open at once so far.
    public var maxOpen: Int { lock.withLock { mostOpen } }
    /// The streams the server ended, by channel, and when.
    public var endedStreams: [(channel: Int, at: ContinuousClock.Instant)] { lock.withLock { endings } }
    /// Every request for a channel, and when.
    public var requests: [(channel: Int, at: ContinuousClock.Instant)] { lock.withLock { requestLog } }
    /// Streams open now.
    public var openStreams: Int { lock.withLock { open.count } }
    /// Streams served (connections that got data) per channel.
    public var streamsServed: [Int: Int] { lock.withLock { served } }
    /// The channels streaming now, oldest first.
    public var openChannels: [Int] { lock.withLock { open.filter { !$0.ended }.map(\.channel) } }

    /// Changes how many streams the server gives (a tuner taken by another device).
    public var streams: Int {
        get { lock.withLock { limit } }
        set { lock.withLock { limit = newValue } }
    }

    public func stop() { server?.stop() }

    /// Another device takes one of the server's streams for `seconds`.
    public func occupySlot(seconds: Double) {
        lock.withLock { releasing.append(TransportStreamSender.now() + seconds) }
    }

    private func serve(_ connection: LoopbackHTTPConnection) {
        let path = connection.path.split(separator: "?").first.map(String.init) ?? ""
        guard let n = route(path), clips.indices.contains(n) else {
            if let other { other(connection) } else {
                connection.sendHead(status: 404, reason: "Not Found", contentType: "text/plain", length: 0)
            }
            return
        }
        let id: Int? = lock.withLock {
            requestLog.append((n, .now))
            let now = TransportStreamSender.now()
            releasing.removeAll { $0 <= now }
            if open.count + releasing.count >= limit {
                switch whenFull {
                case .refuse:
                    refusalCount += 1
                    return nil
                case .endsOldest:
                    if let oldest = open.firstIndex(where: { !$0.ended }) {
                        open[oldest].ended = true
                        endedCount += 1
                        endings.append((open[oldest].channel, .now))
                    } else if !releasing.isEmpty {
                        releasing.removeFirst()
                    }
                }
            }
            nextID += 1
            open.append(Stream(id: nextID, channel: n))
            mostOpen = max(mostOpen, open.filter { !$0.ended }.count + releasing.count)
            served[n, default: 0] += 1
            return nextID
        }
        guard let id else {
            connection.sendHead(status: 503, reason: "Service Unavailable", contentType: "text/plain", length: 0,
                                headers: [("X-HDHomeRun-Error", "805 All Tuners In Use")] + (retryAfter.map { [("Retry-After", "\($0)")] } ?? []))
            return
        }
        defer {
            lock.withLock {
                let wasEnded = open.first { $0.id == id }?.ended ?? true
                open.removeAll { $0.id == id }
                if !wasEnded, freeDelay > 0 { releasing.append(TransportStreamSender.now() + freeDelay) }
            }
        }
        guard connection.sendHead(contentType: "video/mp2t") else { return }
        let now = TransportStreamSender.now()
        var cursor = ClipCursor(clip: clips[n], loopSkip: 0, origin: fromTheStart.contains(n) ? now : origin, now: now)
        while true {
            let ended = lock.withLock { open.first { $0.id == id }?.ended ?? true }
            // Ended by the server: the connection closes in order (the client reads the end).
            if ended { return }
            // A client gone frees its slot at once, as a tuner does, not at the next write.
            if connection.clientClosed { return }
            let wait = cursor.due - TransportStreamSender.now()
            if wait > 0 { TransportStreamSender.sleep(min(wait, 0.05)); if wait > 0.05 { continue } }
            let chunk = cursor.packets(7)
            guard connection.send(chunk) else { return }
            cursor.advance(by: chunk.count / TransportStreamClip.packetSize)
        }
    }
}
