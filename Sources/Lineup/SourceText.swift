import Foundation
import Synchronization

/// Source URLs as they may be shown in a log line, a channel's state or the API: an IPTV
/// account's stream URLs carry its password (`/live/USER/PASSWORD/1.ts`, `?password=…`), which
/// no message may. ``shown(_:)`` masks, in any text, a URL's user-info password, the values of
/// `password=`, `pass=`, `passwd=` and `token=` query parameters, and every secret registered at
/// run time (``register(secret:)``: a provider registers its account's password when it reads it).
public enum SourceText {
    /// What stands for a secret in shown text.
    public static let mask = "•••"

    /// Secrets registered at run time (longest first, so a secret inside another is masked whole).
    private static let secrets = Mutex<[String]>([])

    /// Registers `secret` (and its percent-encoded form, as it appears in a URL) to be masked in
    /// every text shown from now on. Secrets shorter than 3 characters are not registered (they
    /// would mask ordinary words); their URLs are still masked by their place.
    public static func register(secret: String) {
        guard secret.count >= 3, secret.count <= 1024 else { return }
        let encoded = secret.addingPercentEncoding(withAllowedCharacters: .urlUnreserved) ?? secret
        secrets.withLock { list in
            for form in Set([secret, encoded]) where !list.contains(form) { list.append(form) }
            list.sort { $0.count > $1.count }
        }
    }

    private static let userInfo = try! NSRegularExpression(pattern: "([A-Za-z][A-Za-z0-9+.-]*://[^/\\s:@]*):[^@\\s/]*@")
    private static let query = try! NSRegularExpression(
        pattern: "([?&;](?:password|pass|passwd|token)=)[^&#\\s\"'<>]*", options: [.caseInsensitive])

    /// `text` (a URL, or a message quoting URLs) with its secrets masked.
    public static func shown(_ text: String) -> String {
        var result = text
        for secret in secrets.withLock({ $0 }) where result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: mask)
        }
        for (pattern, template) in [(userInfo, "$1:\(mask)@"), (query, "$1\(mask)")] {
            let range = NSRange(result.startIndex..., in: result)
            result = pattern.stringByReplacingMatches(in: result, range: range, withTemplate: template)
        }
        return result
    }
}

extension CharacterSet {
    /// RFC 3986's unreserved characters: letters, digits, `-._~`.
    public static let urlUnreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
