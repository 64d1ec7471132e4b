import Foundation

/// File names for people and media servers (Plex, Jellyfin, Kodi read them):
/// `Title/Title - S01E02 - Subtitle (2026-11-27 2000).ts`, with the parts that are unknown left
/// out, the time in the box's zone. Each path component is made safe: no `/` or `\`, no control
/// characters, no leading dots, at most ``componentBytes`` bytes of UTF-8 (cut between
/// characters), never empty.
public enum RecordingFileName {
    /// A file system's usual limit is 255 bytes; room is left for ` (2)` and `.json`.
    public static let componentBytes = 200

    /// The relative path of a recording's file, not yet one of `taken` (compared without case):
    /// a collision gets ` (2)`, ` (3)`, ... before the extension.
    public static func path(
        for programme: ProgrammeData, timeZone: TimeZone, fileExtension: String = "ts", taken: Set<String> = []
    ) -> String {
        let title = sanitised(programme.title, fallback: "Recording")
        var pieces = [title]
        if let label = programme.episode?.label { pieces.append(label) }
        if let sub = programme.subTitle.map({ sanitised($0, fallback: "") }), !sub.isEmpty { pieces.append(sub) }
        let stamp = "(\(timestamp(programme.start, timeZone: timeZone)))"
        let safeExtension = sanitised(fileExtension, fallback: "ts")
        let base = bounded(pieces.joined(separator: " - "), bytes: componentBytes - stamp.utf8.count - safeExtension.utf8.count - 2)
        let folded = Set(taken.map { $0.lowercased() })
        var number = 1
        while true {
            let suffix = number == 1 ? "" : " (\(number))"
            let candidate = "\(title)/\(base) \(stamp)\(suffix).\(safeExtension)"
            if !folded.contains(candidate.lowercased()) || number >= 10_000 { return candidate }
            number += 1
        }
    }

    /// The sidecar's path beside the file: the same name ending `.json`.
    public static func sidecarPath(for filePath: String) -> String {
        let name = filePath as NSString
        return name.pathExtension.isEmpty ? filePath + ".json" : name.deletingPathExtension + ".json"
    }

    /// `2026-11-27 2000`.
    static func timestamp(_ date: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        func two(_ n: Int?) -> String { let v = n ?? 0; return v < 10 ? "0\(v)" : "\(v)" }
        return "\(c.year ?? 1970)-\(two(c.month))-\(two(c.day)) \(two(c.hour))\(two(c.minute))"
    }

    /// One path component from guide text: separators and characters media servers and
    /// file systems refuse become `-` or go, control characters go, runs of spaces become one,
    /// leading dots and spaces go, and it is cut to ``componentBytes``.
    public static func sanitised(_ text: String, fallback: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned, .privateUse:
                out.append(" ")
                continue
            default: break
            }
            switch scalar {
            case "/", "\\", ":", "|": out.append("-")
            case "*", "?", "\"", "<", ">": continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        let words = out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        var trimmed = Substring(words)
        while let first = trimmed.first, first == "." || first == " " { trimmed = trimmed.dropFirst() }
        while let last = trimmed.last, last == " " || last == "." { trimmed = trimmed.dropLast() }
        let result = bounded(String(trimmed), bytes: componentBytes)
        return result.isEmpty ? fallback : result
    }

    /// The longest prefix of whole characters that fits in `bytes` of UTF-8, trailing spaces off.
    static func bounded(_ text: String, bytes: Int) -> String {
        guard text.utf8.count > bytes else { return text }
        var out = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            if used + size > max(0, bytes) { break }
            out.append(character)
            used += size
        }
        while out.last == " " { out.removeLast() }
        return out
    }
}
