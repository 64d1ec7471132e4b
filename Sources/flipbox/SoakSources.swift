import Foundation
import LoopbackStreams

/// The soak's hostile channels: one `TransportStreamSender` per channel on loopback, each
/// looping MPEG-TS with a discontinuity and a lost keyframe at every loop, and most with a
/// misbehaviour of their own, driven by `step()` on a timer:
///
/// | channel (mod 8) | behaviour |
/// |---|---|
/// | 0, 7 | only the loop discontinuity |
/// | 1 | dies for 1-10 s every 15-30 s and comes back from its start |
/// | 2 | stalls for 1-10 s every 15-30 s and carries on where it was |
/// | 3 | sends random bytes for 2-5 s every 15-30 s |
/// | 4 | 1 % of its packets have a bit flipped, always |
/// | 5 | changes codec (H.264, MPEG-2, HEVC) every 10-20 s |
/// | 6 | changes resolution (360p, 720p) every 10-20 s |
///
/// Not thread-safe: driven from one task.
final class SoakSources {
    enum Behaviour: String, CaseIterable {
        case clean, dies, stalls, garbage, bitFlips = "bit-flips", codecChanges = "codec-changes", resolutionChanges = "resolution-changes"
    }

    struct Channel {
        var sender: TransportStreamSender
        var behaviour: Behaviour
        var nextEvent: Double
        var outUntil: Double?
        var clipIndex = 0
    }

    /// A source came back at `at` (seconds since start).
    struct Return { var channel: Int; var at: Double }

    /// A time a channel's source sent no stream (dead, stalled or garbage); `to` nil while it lasts.
    struct Outage { var channel: Int; var from: Date; var to: Date? }

    /// The keyframe interval of every channel.
    static let gopSeconds = 1.0

    private(set) var channels: [Channel] = []
    private let clips: [TransportStreamClip]
    private let alternates: [TransportStreamClip]
    private let resolutions: [TransportStreamClip]
    private var rng = SystemRandomNumberGenerator()
    private let start = Date()
    /// Returns not yet collected by the caller.
    private(set) var returns: [Return] = []
    /// Every outage so far, in the order they began.
    private(set) var outages: [Outage] = []

    var urls: [String] { channels.map { "udp://127.0.0.1:\($0.sender.port)" } }

    init(count: Int, basePort: Int, log: (String) -> Void) throws {
        let dir = ClipFormat.cacheDirectory
        func clip(_ codec: ClipFormat.Codec, _ width: Int, _ height: Int, hue: Int, kbps: Int = 1000) throws -> TransportStreamClip {
            let format = ClipFormat(codec: codec, width: width, height: height, fps: 25, gopSeconds: Self.gopSeconds, seconds: 6,
                                    bitrateKbps: kbps, hue: hue, toneHz: 300 + hue)
            log("clip \(format) (made once, kept in \(dir))")
            return try TransportStreamClip(path: try format.file(in: dir))
        }
        clips = try (0..<4).map { try clip(.h264, 640, 360, hue: $0 * 90) }
        alternates = [clips[0], try clip(.mpeg2, 640, 360, hue: 45, kbps: 2000), try clip(.hevc, 640, 360, hue: 135)]
        resolutions = [clips[1], try clip(.h264, 1280, 720, hue: 200, kbps: 2000)]
        for i in 0..<count {
            let behaviour: Behaviour = [.clean, .dies, .stalls, .garbage, .bitFlips, .codecChanges, .resolutionChanges, .clean][i % 8]
            let sender = try TransportStreamSender(clip: clips[i % clips.count], port: basePort + i, loopSkip: 0.5)
            if behaviour == .bitFlips { sender.bitFlipRate = 0.01 }
            channels.append(Channel(sender: sender, behaviour: behaviour, nextEvent: 10 + Double.random(in: 0...15, using: &rng)))
        }
    }

    var elapsed: Double { Date().timeIntervalSince(start) }

    /// Applies whatever misbehaviour is due. Call a few times a second.
    func step() {
        let now = elapsed
        for i in channels.indices {
            var c = channels[i]
            if let until = c.outUntil {
                if now >= until {
                    if c.behaviour == .dies { c.sender.play(clips[i % clips.count]) } else { c.sender.mode = .stream }
                    c.outUntil = nil
                    returns.append(Return(channel: i, at: now))
                    endOutage(of: i)
                }
            } else if now >= c.nextEvent {
                switch c.behaviour {
                case .clean, .bitFlips:
                    break
                case .dies, .stalls:
                    c.sender.mode = .silent
                    c.outUntil = now + Double.random(in: 1...10, using: &rng)
                    outages.append(Outage(channel: i, from: Date()))
                case .garbage:
                    c.sender.mode = .garbage
                    c.outUntil = now + Double.random(in: 2...5, using: &rng)
                    outages.append(Outage(channel: i, from: Date()))
                case .codecChanges:
                    c.clipIndex = (c.clipIndex + 1) % alternates.count
                    c.sender.play(alternates[c.clipIndex])
                case .resolutionChanges:
                    c.clipIndex = (c.clipIndex + 1) % resolutions.count
                    c.sender.play(resolutions[c.clipIndex])
                }
                let changes = c.behaviour == .codecChanges || c.behaviour == .resolutionChanges
                c.nextEvent = now + (changes ? Double.random(in: 10...20, using: &rng) : Double.random(in: 15...30, using: &rng))
            }
            channels[i] = c
        }
    }

    private func endOutage(of channel: Int) {
        if let last = outages.lastIndex(where: { $0.channel == channel && $0.to == nil }) { outages[last].to = Date() }
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

    /// Every source back to streaming its first clip (for settled measurements); misbehaviour
    /// resumes at the next `step()` after `holdOff` seconds.
    func calm(holdOff: Double) {
        let now = elapsed
        for i in channels.indices {
            if channels[i].outUntil != nil { endOutage(of: i) }
            channels[i].outUntil = nil
            channels[i].sender.play(clips[i % clips.count])
            channels[i].clipIndex = 0
            channels[i].nextEvent = max(channels[i].nextEvent, now + holdOff)
        }
    }

    func stop() {
        for c in channels { c.sender.stop() }
    }
}
