import Foundation

/// What a generated MPEG-TS clip holds: codec, size, scan, keyframe interval, colours, audio
/// tracks. Clips are made once by ffmpeg (a moving test picture, or a solid colour, with a tone
/// per audio track) and cached by name.
public struct ClipFormat: Sendable, Hashable, CustomStringConvertible {
    public enum Codec: String, Sendable, Hashable {
        /// H.264 High with B-frames (x264 `veryfast`, so frames are reordered).
        case h264
        /// MPEG-2 video.
        case mpeg2
        /// HEVC (x265 `ultrafast`).
        case hevc
    }

    /// How an audio track is coded.
    public enum AudioCodec: String, Sendable, Hashable {
        /// AAC in ADTS.
        case aac
        /// AAC in LATM/LOAS (as DVB-T2 sends it).
        case latm
        /// MPEG-1 Layer II.
        case mp2
        case ac3
        case eac3
    }

    /// One audio track: a sine tone, optionally tagged with a language (ISO 639-2, `deu`).
    public struct AudioTrack: Sendable, Hashable {
        public var toneHz: Int
        public var language: String?
        /// Audio description: muxed with audio type 3 ("visual impaired commentary") in its
        /// ISO 639 language descriptor, as broadcasters mark it.
        public var describesPicture: Bool
        public init(toneHz: Int, language: String? = nil, describesPicture: Bool = false) {
            self.toneHz = toneHz
            self.language = language
            self.describesPicture = describesPicture
        }
    }

    /// Where the muxer puts the programme, as a re-mux announces it: the PMT's PID, the first
    /// elementary stream's PID (the others follow it), and the version of the PAT and PMT.
    public struct ProgramLayout: Sendable, Hashable {
        public var pmtPID: Int
        public var firstStreamPID: Int
        public var tablesVersion: Int
        public init(pmtPID: Int, firstStreamPID: Int, tablesVersion: Int) {
            self.pmtPID = pmtPID
            self.firstStreamPID = firstStreamPID
            self.tablesVersion = tablesVersion
        }
    }

    /// The colours the picture is coded and tagged with.
    public enum Colours: String, Sendable, Hashable {
        /// BT.601 (SMPTE 170M), as SD broadcasts are.
        case bt601
        /// BT.709, as HD broadcasts are.
        case bt709
        /// BT.2020 with the PQ transfer (HDR10), 10-bit.
        case bt2020pq
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
    /// The audio codec of every track.
    public var audioCodec: AudioCodec = .aac
    /// The audio tracks; empty: one untagged track at `toneHz`.
    public var audioTracks: [AudioTrack] = []
    /// False for a radio channel (sound only).
    public var hasVideo = true
    /// Coded and tagged colours; nil: ffmpeg's defaults, untagged.
    public var colours: Colours?
    /// The brightest light of the programme (MaxCLL, cd/m²) that an HEVC clip's SEI carries, as
    /// HDR10 masters say it; nil: no such SEI.
    public var maxContentLight: Int?
    /// Interlaced with motion between the fields (the picture made at the field rate and woven),
    /// instead of both fields from one moment.
    public var fieldMotion = false
    /// The programme's PIDs and tables version; nil: ffmpeg's (PMT 0x1000, streams from 0x100,
    /// version 0).
    public var layout: ProgramLayout?
    /// How an H.264 clip's pictures refer to each other, when not closed GOPs starting at IDRs.
    public var structure: Structure?

    /// Stream structures broadcasters use besides closed GOPs.
    public enum Structure: String, Sendable, Hashable {
        /// Open GOPs: after the first, keyframes are I-frames (not IDR) whose leading B-frames
        /// refer to the GOP before.
        case openGOP = "open-gop"
        /// Periodic intra refresh: one IDR at the start, then a column of intra blocks sweeps
        /// the picture every GOP, marked by recovery-point SEI messages instead of keyframes.
        case recoveryPoints = "recovery-points"
    }

    /// The audio tracks as sent.
    public var tracks: [AudioTrack] { audioTracks.isEmpty ? [AudioTrack(toneHz: toneHz)] : audioTracks }

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

