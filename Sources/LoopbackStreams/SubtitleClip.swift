import Foundation

/// An MPEG-TS clip of a dark H.264 picture with subtitles, made by GStreamer's own encoders
/// (`gst-launch-1.0`) and cached by name:
///
/// - `dvb`: a DVB subtitle stream tagged with a language (`dvbsubenc`, muxed by `mpegtsmux`),
///   a new page every second showing a white bar across the lower part of the picture (the
///   encoder's antialiased text does not survive GStreamer's own decoder, a solid shape does);
/// - `captions`: CEA-708 closed captions in the H.264 SEI (`cccombiner` into `x264enc`): service 1
///   writes `HELLO` in white, low in the middle, once a second;
/// - `cea608`: CEA-608 captions (CC1) in the same place of the stream, a pop-on `HELLO`.
public struct SubtitleClip: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case dvb(language: String)
        case captions
        /// CEA-608 captions only (CC1, pop-on `HELLO` on the bottom row, once a second), in the
        /// same `cc_data` of the H.264 SEI.
        case cea608
    }

    public var kind: Kind
    public var width: Int
    public var height: Int
    public var fps: Int
    public var seconds: Int
    /// The picture's colour (0xRRGGBB), dark so the subtitles stand out.
    public var colour: UInt32

    public init(_ kind: Kind, width: Int = 720, height: Int = 576, fps: Int = 25, seconds: Int = 6, colour: UInt32 = 0x102040) {
        self.kind = kind
        self.width = width
        self.height = height
        self.fps = fps
        self.seconds = seconds
        self.colour = colour
    }

    /// Where the subtitle shows, as fractions of the picture (x, y, width, height).
    public var region: (x: Double, y: Double, width: Double, height: Double) {
        switch kind {
        case .dvb: (0.25, 0.84, 0.5, 0.08)
        case .captions: (0.35, 0.62, 0.3, 0.12)
        case .cea608: (0.42, 0.82, 0.16, 0.08)
        }
    }

    var fileName: String {
        let what = switch kind {
        case .dvb(let language): "dvbsub-\(language)"
        case .captions: "cea708"
        case .cea608: "cea608"
        }
        return "subtitles-\(what)-\(width)x\(height)p\(fps)-\(seconds)s-c\(String(colour, radix: 16)).ts"
    }

    /// The clip in `directory`, made when it is not there yet. Throws when `gst-launch-1.0` is
    /// missing or fails.
    public func file(in directory: String) throws -> String {
        try ClipFormat.cached(fileName, in: directory, tool: "gst-launch-1.0", what: "a subtitle clip") { launch, tmp in
            let captions = tmp + ".cc"
            defer { try? FileManager.default.removeItem(atPath: captions) }
            switch kind {
            case .captions: try Data(Self.captionData(frames: fps * seconds, fps: fps)).write(to: URL(fileURLWithPath: captions))
            case .cea608: try Data(Self.cea608Data(frames: fps * seconds, fps: fps)).write(to: URL(fileURLWithPath: captions))
            case .dvb: break
            }
            try ClipFormat.runTool(launch, ["-q"] + pipeline(output: tmp, captions: captions).split(separator: " ").map(String.init))
        }
    }

    /// The `gst-launch-1.0` pipeline (words separated by single spaces, no quoting needed).
    func pipeline(output: String, captions: String) -> String {
        let frames = fps * seconds
        let picture = "videotestsrc pattern=solid-color foreground-color=\(0xFF00_0000 | colour) num-buffers=\(frames)"
            + " ! video/x-raw,format=I420,width=\(width),height=\(height),framerate=\(fps)/1"
        let encode = "x264enc tune=zerolatency speed-preset=ultrafast key-int-max=\(fps) bitrate=600 ! h264parse ! mux."
        let mux = "mpegtsmux name=mux ! filesink location=\(output)"
        switch kind {
        case .dvb(let language):
            let r = region
            let bar = (w: Int(Double(width) * r.width), h: Int(Double(height) * r.height))
            let left = Int(Double(width) * r.x), top = Int(Double(height) * r.y)
            let page = "videotestsrc pattern=white num-buffers=\(seconds) ! video/x-raw,format=AYUV,width=\(bar.w),height=\(bar.h),framerate=1/1"
                + " ! videobox border-alpha=0 left=-\(left) right=-\(width - bar.w - left) top=-\(top) bottom=-\(height - bar.h - top)"
                + " ! video/x-raw,format=AYUV,width=\(width),height=\(height) ! dvbsubenc ! taginject tags=language-code=\(language) ! mux."
            return "\(picture) ! \(encode) \(page) \(mux)"
        case .captions, .cea608:
            let data = "filesrc location=\(captions) ! rawvideoparse width=\(Self.tripletsPerFrame * 3) height=1 format=gray8 framerate=\(fps)/1"
                + " plane-strides=<\(Self.tripletsPerFrame * 3)> ! capssetter join=false replace=true caps=closedcaption/x-cea-708,format=cc_data,framerate=\(fps)/1 ! cc.caption"
            return "\(picture) ! cccombiner name=cc ! \(encode) \(data) \(mux)"
        }
    }

    static let tripletsPerFrame = 10

    /// `cc_data` with CEA-608 pairs only (field 1, one pair a frame): once a second a pop-on
    /// caption `HELLO` on the bottom row (each control code sent twice, as the standard does).
    static func cea608Data(frames: Int, fps: Int) -> [UInt8] {
        func odd(_ b: UInt8) -> UInt8 { b.nonzeroBitCount % 2 == 0 ? b | 0x80 : b }
        let codes: [(UInt8, UInt8)] = [(0x14, 0x20), (0x14, 0x2E), (0x14, 0x70)]   // loading, erase off screen, row 15
        let text: [(UInt8, UInt8)] = [(0x48, 0x45), (0x4C, 0x4C), (0x4F, 0x20)]                 // HE LL O
        let pairs: [(UInt8, UInt8)] = codes.flatMap { [$0, $0] } + text + [(0x14, 0x2F), (0x14, 0x2F)]  // end of caption
        var out: [UInt8] = []
        for frame in 0..<frames {
            let pair: (UInt8, UInt8) = pairs.indices.contains(frame % fps) ? pairs[frame % fps] : (0, 0)
            out += [0xFC, odd(pair.0), odd(pair.1)]
            for _ in 1..<tripletsPerFrame { out += [0xFA, 0, 0] }
        }
        return out
    }

    /// CEA-708 `cc_data` for `frames` frames, `tripletsPerFrame` triplets each: once a second a
    /// DTVCC packet whose service 1 clears its windows, defines window 0 (visible, anchored low
    /// in the middle), writes `HELLO` and shows it; padding otherwise.
    static func captionData(frames: Int, fps: Int) -> [UInt8] {
        var service: [UInt8] = [0x88, 0x01]                       // ClearWindows 0
        service += [0x98, 0x38, 0xD0, 0x32, 0x70, 0x1F, 0x09]      // DefineWindow 0: visible, 80 % down, centred, 1 row, 32 columns
        service += Array("HELLO".utf8) + [0x03, 0x89, 0x01]        // text, ETX, DisplayWindows 0
        var block = [UInt8(1 << 5 | service.count)] + service     // service 1
        if (block.count + 1) % 2 == 1 { block.append(0) }
        var out: [UInt8] = []
        for frame in 0..<frames {
            var triplets: [[UInt8]] = []
            if frame % fps == 0 {
                let packet = [UInt8((frame / fps) % 4) << 6 | UInt8((block.count + 1) / 2)] + block
                for i in stride(from: 0, to: packet.count, by: 2) {
                    triplets.append([i == 0 ? 0xFF : 0xFE, packet[i], packet[i + 1]])
                }
            }
            while triplets.count < tripletsPerFrame { triplets.append([0xFA, 0, 0]) }
            out += triplets.joined()
        }
        return out
    }
}
