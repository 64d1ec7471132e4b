import FlipboxCore
import Foundation
import Lineup
import LoopbackStreams
import Switcher

/// `count` flips of `request`, `spacing` apart (a held key), all in flight together; their results.
func keyRepeat(_ player: Player, _ request: FlipRequest, count: Int, spacing: Duration) async -> [FlipResult] {
    await withTaskGroup(of: FlipResult.self) { group in
        for i in 0..<count {
            group.addTask {
                try? await Task.sleep(for: spacing * i)
                return await player.flip(request)
            }
        }
        var all: [FlipResult] = []
        for await r in group { all.append(r) }
        return all
    }
}

/// Polls `condition` every 50 ms for up to `seconds`.
func waitUntil(_ seconds: Double, _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return false
}

/// Power of `frequency` in interleaved stereo 48 kHz samples (Goertzel on the left channel).
func tonePower(_ samples: [Int16], _ frequency: Double) -> Double {
    let left = stride(from: 0, to: samples.count, by: 2).map { Double(samples[$0]) / 32768 }
    let k = 2 * cos(2 * Double.pi * frequency / 48000)
    var s1 = 0.0, s2 = 0.0
    for x in left {
        let s = x + k * s1 - s2
        s2 = s1
        s1 = s
    }
    return (s1 * s1 + s2 * s2 - k * s1 * s2) / Double(max(1, left.count))
}

/// One live loopback channel per MPEG-TS clip at `paths`, sent over UDP in a loop: the senders
/// (stop them when done) and the channels, numbered from 1, with ids `\(idPrefix)1`... and `names`.
func loopbackChannels(_ paths: [String], idPrefix: String, names: [String]) throws -> (senders: [TransportStreamSender], channels: [Channel]) {
    var senders: [TransportStreamSender] = []
    var channels: [Channel] = []
    do {
        for (i, path) in paths.enumerated() {
            let port = Int.random(in: 41000...49000)
            senders.append(try TransportStreamSender(clip: try TransportStreamClip(path: path), port: port))
            channels.append(Channel(id: "\(idPrefix)\(i + 1)", number: ChannelNumber(i + 1), name: names[i], sources: ["udp://127.0.0.1:\(port)"]))
        }
    } catch {
        for s in senders { s.stop() }
        throw error
    }
    return (senders, channels)
}