    /// A radio channel: `tracks` in `codec`, no picture.
    public static func radio(_ codec: AudioCodec, toneHz: Int = 440, seconds: Double = 6) -> ClipFormat {
        var f = ClipFormat(gopSeconds: 1, seconds: seconds, toneHz: toneHz)
        f.hasVideo = false
        f.audioCodec = codec
        return f
    }

    public var description: String {
        let video = hasVideo ? "\(codec.rawValue) \(width)x\(height)\(interlaced ? "i" : "p")\(fps)" : "radio"
        let audio = audioCodec == .aac && audioTracks.count <= 1 ? "" : " \(audioCodec.rawValue)\(tracks.count > 1 ? "×\(tracks.count)" : "")"
        return video + audio
    }

    var fileName: String {
        let base = "clip-\(hasVideo ? codec.rawValue : "radio")-\(width)x\(height)\(interlaced ? "i" : "p")\(fps)-g\(gopSeconds)-\(seconds)s-\(bitrateKbps)k-h\(hue)-t\(toneHz)\(colour.map { "-c" + String($0, radix: 16) } ?? "")"
        var extra = ""
        if audioCodec != .aac { extra += "-a" + audioCodec.rawValue }
        if !audioTracks.isEmpty { extra += "-" + audioTracks.map { "\($0.toneHz)\($0.language ?? "")\($0.describesPicture ? "ad" : "")" }.joined(separator: "+") }
        if let colours { extra += "-" + colours.rawValue }
        if let maxContentLight { extra += "-cll\(maxContentLight)" }
        if fieldMotion { extra += "-fm" }
        if let structure { extra += "-" + structure.rawValue }
        if let layout { extra += "-pmt\(layout.pmtPID)-es\(layout.firstStreamPID)-v\(layout.tablesVersion)" }
        return base + extra + ".ts"
    }

    /// The clip in `directory`, made with ffmpeg when it is not there yet. Throws when ffmpeg
    /// is missing or fails.
    public func file(in directory: String) throws -> String {
        try Self.cached(fileName, in: directory, tool: "ffmpeg", what: "a \(self) clip") { ffmpeg, tmp in
            try Self.runTool(ffmpeg, ffmpegArguments(output: tmp))
        }
    }

