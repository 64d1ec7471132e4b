import Foundation
import LoopbackStreams

/// Live MPEG-TS streams on loopback for the benchmark: one pre-encoded clip per channel
/// (720p30 H.264 with B-frames, a 2 s keyframe interval, AAC), each played in a loop, in real
/// time, by its own `ffmpeg -re` sender to `udp://127.0.0.1:PORT`, the senders started a
/// fraction of a GOP apart. The senders run outside this process so they do not count in its CPU figures.
final class BenchStreams {
    let urls: [String]
    private var senders: [Process] = []

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// The clips' keyframe interval, in seconds.
    let gop: Int

    init(channels: Int, width: Int, height: Int, fps: Int, gopSeconds: Int, basePort: Int, log: (String) -> Void) throws {
        gop = gopSeconds
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg") else {
            throw Failure(description: "the benchmark streams need ffmpeg (run deploy/install-deps.sh)")
        }
        let cache = (ProcessInfo.processInfo.environment["XDG_CACHE_HOME"] ?? NSHomeDirectory() + "/.cache") + "/flipbox/bench"
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        var urls: [String] = []
        for i in 0..<channels {
            // Matroska, not MPEG-TS: `ffmpeg -stream_loop` over a TS file drops the first keyframe
            // of every loop (one 4 s keyframe gap per 8 s clip, which made a quarter of cold flips
            // wait a second GOP); a Matroska clip loops with every keyframe.
            let clip = "\(cache)/clip-\(width)x\(height)-\(fps)-g\(gopSeconds)-\(i).mkv"
            if !FileManager.default.fileExists(atPath: clip) {
                log("encoding benchmark clip \(i + 1)/\(channels) (once, cached in \(cache))")
                let hue = (i * 360) / max(1, channels)
                let tmp = clip + ".part.mkv"
                try Self.run("/usr/bin/ffmpeg", [
                    "-loglevel", "error", "-y",
                    "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=\(fps),hue=h=\(hue)",
                    "-f", "lavfi", "-i", "sine=frequency=\(300 + 60 * i):sample_rate=48000",
                    "-t", "\(gopSeconds * 4)",
                    "-c:v", "libx264", "-preset", "veryfast", "-g", "\(fps * gopSeconds)", "-keyint_min", "\(fps * gopSeconds)",
                    "-sc_threshold", "0", "-b:v", "3000k", "-maxrate", "3000k", "-bufsize", "3000k", "-pix_fmt", "yuv420p",
                    "-c:a", "aac", "-b:a", "128k", "-f", "matroska", tmp,
                ])
                try FileManager.default.moveItem(atPath: tmp, toPath: clip)
            }
            let url = "udp://127.0.0.1:\(basePort + i)"
            senders.append(try Self.loopSender(clip: clip, to: url))
            urls.append(url)
            // Staggered starts spread the channels' keyframes over the GOP, as independent live
            // channels are; started together they would be in phase, and every cold flip made a
            // fixed time after the previous one would wait about the same part of a GOP.
            if i + 1 < channels { Thread.sleep(forTimeInterval: Double(gopSeconds) / Double(channels)) }
        }
        self.urls = urls
    }

    func stop() {
        for p in senders where p.isRunning { kill(p.processIdentifier, SIGKILL) }
        for p in senders { p.waitUntilExit() }
        senders = []
    }

    deinit { stop() }

    static func run(_ tool: String, _ arguments: [String]) throws {
        try ClipFormat.runTool(tool, arguments)
    }

    /// ffmpeg sending `clip` (all its streams) in a loop, in real time, as MPEG-TS over UDP to `url`.
    static func loopSender(clip: String, to url: String) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        // Every stream of the clip (ffmpeg would otherwise keep one audio track of several).
        p.arguments = ["-loglevel", "error", "-re", "-stream_loop", "-1", "-i", clip, "-map", "0", "-c", "copy",
                       "-f", "mpegts", "\(url)?pkt_size=1316"]
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }
}
