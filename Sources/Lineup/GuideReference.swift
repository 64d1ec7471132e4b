import Foundation

/// Where a guide (XMLTV) comes from, as a lineup names it (`url-tvg`, `x-tvg-url`, YAML `guide:`),
/// and the `guide-refresh` setting.
enum GuideReference {
    enum Outcome: Equatable {
        /// Usable: an `http(s)://` URL as written, or an absolute file path; `warning` when the
        /// file is not on disk (yet).
        case guide(String, warning: String?)
        case invalid(String)
    }

    /// `http(s)://` URLs are kept; `file://` URLs and paths become absolute paths, relative ones
    /// resolved against the lineup's directory. Other schemes are errors.
    static func resolve(_ raw: String, baseDirectory: String) -> Outcome {
        let text = raw.trimmingCharacters(in: .whitespaces)
        if let range = text.range(of: "://") {
            switch text[..<range.lowerBound].lowercased() {
            case "http", "https":
                guard let url = URL(string: text), let host = url.host, !host.isEmpty, !text.contains(" ") else {
                    return .invalid("guide URL '\(text)' is not a valid URL")
                }
                return .guide(text, warning: nil)
            case "file":
                guard let url = URL(string: text), url.isFileURL, !url.path.isEmpty else {
                    return .invalid("guide '\(text)' is not a valid file:// URL")
                }
                return file(url.path)
            default:
                return .invalid("guide '\(text)' has an unsupported scheme; use http://, https://, file:// or a path to an XMLTV file (.xml or .xml.gz)")
            }
        }
        return file(LogoResolution.absolutePath(text, baseDirectory: baseDirectory))
    }

    private static func file(_ path: String) -> Outcome {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        let warning: String? = if !exists {
            "guide file not found: \(path)"
        } else if isDirectory.boolValue {
            "guide is a directory, not an XMLTV file: \(path)"
        } else {
            nil
        }
        return .guide(path, warning: warning)
    }

    /// The default refresh interval: 12 hours.
    static let defaultRefresh: Duration = .seconds(12 * 3600)

    /// `guide-refresh`: `90m`, `12h`, `1d`, `3600` (seconds) or `30s`; `0` or `off`: only on
    /// request. From one minute to 30 days. Returns the interval (nil: off) or a message.
    /// `setting` names it in messages (`lineup-refresh` reads the same way).
    static func refresh(_ text: String, setting: String = "guide-refresh") -> Result<Duration?, RefreshError> {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed == "off" || trimmed == "0" || trimmed == "never" { return .success(nil) }
        let units: [(String, Double)] = [("d", 86_400), ("h", 3600), ("m", 60), ("s", 1)]
        var number = Substring(trimmed)
        var scale = 1.0
        if let unit = units.first(where: { trimmed.hasSuffix($0.0) }) {
            number = number.dropLast(unit.0.count)
            scale = unit.1
        }
        guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value.isFinite else {
            return .failure(RefreshError(.notADuration, "\(setting) \"\(text)\" is not a duration; write e.g. 12h, 90m, 1d or off"))
        }
        let seconds = value * scale
        guard (60...30 * 86_400).contains(seconds) else {
            return .failure(RefreshError(.outOfRange, "\(setting) \"\(text)\" is out of range; use 1m to 30d, or off"))
        }
        return .success(.milliseconds(Int64(seconds * 1000)))
    }

    /// A refresh interval that cannot be used; the message names the setting.
    typealias RefreshError = Failure<RefreshCode>

    enum RefreshCode: String, FailureCode {
        /// Not a number with an optional unit (`d`, `h`, `m`, `s`), nor `off`.
        case notADuration
        /// Shorter than a minute or longer than 30 days.
        case outOfRange

        var kind: FailureKind { .badRequest }
    }
}
