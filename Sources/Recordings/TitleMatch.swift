import Foundation

/// How a rule names the programmes it wants: the exact title (case and surrounding spaces
/// ignored) or a regular expression found anywhere in the title (Swift `Regex` syntax; `(?i)`
/// for case-insensitive).
public enum TitleMatch: Hashable, Sendable, Codable {
    case exact(String)
    case pattern(String)

    /// The title or pattern as written.
    public var text: String {
        switch self {
        case .exact(let title), .pattern(let title): title
        }
    }

    /// Checks that a pattern compiles; throws ``RecordingError`` `.badPattern` naming the
    /// pattern, the character where it fails and why.
    public func validate() throws(RecordingError) {
        _ = try TitleMatcher(self)
    }
}

/// A compiled ``TitleMatch``, for one scheduling pass (a `Regex` is not `Sendable`).
struct TitleMatcher {
    private let exact: String?
    private let regex: Regex<AnyRegexOutput>?

    init(_ match: TitleMatch) throws(RecordingError) {
        switch match {
        case .exact(let title):
            exact = TitleMatcher.folded(title)
            regex = nil
        case .pattern(let pattern):
            exact = nil
            do {
                regex = try Regex(pattern)
            } catch {
                throw RecordingError(.badPattern, TitleMatcher.explain(error, in: pattern), source: pattern)
            }
        }
    }

    /// `folded`: ``folded(_:)`` of `title`, when the caller has it already.
    func matches(_ title: String, folded: String? = nil) -> Bool {
        if let exact { return (folded ?? TitleMatcher.folded(title)) == exact }
        guard let regex else { return false }
        return (try? regex.firstMatch(in: title)) != nil
    }

    static func folded(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// "the pattern `a(b` does not compile at character 4: expected ')'". The position comes
    /// from the parser's diagnostic (`location.range`); when it cannot be read, only the reason.
    static func explain(_ error: any Error, in pattern: String) -> String {
        let reason = String(describing: error)
        guard let index = failureIndex(of: error), index <= pattern.endIndex else {
            return "the pattern `\(pattern)` does not compile: \(reason)"
        }
        let offset = pattern.distance(from: pattern.startIndex, to: index) + 1
        return "the pattern `\(pattern)` does not compile at character \(offset): \(reason)"
    }

    private static func failureIndex(of error: any Error) -> String.Index? {
        for child in Mirror(reflecting: error).children where child.label == "location" {
            for part in Mirror(reflecting: child.value).children where part.label == "range" {
                if let range = part.value as? Range<String.Index> { return range.lowerBound }
            }
        }
        return nil
    }
}
