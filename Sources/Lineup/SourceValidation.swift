import Foundation

/// Checks one source URL of a channel and normalises file paths to `file://` URLs.
enum SourceValidation {
    enum Outcome: Equatable {
        /// Usable; `url` is the normalised form, `warning` something the user may want to know.
        case valid(url: String, warning: String?)
        case invalid(String)
    }

    static let supportedList = SourceScheme.allCases.map { "\($0.rawValue)://" }.joined(separator: ", ")

    /// Validates `raw`; relative paths resolve against `baseDirectory`.
    static func check(_ raw: String, baseDirectory: String) -> Outcome {
        let text = raw.trimmingCharacters(in: .whitespaces)
        if text.isEmpty { return .invalid("the source URL is empty") }

        if let range = text.range(of: "://") {
            let scheme = String(text[..<range.lowerBound])
            guard isSchemeName(scheme) else {
                return .invalid("'\(text)' is not a valid URL")
            }
            guard let known = SourceScheme(rawValue: scheme.lowercased()) else {
                return .invalid("unsupported source scheme '\(scheme)' in '\(text)'; supported: \(supportedList) and file paths")
            }
            return check(text, scheme: known)
        }

        if looksLikePath(text) {
            let path = LogoResolution.absolutePath(text, baseDirectory: baseDirectory)
            let url = URL(fileURLWithPath: path).absoluteString
            let warning = FileManager.default.fileExists(atPath: path) ? nil : "source file not found: \(path)"
            return .valid(url: url, warning: warning)
        }
        return .invalid("'\(text)' has no scheme; write a URL such as http://host/stream.ts or udp://@239.0.0.1:1234, or a file path")
    }

    private static func check(_ text: String, scheme: SourceScheme) -> Outcome {
        switch scheme {
        case .test:
            do {
                _ = try TestSourceSpec(url: text)
                return .valid(url: text, warning: nil)
            } catch {
                return .invalid(error.message)
            }
        case .file:
            guard let url = URL(string: text), url.isFileURL, !url.path.isEmpty, url.path != "/" else {
                return .invalid("'\(text)' is not a valid file:// URL (write file:///absolute/path.ts)")
            }
            let warning = FileManager.default.fileExists(atPath: url.path) ? nil : "source file not found: \(url.path)"
            return .valid(url: text, warning: warning)
        default:
            guard let components = URLComponents(string: text) else {
                return .invalid("'\(text)' is not a valid URL (spaces and other special characters must be percent-encoded)")
            }
            let host = components.host ?? ""
            if scheme.needsHost, host.isEmpty {
                return .invalid("'\(text)' has no host")
            }
            if scheme.needsPort, components.port == nil {
                let example = scheme == .srt ? "srt://host:9000" : "\(scheme.rawValue)://@239.0.0.1:1234"
                return .invalid("'\(text)' has no port (write e.g. \(example))")
            }
            return .valid(url: text, warning: nil)
        }
    }

    /// RFC 3986: a letter, then letters, digits, `+`, `-`, `.`.
    private static func isSchemeName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
        return text.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0))
        }
    }

    /// Absolute (`/`), home (`~/`) and relative (`./`, `../`, `dir/x.ts`, `x.ts`) paths; nothing with a `:`.
    private static func looksLikePath(_ text: String) -> Bool {
        if text.hasPrefix("/") || text.hasPrefix("~/") || text.hasPrefix("./") || text.hasPrefix("../") { return true }
        if text.contains(":") { return false }
        return text.contains("/") || !(text as NSString).pathExtension.isEmpty
    }
}
