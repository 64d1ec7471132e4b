import Lineup
import Output

/// The GStreamer elements a lineup and an output need, and the Debian package of each (for
/// `flipbox doctor`'s fixes).
enum RequiredElements {
    /// Every box: the decoders (with their subtitle and caption overlays), the output's
    /// plumbing, the cards (SVG) and logos (PNG, SVG).
    static let always = ["appsrc", "appsink", "queue", "videoconvert", "videoscale", "audioconvert", "audioresample",
                         "parsebin", "h264parse", "avdec_h264", "aacparse", "avdec_aac", "rsvgdec", "pngdec",
                         "ccextractor", "dvbsuboverlay", "cc708overlay", "textoverlay", "teletextdec"]

    /// What a channel source's ingest uses.
    static func forSource(_ source: String) -> [String] {
        if source.lowercased().hasPrefix("test://") { return ["videotestsrc", "audiotestsrc", "x264enc", "avenc_aac"] }
        switch SourceScheme(url: source) {
        case .udp: return ["udpsrc", "tsdemux"]
        case .rtp: return ["udpsrc", "rtpjitterbuffer", "rtpmp2tdepay", "tsdemux"]
        case .http, .https: return ["urisourcebin", "souphttpsrc", "tsdemux"] + (source.lowercased().contains(".m3u8") ? ["hlsdemux"] : [])
        case .rtsp, .rtsps: return ["rtspsrc"]
        case .srt: return ["srtsrc", "tsdemux"]
        case .test: return ["videotestsrc", "audiotestsrc", "x264enc", "avenc_aac"]
        case .file, nil:
            let lower = source.lowercased()
            if lower.hasSuffix(".ts") || lower.hasSuffix(".m2ts") { return ["filesrc", "tsdemux"] }
            if lower.hasSuffix(".mkv") || lower.hasSuffix(".webm") { return ["filesrc", "matroskademux"] }
            return ["filesrc", "qtdemux"]
        }
    }

    static func forOutput(_ sink: OutputSink) -> [String] {
        switch sink {
        case .kms: ["kmssink"]
        case .window: ["ximagesink", "autoaudiosink"]
        case .headless: ["fakesink"]
        }
    }

    /// The elements `lineup` and `sink` need, each once, in a stable order.
    static func needed(by lineup: Lineup?, sink: OutputSink) -> [String] {
        var all = always + forOutput(sink)
        for channel in lineup?.channels ?? [] { for source in channel.sources { all += forSource(source) } }
        var seen = Set<String>()
        return all.filter { seen.insert($0).inserted }
    }

    /// The Debian package that ships `element`.
    static func package(of element: String) -> String {
        switch element {
        case "queue", "filesrc", "fakesink": "libgstreamer1.0-0"
        case "avdec_h264", "avdec_aac", "avenc_aac": "gstreamer1.0-libav"
        case "x264enc": "gstreamer1.0-plugins-ugly"
        case "tsdemux", "h264parse", "rsvgdec", "kmssink", "hlsdemux", "srtsrc", "ccextractor", "dvbsuboverlay",
             "cc708overlay", "teletextdec": "gstreamer1.0-plugins-bad"
        case "aacparse", "udpsrc", "rtpjitterbuffer", "rtpmp2tdepay", "souphttpsrc", "rtspsrc", "qtdemux",
             "matroskademux", "pngdec", "autoaudiosink": "gstreamer1.0-plugins-good"
        case "ximagesink": "gstreamer1.0-x"
        default: "gstreamer1.0-plugins-base"
        }
    }
}
