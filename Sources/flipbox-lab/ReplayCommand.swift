import ArgumentParser
import Foundation
import LoopbackStreams

/// `flipbox-lab replay`: many live MPEG-TS channels from one process, for the benchmark's big
/// lineups (one `ffmpeg -re` per channel would cost a process, its memory and its own pacing
/// each). Every channel loops its clip byte for byte, paced by the clip's PCR, to
/// `udp://127.0.0.1:PORT`; with `--loop-skip` later loops start that far in, so the keyframe at
/// the loop point is lost, as `ffmpeg -stream_loop -1 -c copy` over MPEG-TS loses it.
///
/// Runs until its standard input ends (the bench that started it closed it, or died) or it is
/// told to stop. Prints `ready` once every channel sends.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Send MPEG-TS files as live channels on loopback UDP, all from one process (for benchmarks).",
        shouldDisplay: false)

    @Argument(help: "PORT=FILE: send FILE (MPEG-TS) in a loop to udp://127.0.0.1:PORT.")
    var channels: [String]

    @Option(help: "Seconds skipped at the start of every loop after the first (0: every keyframe kept).")
    var loopSkip = 0.0

    @Option(help: "Seconds between two channels' starts, so their keyframes are not in phase.")
    var stagger = 0.0

    func run() throws {
        var clips: [String: TransportStreamClip] = [:]
        var plan: [(port: Int, clip: TransportStreamClip)] = []
        for spec in channels {
            let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let port = Int(parts[0]), (1...65535).contains(port) else {
                throw ValidationError("'\(spec)' is not PORT=FILE")
            }
            let clip = try clips[parts[1]] ?? TransportStreamClip(path: parts[1])
            clips[parts[1]] = clip
            plan.append((port, clip))
        }
        var senders: [TransportStreamSender] = []
        for (i, channel) in plan.enumerated() {
            senders.append(try TransportStreamSender(clip: channel.clip, port: channel.port, loopSkip: loopSkip))
            if i + 1 < plan.count, stagger > 0 { Thread.sleep(forTimeInterval: stagger) }
        }
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        // Until the parent closes standard input (or goes away).
        _ = FileHandle.standardInput.readDataToEndOfFile()
        for sender in senders { sender.stop() }
    }
}
