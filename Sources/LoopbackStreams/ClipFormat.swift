import Foundation

/// What a generated MPEG-TS clip holds: codec, size, scan, keyframe interval. Clips are made
/// once by ffmpeg (a moving test picture with a tone) and cached by name.
public struct ClipFormat: Sendable, Hashable, CustomStringConvertible {
    public enum Codec: String, Sendable, Hashable {
        /// H.264 High with B-frames (x264 `veryfast`, so frames are reordered).
        case h264
        /// MPEG-2 video.
        case mpeg2
        /// HEVC (x265 `ultrafast`).
        case hevc
    }

    public var codec: Codec
    public var width: Int
    public var height: Int
    public var fps: Int
    /// Interlaced (top field first), as broadcast 576i and 1080i are.
    public var interlaced: Bool
    public var gopSeconds: Double
    public var seconds: Double
    public var bitrateKbps: Int
    /// Hue shift of the picture, so channels look different.
    public var hue: Int
    /// Tone frequency (Hz) of the AAC audio.
    public var toneHz: Int
    /// A solid colour (0xRRGGBB) instead of the moving test picture, for checks by pixel.
    public var colour: UInt32?

    public init(codec: Codec = .h264, width: Int = 1280, height: Int = 720, fps: Int = 30, interlaced: Bool = false,
                gopSeconds: Double = 2, seconds: Double = 8, bitrateKbps: Int = 3000, hue: Int = 0, toneHz: Int = 440, colour: UInt32? = nil) {
        self.codec = codec
        self.width = width
        self.height = height
        self.fps = fps
        self.interlaced = interlaced
        self.gopSeconds = gopSeconds
        self.seconds = seconds
        self.bitrateKbps = bitrateKbps
        self.hue = hue
        self.toneHz = toneHz
        self.colour = colour
    }

    /// 720p30 H.264 with B-frames, 2 s keyframe interval, 3 Mb/s: the benchmark's channel.
    public static let hd720 = ClipFormat()
    /// 576i25 MPEG-2, 4 Mb/s (standard-definition broadcast).
    public static let sd576iMPEG2 = ClipFormat(codec: .mpeg2, width: 720, height: 576, fps: 25, interlaced: true, bitrateKbps: 4000)
    /// 1080i25 H.264, 6 Mb/s (HD broadcast).
    public static let hd1080iH264 = ClipFormat(codec: .h264, width: 1920, height: 1080, fps: 25, interlaced: true, bitrateKbps: 6000)
    /// 720p30 HEVC, 2 Mb/s.
    public static let hd720HEVC = ClipFormat(codec: .hevc, width: 1280, height: 720, fps: 30, bitrateKbps: 2000)

    public var description: String {
        "\(codec.rawValue) \(width)x\(height)\(interlaced ? "i" : "p")\(fps)"
    }

    var fileName: String {
        "clip-\(codec.rawValue)-\(width)x\(height)\(interlaced ? "i" : "p")\(fps)-g\(gopSeconds)-\(seconds)s-\(bitrateKbps)k-h\(hue)-t\(toneHz)\(colour.map { "-c" + String($0, radix: 16) } ?? "").ts"
    }

    /// The clip in `directory`, made with ffmpeg when it is not there yet. Throws when ffmpeg
    /// is missing or fails.
    public func file(in directory: String) throws -> String {
        let path = (directory as NSString).appendingPathComponent(fileName)
        if FileManager.default.fileExists(atPath: path) { return path }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        guard let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw TransportStreamClip.Failure(description: "making test clips needs ffmpeg (run deploy/install-deps.sh)")
        }
        let gop = max(1, Int((gopSeconds * Double(fps)).rounded()))
        var video = ["-g", "\(gop)", "-keyint_min", "\(gop)", "-b:v", "\(bitrateKbps)k", "-maxrate", "\(bitrateKbps)k",
                     "-bufsize", "\(bitrateKbps)k", "-pix_fmt", "yuv420p"]
        switch codec {
        case .h264:
            video = ["-c:v", "libx264", "-preset", "veryfast", "-sc_threshold", "0"] + video
            if interlaced { video += ["-flags", "+ildct+ilme", "-x264opts", "tff=1"] }
        case .mpeg2:
            video = ["-c:v", "mpeg2video", "-bf", "2"] + video
            if interlaced { video += ["-flags", "+ildct+ilme", "-top", "1"] }
        case .hevc:
            video = ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=none:scenecut=0"] + video
        }
        var filter = colour.map { "color=c=0x\(String(format: "%06X", $0)):size=\(width)x\(height):rate=\(fps)" }
            ?? "testsrc2=size=\(width)x\(height):rate=\(fps)"
        if hue != 0 { filter += ",hue=h=\(hue)" }
        if interlaced { filter += ",setfield=tff" }
        let tmp = path + ".part.ts"
        do {
            try Self.runTool(ffmpeg, ["-loglevel", "error", "-y", "-f", "lavfi", "-i", filter,
                                      "-f", "lavfi", "-i", "sine=frequency=\(toneHz):sample_rate=48000", "-t", "\(seconds)"]
                + video + ["-c:a", "aac", "-b:a", "128k", "-f", "mpegts", tmp])
        } catch {
            try? FileManager.default.removeItem(atPath: tmp)
            throw TransportStreamClip.Failure(description: "ffmpeg could not make a \(self) clip: \(error)")
        }
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.moveItem(atPath: tmp, toPath: path)
        return path
    }

    /// Runs `tool` to its end; throws with the end of its error output when it fails.
    public static func runTool(_ tool: String, _ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        let err = Pipe()
        p.standardError = err
        try p.run()
        let message = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw TransportStreamClip.Failure(description: "\(URL(fileURLWithPath: tool).lastPathComponent) failed: \(String(decoding: message.suffix(600), as: UTF8.self))")
        }
    }

    /// The directory where generated clips are kept between runs.
    public static var cacheDirectory: String {
        (ProcessInfo.processInfo.environment["XDG_CACHE_HOME"] ?? NSHomeDirectory() + "/.cache") + "/flipbox/clips"
    }
}
