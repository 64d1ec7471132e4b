import Foundation

/// Turns a logo as written in a lineup into a `LogoReference`.
///
/// `http(s)://` becomes `.remote`; `file://` and paths become `.file` with an
/// absolute path, relative paths resolved against the lineup's directory.
enum LogoResolution {
    enum Outcome: Equatable {
        /// Usable; `warning` tells e.g. that the file is not on disk (yet).
        case logo(LogoReference, warning: String?)
        /// Not usable; the channel gets no logo and the message becomes a warning.
        case ignored(String)
    }

    static func resolve(_ raw: String, baseDirectory: String) -> Outcome {
        let text = raw.trimmingCharacters(in: .whitespaces)
        if let range = text.range(of: "://") {
            switch text[..<range.lowerBound].lowercased() {
            case "http", "https":
                let url = URL(string: text)
                    ?? text.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed).flatMap(URL.init(string:))
                guard let url, let host = url.host, !host.isEmpty else {
                    return .ignored("logo URL '\(text)' is not valid; the channel has no logo")
                }
                return .logo(.remote(url), warning: nil)
            case "file":
                guard let url = URL(string: text), url.isFileURL, !url.path.isEmpty else {
                    return .ignored("logo URL '\(text)' is not a valid file:// URL; the channel has no logo")
                }
                return file(url.path)
            default:
                return .ignored("logo '\(text)' has an unsupported scheme (use http://, https://, file:// or a path); the channel has no logo")
            }
        }
        if text.hasPrefix("data:") {
            return .ignored("inline data: logos are not supported; the channel has no logo")
        }
        return file(absolutePath(text, baseDirectory: baseDirectory))
    }

    /// A logo file: refused under `/proc`, `/sys` and `/dev` (links resolved), and when it is on
    /// disk but no picture (``LogoImage``); a missing file is kept with a warning (it may come later).
    private static func file(_ path: String) -> Outcome {
        if case .failure(let refusal) = LogoSourcePolicy.resolveFile(path) {
            return .ignored("logo \(path): refused: \(refusal); the channel has no logo")
        }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if !exists { return .logo(.file(path), warning: "logo file not found: \(path)") }
        if isDirectory.boolValue { return .logo(.file(path), warning: "logo is a directory, not an image: \(path)") }
        if case .failure(let refusal) = LogoCache.checkedFile(path) {
            return .ignored("\(refusal); the channel has no logo")
        }
        return .logo(.file(path), warning: nil)
    }

    /// `path` made absolute: `~` expanded, relative paths joined to `baseDirectory`, `..` removed.
    static func absolutePath(_ path: String, baseDirectory: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        let joined = expanded.hasPrefix("/") ? expanded : (baseDirectory as NSString).appendingPathComponent(expanded)
        var parts: [Substring] = []
        for part in joined.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }
}
