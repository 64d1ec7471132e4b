import Foundation
import LoopbackStreams

/// The benchmark's generated channels: their URLs, stopped at the end.
protocol BenchSenders: AnyObject {
    var urls: [String] { get }
    /// What each channel carries, in order (the report breaks flips down by it).
    var kinds: [String] { get }
    func stop()
}

extension BenchStreams: BenchSenders {
    var kinds: [String] { urls.map { _ in "h264 1280x720p30" } }
}

/// Which streams `bench` generates without a lineup.
enum BenchStreamKind: String, CaseIterable {
    /// Matroska clips looped by ffmpeg: every keyframe kept, no discontinuity.
    case clean
    /// MPEG-TS clips looped by `ffmpeg -stream_loop -1 -c copy` (issue 15's setup): the first
    /// keyframe of every loop is lost and the GOP around the loop point straddles it.
    case tsLoop = "ts-loop"
    /// `ts-loop`, with every fourth channel MPEG-2 576i, H.264 1080i or HEVC 720p instead.
    case mixed
    /// A broadcast lineup, six kinds in turn: H.264 720p/AAC, MPEG-2 576i/MP2, H.264 1080i with
    /// AC-3 in two languages, HEVC 10-bit BT.2020 PQ, H.264 720p/E-AC-3, radio (MP2).
    case broadcast

    static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// Live MPEG-TS channels on loopback for the hostile bench modes: one ffmpeg sender per
/// channel (outside this process, so its CPU is not counted), looping an MPEG-TS clip exactly
/// as a user's `ffmpeg -re -stream_loop -1 -i clip.ts -c copy -f mpegts udp://...` does,
/// started a fraction of a GOP apart.
final class HostileBenchStreams: BenchSenders {
    let urls: [String]
    /// What each channel carries, in order (for the report).
    let formats: [ClipFormat]
    var kinds: [String] { formats.map(\.description) }
    private var senders: [Process] = []

    init(kind: BenchStreamKind, channels: Int, basePort: Int, log: (String) -> Void) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg") else {
            throw BenchStreams.Failure(description: "the benchmark streams need ffmpeg (run deploy/install-deps.sh)")
        }
        var formats: [ClipFormat] = []
        for i in 0..<channels {
            var format = ClipFormat.hd720
            if kind == .mixed {
                switch i % 4 {
                case 1: format = .sd576iMPEG2
                case 2: format = .hd1080iH264
                case 3: format = .hd720HEVC
                default: break
                }
            }
            format.hue = (i * 360) / max(1, channels)
            format.toneHz = 300 + 60 * i
            if kind == .broadcast { format = Self.broadcast(i, hue: format.hue, tone: format.toneHz) }
            formats.append(format)
        }
        self.formats = formats
        var urls: [String] = []
        for (i, format) in formats.enumerated() {
            let name = format.description
            log("channel \(i + 1): \(name) (encoded once, cached in \(ClipFormat.cacheDirectory))")
            let path = try format.file(in: ClipFormat.cacheDirectory)
            let url = "udp://127.0.0.1:\(basePort + i)"
            senders.append(try BenchStreams.loopSender(clip: path, to: url))
            urls.append(url)
            if i + 1 < formats.count { Thread.sleep(forTimeInterval: format.gopSeconds / Double(formats.count)) }
        }
        self.urls = urls
    }

    /// Channel `i` of the broadcast lineup.
    static func broadcast(_ i: Int, hue: Int, tone: Int) -> ClipFormat {
        var f: ClipFormat
        switch i % 6 {
        case 1:
            f = .sd576iMPEG2
            f.audioCodec = .mp2
            f.colours = .bt601
        case 2:
            f = .hd1080iH264
            f.audioCodec = .ac3
            f.audioTracks = [.init(toneHz: tone, language: "deu"), .init(toneHz: tone + 500, language: "eng")]
            f.colours = .bt709
        case 3:
            f = .hd720HEVC
            f.colours = .bt2020pq
        case 4:
            f = .hd720
            f.audioCodec = .eac3
        case 5:
            // MP2: ffmpeg's `-c copy` loop breaks LATM framing (the tests send LATM byte for byte).
            f = .radio(.mp2, toneHz: tone, seconds: 8)
        default:
            f = .hd720
        }
        f.hue = hue
        f.toneHz = tone
        return f
    }

    func stop() {
        for p in senders where p.isRunning { kill(p.processIdentifier, SIGKILL) }
        for p in senders { p.waitUntilExit() }
        senders = []
    }

    deinit { stop() }
}
