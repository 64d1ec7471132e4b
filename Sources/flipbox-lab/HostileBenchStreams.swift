import Foundation
import LoopbackStreams

/// The benchmark's generated channels: their URLs, stopped at the end.
protocol BenchSenders: AnyObject {
    var urls: [String] { get }
    /// What each channel carries, in order (the report breaks flips down by it).
    var kinds: [String] { get }
    /// The keyframe interval of each channel, in order (nil for radio): what a cold flip's
    /// target is measured against.
    var gopSeconds: [Double?] { get }
    func stop()
}

extension BenchStreams: BenchSenders {
    var kinds: [String] { urls.map { _ in "h264 1280x720p30" } }
    var gopSeconds: [Double?] { urls.map { _ in Double(gop) } }
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
    /// AC-3 in two languages, HEVC 10-bit BT.2020 PQ, H.264 720p/E-AC-3, radio (MP2, then AAC LATM).
    case broadcast

    static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// The kinds of channel in the broadcast lineup, in the order it repeats them.
enum BroadcastKind: String, CaseIterable {
    case h264, mpeg2, h264i, hevc, eac3, radio

    static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// Live MPEG-TS channels on loopback for the hostile bench modes, all sent by one `flipbox
/// replay` child (outside this process, so its CPU is not counted; one process for 64 channels
/// instead of 64 ffmpegs). Each loops an MPEG-TS clip byte for byte with the first frames of
/// every later loop skipped, so the loop point's keyframe is lost and the timestamps jump back,
/// as a user's `ffmpeg -re -stream_loop -1 -i clip.ts -c copy -f mpegts udp://...` does; the
/// channels start a fraction of a GOP apart.
final class HostileBenchStreams: BenchSenders {
    let urls: [String]
    /// What each channel carries, in order (for the report).
    let formats: [ClipFormat]
    var kinds: [String] { formats.map(\.description) }
    var gopSeconds: [Double?] { formats.map { $0.hasVideo ? $0.gopSeconds : nil } }
    private var replay: Process?
    private var replayInput: Pipe?

    /// Seconds skipped at the start of every loop after the first: a frame or two, so the
    /// keyframe that opens the clip is lost at every loop.
    static let loopSkip = 0.05

    /// `only`: with `.broadcast`, every channel is of that kind (radio alternates MP2 and LATM).
    init(kind: BenchStreamKind, only: BroadcastKind? = nil, channels: Int, basePort: Int, log: (String) -> Void) throws {
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
            if kind == .broadcast, let only {
                // Channel `slot` of the 64-channel broadcast lineup, in its colours and tone: the
                // same clips (cached), for the first ten channels of a kind.
                let slot = BroadcastKind.allCases.firstIndex(of: only)! + BroadcastKind.allCases.count * i
                format = Self.broadcast(slot, hue: (slot * 360) / 64, tone: 300 + 60 * slot)
            } else if kind == .broadcast {
                format = Self.broadcast(i, hue: format.hue, tone: format.toneHz)
            }
            formats.append(format)
        }
        self.formats = formats
        var urls: [String] = []
        var plan: [String] = []
        for (i, format) in formats.enumerated() {
            log("channel \(i + 1): \(format.description) (encoded once, cached in \(ClipFormat.cacheDirectory))")
            let path = try format.file(in: ClipFormat.cacheDirectory)
            plan.append("\(basePort + i)=\(path)")
            urls.append("udp://127.0.0.1:\(basePort + i)")
        }
        self.urls = urls
        let gop = formats.map(\.gopSeconds).max() ?? 1
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        p.arguments = ["replay", "--loop-skip", "\(Self.loopSkip)", "--stagger", "\(gop / Double(max(1, formats.count)))"] + plan
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = FileHandle.standardError
        try p.run()
        replay = p
        replayInput = input
        // Every channel sends once it says so (or it failed: its message went to stderr).
        let said = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard said.hasPrefix("ready") else {
            stop()
            throw BenchStreams.Failure(description: "the stream sender (flipbox replay) did not start: \(said.isEmpty ? "see above" : said)")
        }
    }

    /// Channel `i` of the broadcast lineup (its kind is `BroadcastKind.allCases[i % 6]`).
    static func broadcast(_ i: Int, hue: Int, tone: Int) -> ClipFormat {
        var f: ClipFormat
        switch i % BroadcastKind.allCases.count {
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
            // Radio, MPEG-1 Layer II and AAC in LATM (DVB-T2's) in turn: sent byte for byte, LATM
            // framing survives the loop.
            f = .radio((i / 6) % 2 == 0 ? .mp2 : .latm, toneHz: tone, seconds: 8)
        default:
            f = .hd720
        }
        f.hue = hue
        f.toneHz = tone
        return f
    }

    func stop() {
        guard let p = replay else { return }
        try? replayInput?.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(3)
        while p.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        replay = nil
        replayInput = nil
    }

    deinit { stop() }
}
