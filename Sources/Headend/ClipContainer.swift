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

    public var mimeType: String {
        switch self {
        case .mp4: "video/mp4"
        case .mkv: "video/x-matroska"
        case .ts: "video/mp2t"
        }
    }
}
