import Foundation

/// One WebVTT file (a segment of an HLS subtitle rendition): its cues and the
/// `X-TIMESTAMP-MAP` that places them on the video's MPEG-TS clock. Pure, and safe on any
/// bytes: every number is bounded before it is used (`maxSeconds`, `mpegWrap`).
///
/// Read as the WebVTT spec has it, leniently: a byte order mark, CRLF or CR line ends, cue
/// timings as `hh:mm:ss.ttt` or `mm:ss.ttt`, settings after the timing (ignored: the text is
/// drawn at the bottom, centred), `NOTE`, `STYLE` and `REGION` blocks skipped. A cue whose
/// timing cannot be read is left out and named in `problems`; the others are kept.
public struct WebVTTFile: Sendable, Hashable {
    /// One cue: from `start` to `end`, seconds on the file's own timeline, and its text lines.
    public struct Cue: Sendable, Hashable {
        public var start: Double
        public var end: Double
        /// Plain text: tags (`<i>`, `<b>`, `<c.yellow>`, `<v Roger>`, timestamps) removed and
        /// character references (`&amp;`) resolved; lines joined with `\n`.
        public var text: String
    }

    /// Where the file's time `local` (seconds) falls on the MPEG-TS clock: `mpegts`, 90 kHz.
    public struct TimestampMap: Sendable, Hashable {
        public var mpegts: Int64
        public var local: Double
    }

    public var cues: [Cue]
    /// Nil when the header has none (RFC 8216: then cue time 0 is MPEG-TS time 0).
    public var timestampMap: TimestampMap?
    /// Human messages for what was not taken, each saying what was done instead
    /// (`cue 3: "00:01.x --> 00:02.000" is no cue timing; the cue is left out`).
    public var problems: [String]

    /// Why a text is no WebVTT file at all.
    public struct NotWebVTT: Error, CustomStringConvertible {
        public var description: String
    }

    /// Parses `text`. Throws `NotWebVTT` when it does not start with the `WEBVTT` signature
    /// (an HTML error page, a playlist, a binary file).
    public init(parsing text: String) throws {
        var body = text
        if body.hasPrefix("\u{FEFF}") { body.removeFirst() }
        // Lines: CRLF, LF or CR (Swift takes "\r\n" as one character).
        let lines = body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
            .map(String.init)
        guard let header = lines.first, header.hasPrefix("WEBVTT"),
              header.count == 6 || header.dropFirst(6).first == " " || header.dropFirst(6).first == "\t" else {
            let start = text.prefix(40).replacingOccurrences(of: "\n", with: " ")
            throw NotWebVTT(description: "not a WebVTT file (it starts with \"\(start)\")")
        }
        cues = []
        problems = []
        timestampMap = nil
        // Blocks are separated by blank lines; the first is the header.
        var blocks: [[String]] = []
        var current: [String] = []
        for line in lines {
            if line.trimmingCharacters(in: .whitespaces).isEmpty {
                if !current.isEmpty { blocks.append(current); current = [] }
            } else {
                current.append(line)
            }
        }
        if !current.isEmpty { blocks.append(current) }
        guard !blocks.isEmpty else { return }
        for line in blocks[0].dropFirst() where line.hasPrefix("X-TIMESTAMP-MAP=") {
            timestampMap = Self.timestampMap(String(line.dropFirst("X-TIMESTAMP-MAP=".count)))
            if timestampMap == nil { problems.append("\"\(line)\" is no timestamp map; cue times are taken as MPEG-TS times") }
        }
        var number = 0
        for block in blocks.dropFirst() {
            let first = block[0]
            if first.hasPrefix("NOTE") || first == "STYLE" || first.hasPrefix("STYLE ") || first == "REGION" || first.hasPrefix("REGION ") {
                continue
            }
            number += 1
            // An identifier line may come before the timing.
            let timingAt = first.contains("-->") ? 0 : 1
            guard timingAt < block.count, let (start, end) = Self.timing(block[timingAt]), end >= start else {
                let shown = block[min(timingAt, block.count - 1)]
                problems.append("cue \(number): \"\(shown.prefix(60))\" is no cue timing; the cue is left out")
                continue
            }
            let text = block[(timingAt + 1)...].map(Self.plainText).joined(separator: "\n")
            cues.append(Cue(start: start, end: end, text: text))
        }
    }

