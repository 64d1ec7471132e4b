import GStreamer

/// The file format of a clip: MP4, Matroska or MPEG transport stream. The compressed streams go
/// in unchanged (remuxed, never re-encoded).
public enum ClipContainer: String, Sendable, Codable, CaseIterable {
    case mp4, mkv, ts

    /// The GStreamer muxer that writes it.
    var muxer: String {
        switch self {
        case .mp4: "mp4mux faststart=true"
        case .mkv: "matroskamux"
        case .ts: "mpegtsmux"
        }
    }

    /// Why this container cannot hold a picture of `caps` (nil when it can). MP4 (`mp4mux`)
    /// takes H.264 and H.265 but not MPEG-2 video; Matroska and TS take all three.
    func refusal(video caps: Caps) -> String? {
        guard self == .mp4, caps.mediaType == "video/mpeg", caps.int("mpegversion") != 4 else { return nil }
        return "MPEG-\(caps.int("mpegversion") ?? 2) video cannot go in an MP4 clip; ask for mkv or ts"
    }

    /// The parser chain that puts the video of an exact clip in this container: H.264 and
    /// H.265 with their parameter sets in band (`avc3`, `hev1`), so the re-encoded ends' sets and
    /// the copied middle's can follow one another (TS carries them in band anyway). Nil: the
    /// plain parser.
    func exactParser(for caps: Caps) -> String? {
        guard self != .ts else { return nil }
        switch caps.mediaType {
        case "video/x-h264": return "h264parse config-interval=-1 ! video/x-h264,stream-format=avc3,alignment=au"
        case "video/x-h265": return "h265parse config-interval=-1 ! video/x-h265,stream-format=hev1,alignment=au"
        default: return nil
        }
    }

    public var mimeType: String {
        switch self {
        case .mp4: "video/mp4"
        case .mkv: "video/x-matroska"
        case .ts: "video/mp2t"
        }
    }
}
