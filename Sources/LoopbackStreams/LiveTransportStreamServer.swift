import Foundation

/// A clip served as a live MPEG-TS channel over HTTP on 127.0.0.1, as IPTV servers send one:
/// `GET /live.ts` answers `video/mp2t` with no length and streams until the client leaves.
///
/// The channel has one timeline, started with the server: the clip over and over, later loops
/// starting `loopSkip` seconds in (as `TransportStreamSender` loops it). Every connection joins at
/// the timeline's live point, mid-GOP, and is paced by the clip's PCR, seven packets at a time.
/// Hostile on request:
///
/// - `trickling`: every connection sends one packet every 100 ms (about 1.5 % of a 1 Mb/s
///   stream), in order from where it was; when trickling ends it jumps to the live point, as a
///   live server does with a client that fell behind;
/// - `resetConnections()`: every open connection is reset (RST) mid-stream; new ones are served
///   at once.
///
/// Thread-safe. `stop()` ends every thread; it is called by `deinit` too.
public final class LiveTransportStreamServer: @unchecked Sendable {
    private let clip: TransportStreamClip
    private let loopSkip: Double
    private let origin = TransportStreamSender.now()
    private let lock = NSLock()
    private var trickle = false
    private var resetGeneration = 0
    private var streaming = 0
    private var joins = 0
    private var lastJoinDate: Date?
    private var server: LoopbackHTTPServer!

    public init(clip: TransportStreamClip, loopSkip: Double = 0) throws {
        self.clip = clip
        self.loopSkip = loopSkip
        server = try LoopbackHTTPServer { [weak self] connection in self?.serve(connection) }
    }

    deinit { stop() }

    /// The channel's address.
    public var url: String { server.url("/live.ts") }

    /// Whether connections trickle instead of streaming.
    public var trickling: Bool {
        get { lock.withLock { trickle } }
        set { lock.withLock { trickle = newValue } }
    }

    /// Resets every connection streaming now; returns how many there were. Each is reset by
    /// its own thread within one packet interval.
    @discardableResult
    public func resetConnections() -> Int {
        lock.withLock {
            resetGeneration += 1
            return streaming
        }
    }

    /// Connections that received the stream so far.
    public var connections: Int { lock.withLock { joins } }

    /// When the newest connection received its first packets.
    public var lastJoin: Date? { lock.withLock { lastJoinDate } }

    public func stop() { server?.stop() }

    private func serve(_ connection: LoopbackHTTPConnection) {
        guard connection.path.split(separator: "?").first == "/live.ts" else {
            connection.sendHead(status: 404, reason: "Not Found", contentType: "text/plain", length: 0)
            return
        }
        stream(to: connection)
    }

    /// Answers `connection` (of this server, or of another that emulates a head-end and checks
    /// the request first) with the channel, from its live point until the client leaves.
    public func stream(to connection: LoopbackHTTPConnection) {
        guard connection.sendHead(contentType: "video/mp2t") else { return }
        let generation = lock.withLock {
            streaming += 1
            joins += 1
            lastJoinDate = Date()
            return resetGeneration
        }
        defer { lock.withLock { streaming -= 1 } }
        var cursor = ClipCursor(clip: clip, loopSkip: loopSkip, origin: origin, now: TransportStreamSender.now())
        var behind = false
        while true {
            let (trickling, reset) = lock.withLock { (trickle, resetGeneration != generation) }
            if reset { connection.reset(); return }
            if trickling {
                behind = true
                guard connection.send(cursor.packets(1)) else { return }
                cursor.advance(by: 1)
                TransportStreamSender.sleep(0.1)
                continue
            }
            if behind {
                cursor = ClipCursor(clip: clip, loopSkip: loopSkip, origin: origin, now: TransportStreamSender.now())
                behind = false
            }
            let wait = cursor.due - TransportStreamSender.now()
            if wait > 0 { TransportStreamSender.sleep(min(wait, 0.05)); if wait > 0.05 { continue } }
            let chunk = cursor.packets(7)
            guard connection.send(chunk) else { return }
            cursor.advance(by: chunk.count / TransportStreamClip.packetSize)
        }
    }
}

/// A place in a clip looped on a timeline, and when its packet is due: the first pass plays the
/// clip whole, later passes start `loopSkip` seconds in. A value; used by one thread.
struct ClipCursor {
    let clip: TransportStreamClip
    /// The packet later passes start at.
    let skipIndex: Int
    /// The next packet to send.
    private(set) var index: Int
    /// The packet this pass started at.
    private var passFirst: Int
    /// When packet `passFirst` was due (monotonic seconds).
    private var passStart: Double

    /// At the live point of a timeline that began at `origin`, at `now`.
    init(clip: TransportStreamClip, loopSkip: Double, origin: Double, now: Double) {
        self.clip = clip
        skipIndex = clip.packetIndex(at: loopSkip)
        let elapsed = max(0, now - origin)
        let skipTime = clip.dueTimes[skipIndex]
        let position: Double
        if elapsed < clip.duration {
            passFirst = 0
            passStart = origin
            position = elapsed
        } else {
            let into = (elapsed - clip.duration).truncatingRemainder(dividingBy: max(0.001, clip.duration - skipTime))
            passFirst = skipIndex
            passStart = now - into
            position = skipTime + into
        }
        index = passFirst
        // Past the last packet's due time the live point is the next pass's start.
        if let next = clip.dueTimes.indices.first(where: { $0 >= passFirst && clip.dueTimes[$0] >= position }) {
            index = next
        } else {
            advance(by: clip.packetCount)
        }
    }

    /// When packet `index` is due (monotonic seconds).
    var due: Double { passStart + clip.dueTimes[index] - clip.dueTimes[passFirst] }

    /// The bytes of up to `count` packets from `index`, not past the end of the clip.
    func packets(_ count: Int) -> ArraySlice<UInt8> {
        let end = min(index + count, clip.packetCount)
        return clip.bytes[index * TransportStreamClip.packetSize..<end * TransportStreamClip.packetSize]
    }

    /// Moves on `count` packets; at the end of the clip, to the next pass's start.
    mutating func advance(by count: Int) {
        index += count
        if index >= clip.packetCount {
            passStart += clip.duration - clip.dueTimes[passFirst]
            index = skipIndex
            passFirst = skipIndex
        }
    }
}
