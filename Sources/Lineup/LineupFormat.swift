import Foundation

/// The two lineup file formats.
public enum LineupFormat: String, Sendable, Hashable, CaseIterable {
    /// Extended M3U as IPTV playlists write it (`#EXTM3U`, `#EXTINF`).
    case m3u
    /// Flipbox's native YAML lineup (see docs/lineup.md).
    case yaml

    /// The format a file name implies: `.m3u`/`.m3u8` or `.yaml`/`.yml`; nil otherwise.
    public init?(path: String) {
        switch (path as NSString).pathExtension.lowercased() {
        case "m3u", "m3u8": self = .m3u
        case "yaml", "yml": self = .yaml
        default: return nil
        }
    }

    /// Guesses from content: M3U when the text starts with `#EXTM3U` or has an
    /// `#EXTINF` line, YAML otherwise.
    public init(sniffing text: String) {
        let head = text.drop { $0 == "\u{FEFF}" || $0.isWhitespace }
        if head.hasPrefix("#EXTM3U") || text.contains("#EXTINF:") {
            self = .m3u
        } else {
            self = .yaml
        }
    }
}
