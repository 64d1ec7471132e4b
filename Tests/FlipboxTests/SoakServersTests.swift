import Foundation
import Glibc
import LoopbackStreams
import TestSupport
import Testing

/// The loopback servers behind `flipbox soak`'s HTTP and HLS channels, read with a raw socket
/// so that resets, trickles and slow answers are seen as a client sees them.
@Suite(.serialized) struct SoakServersTests {
    /// The soak's first clip (640x360 H.264, 1 s GOP, 6 s), made once and cached.
    static func clip() throws -> TransportStreamClip {
        let format = ClipFormat(codec: .h264, width: 640, height: 360, fps: 25, gopSeconds: 1, seconds: 6, bitrateKbps: 1000, hue: 0, toneHz: 300)
        return try TransportStreamClip(path: try format.file(in: ClipFormat.cacheDirectory))
    }

    @Test func liveTransportStreamIsPacedTricklesAndResets() throws {
        let clip = try Self.clip()
        let server = try LiveTransportStreamServer(clip: clip, loopSkip: 0.5)
        defer { server.stop() }
        let bytesPerSecond = Double(clip.packetCount * 188) / clip.duration
        let client = try LiveHTTPReader(url: server.url)
        let streamed = client.read(seconds: 2)
        #expect(streamed.head.hasPrefix("HTTP/1.1 200"), "\(streamed.head)")
        #expect(streamed.body.first == 0x47 && streamed.body.count % 188 == 0, "not whole TS packets: \(streamed.body.count) bytes")
        // Paced by the PCR: two seconds' worth, not the clip in a burst.
        #expect(Double(streamed.body.count) > bytesPerSecond && Double(streamed.body.count) < bytesPerSecond * 3,
                "\(streamed.body.count) bytes in 2 s at \(Int(bytesPerSecond)) B/s")

        server.trickling = true
        // What was sent before (a keyframe's packets share one PCR and go out together) is read first.
        _ = client.read(seconds: 0.5)
        let trickled = client.read(seconds: 2)
        // One packet every 100 ms: about 20 in 2 s.
        #expect(trickled.body.count >= 5 * 188 && trickled.body.count <= 30 * 188, "\(trickled.body.count) bytes while trickling")
        server.trickling = false

        #expect(server.resetConnections() == 1)
        let cut = client.read(seconds: 1)
        #expect(cut.reset, "the connection was not reset")
        let joined = Date()
        let again = try LiveHTTPReader(url: server.url).read(seconds: 1)
        #expect(again.body.count > 188 * 100, "a new connection after the reset got \(again.body.count) bytes")
        #expect(server.connections == 2)
        #expect((server.lastJoin ?? .distantPast) >= joined)
    }

    @Test func liveHLSPlaylistMovesOnAndTheServerAnswersSlowlyOrDrops() throws {
        let hls = try HLSClip(path: try Self.clip().path, segmentSeconds: 2)
        #expect(hls.segments.count == 3 && hls.targetDuration == 2, "\(hls.segments.map(\.duration))")
        let server = try LiveHLSServer(clip: hls, window: 4)
        defer { server.stop() }
        let base = String(server.url.dropLast("live.m3u8".count))

        let first = String(decoding: try LiveHTTPReader(url: server.url).read(seconds: 2, untilClosed: true).body, as: UTF8.self)
        #expect(first.components(separatedBy: "#EXTINF").count - 1 == 4, "\(first)")
        #expect(first.contains("#EXT-X-MEDIA-SEQUENCE:0\n") && first.contains("#EXT-X-TARGETDURATION:2\n"), "\(first)")
        // The fourth segment starts the clip's second pass: a discontinuity before it.
        #expect(first.contains("#EXT-X-DISCONTINUITY\n#EXTINF:2.000,\n3.ts"), "\(first)")
        Thread.sleep(forTimeInterval: 2.2)
        let later = String(decoding: try LiveHTTPReader(url: server.url).read(seconds: 2, untilClosed: true).body, as: UTF8.self)
        #expect(later.contains("#EXT-X-MEDIA-SEQUENCE:1\n") && later.contains("\n4.ts"), "\(later)")

        let segment = try LiveHTTPReader(url: base + "4.ts").read(seconds: 2, untilClosed: true)
        #expect(segment.head.contains("Content-Length: \(segment.body.count)") && segment.body.first == 0x47, "\(segment.head)")
        #expect(server.playlists == 2 && server.segmentsServed == 1)

        server.mode = .slow
        let started = Date()
        let slow = try LiveHTTPReader(url: server.url).read(seconds: 5, untilClosed: true)
        #expect(Date().timeIntervalSince(started) >= 1 && slow.body.count > 100, "a slow answer came in \(Date().timeIntervalSince(started)) s")

        server.mode = .dropping
        let droppedPlaylist = try LiveHTTPReader(url: server.url).read(seconds: 2, untilClosed: true)
        #expect(droppedPlaylist.reset && droppedPlaylist.head.isEmpty, "\(droppedPlaylist.head)")
        let droppedSegment = try LiveHTTPReader(url: base + "5.ts").read(seconds: 2, untilClosed: true)
        #expect(droppedSegment.reset && droppedSegment.body.count < segment.body.count, "\(droppedSegment.body.count) of \(segment.body.count) bytes")
        #expect(server.drops == 2)
    }
}

/// One GET on a plain socket, read for a while: what came (head and body) and whether the
/// server reset the connection.
final class LiveHTTPReader {
    private let fd: Int32
    private var buffered: [UInt8] = []
    private var headDone = false
    private var headText = ""

    struct Reading { var head: String; var body: [UInt8]; var reset: Bool; var closed: Bool }

    init(url: String) throws {
        let rest = url.dropFirst("http://127.0.0.1:".count)
        let port = Int(rest.prefix { $0.isNumber }) ?? 0
        let path = String(rest.drop { $0.isNumber })
        guard let fd = connectedLoopbackSocket(port: port) else { throw POSIXError(.ECONNREFUSED) }
        self.fd = fd
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    deinit { close(fd) }

    /// What arrives in the next `seconds` (or until the server closes, with `untilClosed`).
    func read(seconds: Double, untilClosed: Bool = false) -> Reading {
        let deadline = Date().addingTimeInterval(seconds)
        var body: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var reset = false, closed = false
        while Date() < deadline {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { closed = true; break }
            if n < 0 {
                if errno == ECONNRESET { reset = true; break }
                continue
            }
            if headDone {
                body += chunk[0..<n]
            } else {
                buffered += chunk[0..<n]
                if let end = buffered.firstRange(of: Array("\r\n\r\n".utf8)) {
                    headText = String(decoding: buffered[..<end.lowerBound], as: UTF8.self)
                    body += buffered[end.upperBound...]
                    headDone = true
                }
            }
            if closed && untilClosed { break }
        }
        return Reading(head: headText, body: body, reset: reset, closed: closed)
    }
}