    /// `start --> end [settings]`, nil when either time cannot be read.
    static func timing(_ line: String) -> (Double, Double)? {
        let parts = line.components(separatedBy: "-->")
        guard parts.count == 2 else { return nil }
        let end = parts[1].trimmingCharacters(in: .whitespaces).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init)
        guard let start = timestamp(parts[0].trimmingCharacters(in: .whitespaces)), let end, let endTime = timestamp(end) else { return nil }
        return (start, endTime)
    }

    /// The latest time a cue or a timestamp map may name: 100,000 hours (11 years). A time past
    /// it is no time (a hostile or broken file): its cue is left out, so nothing computed from
    /// it (seconds, 90 kHz ticks) can overflow.
    public static let maxSeconds: Double = 100_000 * 3600

    /// `hh:mm:ss.ttt` (hours of two digits or more) or `mm:ss.ttt`, in seconds; nil otherwise,
    /// and nil past `maxSeconds`.
    public static func timestamp(_ text: String) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, let last = parts.last else { return nil }
        let secondsParts = last.split(separator: ".", omittingEmptySubsequences: false)
        guard secondsParts.count == 2, secondsParts[0].count == 2, secondsParts[1].count == 3,
              secondsParts[0].allSatisfy(\.isASCIIDigit), secondsParts[1].allSatisfy(\.isASCIIDigit),
              let seconds = Int(secondsParts[0]), let millis = Int(secondsParts[1]), seconds < 60 else { return nil }
        let minutesText = parts[parts.count - 2]
        guard minutesText.count == 2, minutesText.allSatisfy(\.isASCIIDigit), let minutes = Int(minutesText), minutes < 60 else { return nil }
        var hours = 0
        if parts.count == 3 {
            // Digits only (no sign, no other scripts' digits); as many as there are, but a number
            // of hours past the limit is no time (`Int` itself would overflow at 19 digits).
            let digits = parts[0].drop { $0 == "0" }
            guard parts[0].count >= 2, parts[0].allSatisfy(\.isASCIIDigit), digits.count <= 6 else { return nil }
            hours = Int(digits) ?? 0
        }
        let total = Double(hours) * 3600 + Double(minutes * 60 + seconds) + Double(millis) / 1000
        return total <= maxSeconds ? total : nil
    }

    /// The MPEG-TS clock's period: its timestamps are 33 bits of 90 kHz ticks (26.5 hours).
    public static let mpegWrap: Int64 = 1 << 33

    /// `MPEGTS:900000,LOCAL:00:00:00.000` (either order), nil when a part is missing or unreadable.
    /// `MPEGTS` is a 33-bit timestamp (RFC 8216): a larger one is taken modulo 2^33, as the clock
    /// it is compared with wraps; a negative one or one that is no 64-bit number is unreadable.
    static func timestampMap(_ text: String) -> TimestampMap? {
        var mpegts: Int64?, local: Double?
        for part in text.split(separator: ",") {
            let field = part.trimmingCharacters(in: .whitespaces)
            if field.hasPrefix("MPEGTS:") {
                let digits = field.dropFirst("MPEGTS:".count)
                mpegts = digits.allSatisfy(\.isASCIIDigit) ? Int64(digits).map { $0 % mpegWrap } : nil
            }
            if field.hasPrefix("LOCAL:") { local = timestamp(String(field.dropFirst("LOCAL:".count))) }
        }
        guard let mpegts, let local else { return nil }
        return TimestampMap(mpegts: mpegts, local: local)
    }

    /// A cue text line without its tags, with its character references resolved.
    static func plainText(_ line: String) -> String {
        var out = ""
        var inTag = false
        for c in line {
            if inTag { if c == ">" { inTag = false }; continue }
            if c == "<" { inTag = true; continue }
            out.append(c)
        }
        guard out.contains("&") else { return out }
        for (reference, character) in [("&lt;", "<"), ("&gt;", ">"), ("&nbsp;", "\u{A0}"), ("&lrm;", "\u{200E}"), ("&rlm;", "\u{200F}"), ("&amp;", "&")] {
            out = out.replacingOccurrences(of: reference, with: character)
        }
        return out
    }

    /// Where `seconds` on this file's timeline falls on the MPEG-TS clock (90 kHz, not wrapped);
    /// nil when it cannot be said in 64 bits (a time no parser here gives: theirs are bounded by
    /// `maxSeconds` and the map's by 2^33, so their sum is always well inside).
    public func mpegTime(_ seconds: Double) -> Int64? {
        let map = timestampMap ?? TimestampMap(mpegts: 0, local: 0)
        guard let ticks = Int64(exactly: ((seconds - map.local) * 90_000).rounded()) else { return nil }
        let (sum, overflow) = map.mpegts.addingReportingOverflow(ticks)
        return overflow ? nil : sum
    }
}

extension Character {
    /// `0`-`9` only (`isNumber` also takes other scripts' digits and fractions, which `Int()` refuses).
    var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
