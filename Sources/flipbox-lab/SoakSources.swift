import Foundation
import LoopbackStreams

/// The soak's hostile channels, each on loopback: most are MPEG-TS over UDP from a
/// `TransportStreamSender`, looping with a discontinuity and a lost keyframe at every loop; one
/// is served as live MPEG-TS over HTTP and one as live HLS, by servers in this process. Most
/// have a misbehaviour of their own, driven by `step()` on a timer:
///
/// | channel (mod 8) | behaviour |
/// |---|---|
/// | 0 | only the loop discontinuity (UDP) |
/// | 1 | dies for 1-10 s every 15-30 s and comes back from its start |
/// | 2 | stalls for 1-10 s every 15-30 s and carries on where it was |
/// | 3 | 1 % of its packets have a bit flipped, always, and it sends random bytes for 2-5 s every 15-30 s |
/// | 4 | changes codec (H.264, MPEG-2, HEVC) every 10-20 s |
/// | 5 | changes PIDs or resolution every 10-20 s: 360p, 360p on other PIDs (PAT and PMT version 1), 720p |
/// | 6 | live MPEG-TS over HTTP; every 15-30 s, by turns, trickles for 3-8 s or resets its connections |
/// | 7 | live HLS (2 s segments); every 15-30 s, by turns, answers slowly for 4-8 s or drops its connections for 3-6 s |
///
/// Every misbehaviour that leaves the player without the stream (a death, a stall, garbage, a
/// trickle, a reset until the player is connected again, a slow or dropping HLS server) is an
/// outage; each is counted as an `Event`.
///
/// Not thread-safe: driven from one task.
final class SoakSources {
    enum Behaviour: String, CaseIterable {
        case clean, dies, stalls
        case garbageAndBitFlips = "garbage-bit-flips"
        case codecChanges = "codec-changes"
        case pidAndResolutionChanges = "pid-resolution-changes"
        case http = "http-trickles-resets"
        case hls = "hls-slow-drops"

        /// The behaviour of channel `index` (from 0).
        static func of(channel index: Int) -> Behaviour {
            [.clean, .dies, .stalls, .garbageAndBitFlips, .codecChanges, .pidAndResolutionChanges, .http, .hls][index % 8]
        }
    }

    /// One misbehaviour carried out, as the report counts them.
    enum Event: String, CaseIterable {
        case death, stall, garbage
        case codecChange = "codec-change", pidChange = "pid-change", resolutionChange = "resolution-change"
        case httpTrickle = "http-trickle", httpReset = "http-reset", hlsSlow = "hls-slow", hlsDrop = "hls-drop"
    }

    /// How a channel reaches the player.
    enum Transport {
        case udp(TransportStreamSender)
        case http(LiveTransportStreamServer)
        case hls(LiveHLSServer)

        var url: String {
            switch self {
            case .udp(let sender): "udp://127.0.0.1:\(sender.port)"
            case .http(let server): server.url
            case .hls(let server): server.url
            }
        }

        func stop() {
            switch self {
            case .udp(let sender): sender.stop()
            case .http(let server): server.stop()
            case .hls(let server): server.stop()
            }
        }
    }

    struct Channel {
        var transport: Transport
        var behaviour: Behaviour
        var nextEvent: Double
        /// When the outage under way ends (seconds since start).
        var outUntil: Double?
        /// The connections were reset at this moment; the outage lasts until the player is
        /// connected again.
        var resetAt: Date?
        var clipIndex = 0
        /// Events so far: the HTTP and HLS channels take their two misbehaviours by turns.
        var events = 0
    }

    /// A clip of the channel that changes PIDs and resolution, and how it differs from the others.
    private struct Variant { var clip: TransportStreamClip; var height: Int; var layout: ClipFormat.ProgramLayout? }

    /// A source came back at `at` (seconds since start).
    struct Return { var channel: Int; var at: Double }

    /// A time a channel's source sent no stream (dead, stalled, garbage, trickling, reset, slow or
    /// dropping); `to` nil while it lasts.
    struct Outage { var channel: Int; var from: Date; var to: Date? }

    /// The keyframe interval of every channel.
    static let gopSeconds = 1.0