    /// The clip `name` in `directory`, made by `make` (with the path of `tool` and a temporary
    /// file or directory to write, moved into place once whole) when it is not there yet. Throws when `tool`
    /// is missing or `make` fails.
    static func cached(_ name: String, in directory: String, tool: String, what: String,
                       make: (_ tool: String, _ output: String) throws -> Void) throws -> String {
        let path = (directory as NSString).appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: path) { return path }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        guard let executable = ["/usr/bin/", "/usr/local/bin/"].map({ $0 + tool }).first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw TransportStreamClip.Failure(description: "making test clips needs \(tool) (run deploy/install-deps.sh)")
        }
        // A name of this maker's own: test suites run in parallel and may make the same clip at
        // the same time (a shared name had one maker move the other's file away).
        let tmp = path + ".\(getpid())-\(UUID().uuidString.prefix(8)).part.ts"
        do {
            try make(executable, tmp)
        } catch {
            try? FileManager.default.removeItem(atPath: tmp)
            throw TransportStreamClip.Failure(description: "\(tool) could not make \(what): \(error)")
        }
        // rename(2) puts a file in place whole, replacing one that another maker put there
        // meanwhile (as good as this one); a directory it cannot replace is theirs, kept.
        if rename(tmp, path) != 0 {
            let code = errno
            try? FileManager.default.removeItem(atPath: tmp)
            guard FileManager.default.fileExists(atPath: path) else {
                throw TransportStreamClip.Failure(description: "cannot put \(what) in place at \(path): errno \(code)")
            }
        }
        return path
    }

    /// ffmpeg's arguments for this clip, written to `output`.
    func ffmpegArguments(output: String) -> [String] {
        let gop = max(1, Int((gopSeconds * Double(fps)).rounded()))
        var inputs: [String] = []
        var maps: [String] = []
        var video: [String] = []
        if hasVideo {
            // With field motion the picture moves between fields: made at the field rate, woven.
            let rate = fieldMotion ? fps * 2 : fps
            var filter = colour.map { "color=c=0x\(String(format: "%06X", $0)):size=\(width)x\(height):rate=\(rate)" }
                ?? "testsrc2=size=\(width)x\(height):rate=\(rate)"
            if hue != 0 { filter += ",hue=h=\(hue)" }
            if fieldMotion { filter += ",tinterlace=mode=interleave_top" }
            if interlaced { filter += ",setfield=tff" }
            switch colours {
            case .bt601: filter += ",scale=out_color_matrix=bt601:out_range=tv"
            case .bt709: filter += ",scale=out_color_matrix=bt709:out_range=tv"
            case .bt2020pq: filter += ",scale=out_color_matrix=bt2020:out_range=tv"
            case nil: break
            }
            inputs += ["-f", "lavfi", "-i", filter]
            maps += ["-map", "0:v"]
            video = ["-g", "\(gop)", "-keyint_min", "\(gop)", "-b:v", "\(bitrateKbps)k", "-maxrate", "\(bitrateKbps)k",
                     "-bufsize", "\(bitrateKbps)k", "-pix_fmt", colours == .bt2020pq ? "yuv420p10le" : "yuv420p"]
            switch codec {
            case .h264:
                video = ["-c:v", "libx264", "-preset", "veryfast", "-sc_threshold", "0"] + video
                if interlaced { video += ["-flags", "+ildct+ilme", "-x264opts", "tff=1"] }
                switch structure {
                case .openGOP: video += ["-bf", "3", "-x264-params", "open-gop=1"]
                case .recoveryPoints: video += ["-x264-params", "intra-refresh=1"]
                case nil: break
                }
            case .mpeg2:
                video = ["-c:v", "mpeg2video", "-bf", "2"] + video
                if interlaced { video += ["-flags", "+ildct+ilme", "-top", "1"] }
            case .hevc:
                let light = maxContentLight.map { ":hdr10=1:max-cll=\($0),400" } ?? ""
                video = ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=none:scenecut=0" + light] + video
            }
            switch colours {
            case .bt601: video += ["-colorspace", "smpte170m", "-color_primaries", "smpte170m", "-color_trc", "smpte170m"]
            case .bt709: video += ["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709"]
            case .bt2020pq: video += ["-colorspace", "bt2020nc", "-color_primaries", "bt2020", "-color_trc", "smpte2084"]
            case nil: break
            }
        }
        for (i, track) in tracks.enumerated() {
            inputs += ["-f", "lavfi", "-i", "sine=frequency=\(track.toneHz):sample_rate=48000"]
            maps += ["-map", "\(i + (hasVideo ? 1 : 0)):a"]
        }
        var audio: [String]
        switch audioCodec {
        case .aac, .latm: audio = ["-c:a", "aac", "-b:a", "128k"]
        case .mp2: audio = ["-c:a", "mp2", "-b:a", "192k"]
        case .ac3: audio = ["-c:a", "ac3", "-b:a", "192k"]
        case .eac3: audio = ["-c:a", "eac3", "-b:a", "192k"]
        }
        for (i, track) in tracks.enumerated() {
            if let language = track.language { audio += ["-metadata:s:a:\(i)", "language=\(language)"] }
            if track.describesPicture { audio += ["-disposition:a:\(i)", "visual_impaired"] }
        }
        var mux = audioCodec == .latm ? ["-mpegts_flags", "latm"] : []
        if let layout {
            mux += ["-mpegts_pmt_start_pid", "\(layout.pmtPID)", "-mpegts_start_pid", "\(layout.firstStreamPID)",
                    "-tables_version", "\(layout.tablesVersion)"]
        }
        return ["-loglevel", "error", "-y"] + inputs + ["-t", "\(seconds)"] + maps + video + audio + mux + ["-f", "mpegts", output]
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

    /// The directory where generated clips are kept between runs. Not `flipbox/clips`: there a
    /// box keeps the clips of its timeshift buffer, and every `flipbox play` removes the files it
    /// did not write (it removed these while tests and the soak were making them).
    public static var cacheDirectory: String {
        (ProcessInfo.processInfo.environment["XDG_CACHE_HOME"] ?? NSHomeDirectory() + "/.cache") + "/flipbox/test-clips"
    }
}
