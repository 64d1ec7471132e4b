import Foundation

/// A subtitle rendition an HLS master playlist names (`#EXT-X-MEDIA:TYPE=SUBTITLES`). Pure.
public struct HLSSubtitleRendition: Sendable, Hashable {
    /// `NAME=`: what the provider calls it (`English (CC)`).
    public var name: String
    /// `LANGUAGE=` as written (`en`, `en-US`), nil when absent.
    public var language: String?
    /// The media playlist, resolved against the master's address.
    public var url: URL
    /// `DEFAULT=YES`, `AUTOSELECT=YES`, `FORCED=YES`.
    public var isDefault: Bool
    public var autoSelect: Bool
    public var forced: Bool

    /// The SUBTITLES renditions of `master` (at `base`), in the order written: those of the
    /// group the first variant names (`SUBTITLES="subs"`), or all when no variant names one.
    /// Renditions without a `URI` (subtitles in the video segments) are left out.
    public static func renditions(inMaster master: String, base: URL) -> [HLSSubtitleRendition] {
        var found: [(group: String?, rendition: HLSSubtitleRendition)] = []
        var variantGroup: String?
        for line in HLSPlaylistLines(master) {
            if line.hasPrefix("#EXT-X-MEDIA:") {
                let a = HLSAttributes(line.dropFirst("#EXT-X-MEDIA:".count))
                guard a["TYPE"] == "SUBTITLES", let uri = a["URI"], let url = URL(string: uri, relativeTo: base)?.absoluteURL else { continue }
                let language = a["LANGUAGE"]
                found.append((a["GROUP-ID"], HLSSubtitleRendition(
                    name: a["NAME"] ?? language ?? "Subtitles", language: language, url: url,
                    isDefault: a["DEFAULT"] == "YES", autoSelect: a["AUTOSELECT"] == "YES" || a["DEFAULT"] == "YES",
                    forced: a["FORCED"] == "YES")))
            } else if line.hasPrefix("#EXT-X-STREAM-INF:"), variantGroup == nil {
                variantGroup = HLSAttributes(line.dropFirst("#EXT-X-STREAM-INF:".count))["SUBTITLES"]
            }
        }
        let group = variantGroup.flatMap { g in found.contains { $0.group == g } ? g : nil }
        return found.filter { group == nil || $0.group == group }.map(\.rendition)
    }
}

/// An HLS media playlist: its segments with their media sequence numbers. Pure.
public struct HLSMediaPlaylist: Sendable, Hashable {
    public struct Segment: Sendable, Hashable {
        public var sequence: Int
        public var url: URL
        public var duration: Double
    }

    /// `#EXT-X-TARGETDURATION`, seconds (6 when absent).
    public var targetDuration: Double
    public var segments: [Segment]
    /// `#EXT-X-ENDLIST`: the list is complete (not live).
    public var ended: Bool

    /// Nil when `text` is no playlist (`#EXTM3U` missing).
    public init?(parsing text: String, base: URL) {
        var lines = HLSPlaylistLines(text).makeIterator()
        guard lines.next()?.hasPrefix("#EXTM3U") == true else { return nil }
        targetDuration = 6
        segments = []
        ended = false
        var sequence = 0
        var duration: Double?
        while let line = lines.next() {
            if line.hasPrefix("#EXT-X-TARGETDURATION:") {
                if let t = Double(line.dropFirst("#EXT-X-TARGETDURATION:".count)), t > 0 { targetDuration = t }
            } else if line.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") {
                sequence = Int(line.dropFirst("#EXT-X-MEDIA-SEQUENCE:".count)) ?? 0
            } else if line.hasPrefix("#EXTINF:") {
                duration = Double(line.dropFirst("#EXTINF:".count).prefix { $0 != "," }) ?? 0
            } else if line.hasPrefix("#EXT-X-ENDLIST") {
                ended = true
            } else if !line.hasPrefix("#") {
                if let url = URL(string: line, relativeTo: base)?.absoluteURL {
                    segments.append(Segment(sequence: sequence, url: url, duration: duration ?? targetDuration))
                }
                sequence += 1
                duration = nil
            }
        }
    }
}

/// The non-empty lines of a playlist, trimmed (LF or CRLF).
struct HLSPlaylistLines: Sequence {
    let lines: [String]
    init(_ text: String) {
        lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
    func makeIterator() -> IndexingIterator<[String]> { lines.makeIterator() }
}

/// An HLS attribute list (`TYPE=SUBTITLES,NAME="English, CC",DEFAULT=YES`): quoted values
/// may hold commas; keys as written.
struct HLSAttributes {
    private var values: [String: String] = [:]

    init(_ text: Substring) {
        var key = "", value = "", inValue = false, quoted = false
        func finish() {
            if !key.isEmpty { values[key.trimmingCharacters(in: .whitespaces)] = value }
            key = ""; value = ""; inValue = false
        }
        for c in text {
            if quoted {
                if c == "\"" { quoted = false } else { value.append(c) }
            } else if c == "\"" && inValue {
                quoted = true
            } else if c == "," {
                finish()
            } else if c == "=" && !inValue {
                inValue = true
            } else if inValue {
                value.append(c)
            } else {
                key.append(c)
            }
        }
        finish()
    }

    subscript(_ key: String) -> String? { values[key] }
}

/// Hides the SUBTITLES renditions of a master playlist from `hlsdemux`, which would fetch their
/// playlists and fail (404) or wait (no answer) with them, and with them the whole channel:
/// `TYPE=SUBTITLES` becomes `TYPE=SUBTITLEZ`, a type it skips. Edits bytes in place as they
/// pass, across buffer boundaries. Not thread-safe: one streaming thread calls it.
struct SubtitleRenditionMask {
    private static let token = Array("TYPE=SUBTITLES".utf8)
    /// How much of `token` the bytes so far end with.
    private var matched = 0

    mutating func mask(_ bytes: UnsafeMutableRawBufferPointer) {
        for i in bytes.indices {
            let b = bytes[i]
            if b == Self.token[matched] {
                matched += 1
            } else {
                matched = b == Self.token[0] ? 1 : 0
            }
            if matched == Self.token.count {
                bytes[i] = UInt8(ascii: "Z")
                matched = 0
            }
        }
    }
}
