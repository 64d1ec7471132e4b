import Failures
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

/// An HLS media playlist: its segments with their media sequence numbers. Pure, and safe on any
/// bytes: every number is bounded before it is used, and a list that breaks a bound is refused
/// with the reason (`HLSPlaylistError`), never trusted in part.
public struct HLSMediaPlaylist: Sendable, Hashable {
    public struct Segment: Sendable, Hashable {
        /// Never negative, and never past `maxSequence`.
        public var sequence: Int
        public var url: URL
        /// Seconds, finite, in 0...`maxDuration`.
        public var duration: Double
    }

    /// `#EXT-X-TARGETDURATION`, seconds (6 when absent), finite, in 0...`maxDuration`.
    public var targetDuration: Double
    public var segments: [Segment]
    /// `#EXT-X-ENDLIST`: the list is complete (not live).
    public var ended: Bool

    /// Segments listed at most: a day of 1 s segments (a longer list is no live window).
    public static let maxSegments = 86_400
    /// A media sequence number at most (RFC 8216 allows 2^64 - 1; counting on from this one
    /// for `maxSegments` stays far inside `Int`).
    public static let maxSequence = Int(Int32.max) * 1024
    /// A segment or target duration at most, seconds.
    public static let maxDuration: Double = 3600

    /// Throws `HLSPlaylistError` when `text` is no playlist (`#EXTM3U` missing) or breaks a
    /// bound (a media sequence past `maxSequence` or negative, more than `maxSegments`).
    public init(parsing text: String, base: URL) throws {
        var lines = HLSPlaylistLines(text).makeIterator()
        guard lines.next()?.hasPrefix("#EXTM3U") == true else {
            let start = text.prefix(40).replacingOccurrences(of: "\n", with: " ")
            throw HLSPlaylistError(.notAPlaylist, "is no HLS playlist (it starts with \"\(start)\")")
        }
        targetDuration = 6
        segments = []
        ended = false
        var sequence = 0
        var duration: Double?
        while let line = lines.next() {
            if line.hasPrefix("#EXT-X-TARGETDURATION:") {
                if let t = Self.seconds(line.dropFirst("#EXT-X-TARGETDURATION:".count)), t > 0 { targetDuration = t }
            } else if line.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") {
                let value = line.dropFirst("#EXT-X-MEDIA-SEQUENCE:".count)
                // Digits only: no sign; a number too long for `Int` is as out of range as a long one.
                guard value.allSatisfy(\.isASCIIDigit), let n = Int(value), n <= Self.maxSequence else {
                    throw HLSPlaylistError(.mediaSequenceOutOfRange, "names media sequence \(value.prefix(24)), which is no number from 0 to \(Self.maxSequence)")
                }
                sequence = n
            } else if line.hasPrefix("#EXTINF:") {
                duration = Self.seconds(line.dropFirst("#EXTINF:".count).prefix { $0 != "," }) ?? 0
            } else if line.hasPrefix("#EXT-X-ENDLIST") {
                ended = true
            } else if !line.hasPrefix("#") {
                guard segments.count < Self.maxSegments else {
                    throw HLSPlaylistError(.tooManySegments, "lists more than \(Self.maxSegments) segments")
                }
                if let url = URL(string: line, relativeTo: base)?.absoluteURL {
                    segments.append(Segment(sequence: sequence, url: url, duration: duration ?? targetDuration))
                }
                // At most maxSequence + maxSegments: far from overflowing.
                sequence += 1
                duration = nil
            }
        }
    }

    /// A duration in seconds: a finite decimal number in 0...`maxDuration`, nil otherwise
    /// (`nan`, `inf`, `-1`, `1e400`).
    static func seconds(_ text: Substring) -> Double? {
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite,
              (0...maxDuration).contains(value) else { return nil }
        return value
    }
}

/// Why an HLS playlist was refused; the message completes "<url> …".
public typealias HLSPlaylistError = Failure<HLSPlaylistCode>

public enum HLSPlaylistCode: String, FailureCode {
    /// The text does not start with `#EXTM3U`.
    case notAPlaylist
    /// `#EXT-X-MEDIA-SEQUENCE` is no number from 0 to `HLSMediaPlaylist.maxSequence`.
    case mediaSequenceOutOfRange
    /// More than `HLSMediaPlaylist.maxSegments` segments.
    case tooManySegments

    /// The source sent it: every refusal is the source's.
    public var kind: FailureKind { .upstream }
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