    private(set) var channels: [Channel] = []
    private let clips: [TransportStreamClip]
    private let alternates: [TransportStreamClip]
    private let variants: [Variant]
    private var rng = SystemRandomNumberGenerator()
    private let start = Date()
    /// Returns not yet collected by the caller.
    private(set) var returns: [Return] = []
    /// Every outage so far, in the order they began.
    private(set) var outages: [Outage] = []
    /// Misbehaviours carried out so far.
    private(set) var events: [Event: Int] = [:]

    var urls: [String] { channels.map(\.transport.url) }

    init(count: Int, basePort: Int, log: (String) -> Void) throws {
        let dir = ClipFormat.cacheDirectory
        func clip(_ codec: ClipFormat.Codec, _ width: Int, _ height: Int, hue: Int, kbps: Int = 1000,
                  layout: ClipFormat.ProgramLayout? = nil) throws -> TransportStreamClip {
            var format = ClipFormat(codec: codec, width: width, height: height, fps: 25, gopSeconds: Self.gopSeconds, seconds: 6,
                                    bitrateKbps: kbps, hue: hue, toneHz: 300 + hue)
            format.layout = layout
            log("clip \(format)\(layout.map { " on PMT PID \($0.pmtPID), streams from PID \($0.firstStreamPID)" } ?? "") (made once, kept in \(dir))")
            return try TransportStreamClip(path: try format.file(in: dir))
        }
        clips = try (0..<4).map { try clip(.h264, 640, 360, hue: $0 * 90) }
        alternates = [clips[0], try clip(.mpeg2, 640, 360, hue: 45, kbps: 2000), try clip(.hevc, 640, 360, hue: 135)]
        // The same picture re-muxed: PMT on 0x1200, streams from 0x300, PAT and PMT version 1.
        let remux = ClipFormat.ProgramLayout(pmtPID: 0x1200, firstStreamPID: 0x300, tablesVersion: 1)
        variants = [Variant(clip: clips[1], height: 360, layout: nil),
                    Variant(clip: try clip(.h264, 640, 360, hue: 90, layout: remux), height: 360, layout: remux),
                    Variant(clip: try clip(.h264, 1280, 720, hue: 200, kbps: 2000), height: 720, layout: nil)]
        for i in 0..<count {
            let behaviour = Behaviour.of(channel: i)
            let first = clips[i % clips.count]
            let transport: Transport
            switch behaviour {
            case .http:
                transport = .http(try LiveTransportStreamServer(clip: first, loopSkip: 0.5))
            case .hls:
                log("HLS segments of \(URL(fileURLWithPath: first.path).lastPathComponent) (cut once, kept beside it)")
                transport = .hls(try LiveHLSServer(clip: try HLSClip(path: first.path, segmentSeconds: 2)))
            default:
                let sender = try TransportStreamSender(clip: first, port: basePort + i, loopSkip: 0.5)
                if behaviour == .garbageAndBitFlips { sender.bitFlipRate = 0.01 }
                transport = .udp(sender)
            }
            channels.append(Channel(transport: transport, behaviour: behaviour, nextEvent: 10 + Double.random(in: 0...15, using: &rng)))
        }
    }

    var elapsed: Double { Date().timeIntervalSince(start) }

    /// Applies whatever misbehaviour is due, and ends the outages that are over. Call a few
    /// times a second.
    func step() {
        let now = elapsed
        for i in channels.indices {
            var c = channels[i]
            if let until = c.outUntil {
                if now >= until {
                    switch c.transport {
                    case .udp(let sender):
                        if c.behaviour == .dies { sender.play(clips[i % clips.count]) } else { sender.mode = .stream }
                    case .http(let server): server.trickling = false
                    case .hls(let server): server.mode = .normal
                    }
                    c.outUntil = nil
                    returned(i, at: now)
                }
            } else if let resetAt = c.resetAt {
                if case .http(let server) = c.transport, let join = server.lastJoin, join > resetAt {
                    c.resetAt = nil
                    returned(i, at: now, endingAt: join)
                }
            } else if now >= c.nextEvent {
                c.nextEvent = now + misbehave(&c, channel: i, now: now)
            }
            channels[i] = c
        }
    }

