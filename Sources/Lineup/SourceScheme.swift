import Foundation

/// The source URL schemes a lineup may use.
public enum SourceScheme: String, Sendable, Hashable, CaseIterable {
    /// MPEG-TS over UDP: `udp://@239.0.0.1:1234` (multicast) or `udp://127.0.0.1:5000`.
    case udp
    /// RTP carrying MPEG-TS: `rtp://@239.0.0.1:5004`.
    case rtp
    /// MPEG-TS, progressive files or HLS (`.m3u8`) over HTTP.
    case http
    case https
    case rtsp
    case rtsps
    /// SRT caller or listener: `srt://host:9000`, `srt://:9000?mode=listener`.
    case srt
    /// A local file, looped as if live.
    case file
    /// A synthetic channel, see `TestSourceSpec`.
    case test

    /// The scheme of `url` (`udp://...` -> `.udp`); nil without `://` or when unsupported.
    public init?(url: String) {
        guard let range = url.range(of: "://") else { return nil }
        self.init(rawValue: url[..<range.lowerBound].lowercased())
    }

    /// Schemes that must name a host (others may listen on all interfaces).
    var needsHost: Bool { [.http, .https, .rtsp, .rtsps].contains(self) }

    /// Schemes that must name a port.
    var needsPort: Bool { [.udp, .rtp, .srt].contains(self) }
}