    /// Carries out channel `c`'s next misbehaviour; returns the seconds until the one after.
    private func misbehave(_ c: inout Channel, channel i: Int, now: Double) -> Double {
        func outage(_ event: Event, seconds: ClosedRange<Double>) {
            c.outUntil = now + Double.random(in: seconds, using: &rng)
            outages.append(Outage(channel: i, from: Date()))
            events[event, default: 0] += 1
        }
        let sometimes = Double.random(in: 15...30, using: &rng)
        let often = Double.random(in: 10...20, using: &rng)
        switch (c.behaviour, c.transport) {
        case (.dies, .udp(let sender)), (.stalls, .udp(let sender)):
            sender.mode = .silent
            outage(c.behaviour == .dies ? .death : .stall, seconds: 1...10)
        case (.garbageAndBitFlips, .udp(let sender)):
            sender.mode = .garbage
            outage(.garbage, seconds: 2...5)
        case (.codecChanges, .udp(let sender)):
            c.clipIndex = (c.clipIndex + 1) % alternates.count
            sender.play(alternates[c.clipIndex])
            events[.codecChange, default: 0] += 1
            return often
        case (.pidAndResolutionChanges, .udp(let sender)):
            let from = variants[c.clipIndex]
            c.clipIndex = (c.clipIndex + 1) % variants.count
            let to = variants[c.clipIndex]
            sender.play(to.clip)
            if from.layout != to.layout { events[.pidChange, default: 0] += 1 }
            if from.height != to.height { events[.resolutionChange, default: 0] += 1 }
            return often
        case (.http, .http(let server)):
            if c.events % 2 == 0 {
                server.trickling = true
                outage(.httpTrickle, seconds: 3...8)
            } else {
                // Nobody connected (the player is between attempts): try again shortly.
                guard server.resetConnections() > 0 else { return 2 }
                c.resetAt = Date()
                outages.append(Outage(channel: i, from: c.resetAt!))
                events[.httpReset, default: 0] += 1
            }
            c.events += 1
        case (.hls, .hls(let server)):
            if c.events % 2 == 0 {
                server.mode = .slow
                outage(.hlsSlow, seconds: 4...8)
            } else {
                server.mode = .dropping
                outage(.hlsDrop, seconds: 3...6)
            }
            c.events += 1
        default:
            break
        }
        return sometimes
    }

    /// Channel `i`'s source is back (at `now`, seconds since start); its outage ended at `end`.
    private func returned(_ i: Int, at now: Double, endingAt end: Date = Date()) {
        returns.append(Return(channel: i, at: now))
        endOutage(of: i, at: end)
    }

    private func endOutage(of channel: Int, at end: Date = Date()) {
        if let last = outages.lastIndex(where: { $0.channel == channel && $0.to == nil }) { outages[last].to = end }
    }

    /// Whether channel `channel`'s source sent its stream for the whole of `from...to`.
    func flowed(_ channel: Int, from: Date, to: Date) -> Bool {
        !outages.contains { $0.channel == channel && $0.from <= to && ($0.to ?? .distantFuture) >= from }
    }

    /// Takes the returns recorded since the last call.
    func takeReturns() -> [Return] {
        defer { returns = [] }
        return returns
    }

    /// Every source back to streaming its first clip, every server to answering in time (for
    /// settled measurements); each channel's misbehaviour resumes 0-10 s after `holdOff` seconds.
    func calm(holdOff: Double) {
        let now = elapsed
        for i in channels.indices {
            if channels[i].outUntil != nil || channels[i].resetAt != nil { endOutage(of: i) }
            channels[i].outUntil = nil
            channels[i].resetAt = nil
            switch channels[i].transport {
            case .udp(let sender): sender.play(clips[i % clips.count])
            case .http(let server): server.trickling = false
            case .hls(let server): server.mode = .normal
            }
            channels[i].clipIndex = 0
            // Spread over 10 s, so that the channels do not all misbehave at the same moment.
            channels[i].nextEvent = max(channels[i].nextEvent, now + holdOff + Double.random(in: 0...10, using: &rng))
        }
    }

    /// What the HTTP and HLS servers did for the player, by kind: connections served, playlists
    /// and segments answered whole, connections dropped.
    var serverFigures: [String: [String: Int]] {
        var figures: [String: [String: Int]] = [:]
        for c in channels {
            switch c.transport {
            case .udp: break
            case .http(let server): figures["http", default: [:]]["connections", default: 0] += server.connections
            case .hls(let server):
                figures["hls", default: [:]]["playlists", default: 0] += server.playlists
                figures["hls", default: [:]]["segments", default: 0] += server.segmentsServed
                figures["hls", default: [:]]["drops", default: 0] += server.drops
            }
        }
        return figures
    }

    func stop() {
        for c in channels { c.transport.stop() }
    }
}
