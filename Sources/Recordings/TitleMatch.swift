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
            if let at = TitleMatcher.repeatedRepetition(in: pattern) {
                throw RecordingError(.badPattern, "the pattern `\(pattern)` repeats a group that repeats or has alternatives (character \(at)): "
                                     + "such a pattern can take the scheduler hours on one title; write it without, e.g. `News+` for `(News)+`", source: pattern)
            }
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
        // A guide's title is no longer than this in practice; the bound keeps one match cheap.
        return (try? regex.firstMatch(in: String(title.prefix(Self.titleLimit)))) != nil
    }

    /// The characters of a title a pattern is matched against.
    static let titleLimit = 256

    /// Where a pattern repeats (`*`, `+`, `{`) a group holding a repetition or alternatives, as
    /// `(a+)+` or `(a|a)*` (1-based, the group's closing parenthesis); nil when it does not. Such
    /// patterns backtrack exponentially, and Swift's `Regex` cannot be stopped in the middle.
    static func repeatedRepetition(in pattern: String) -> Int? {
        let characters = Array(pattern)
        var risky: [Bool] = []   // per open group: it holds a repetition or an alternative
        var i = 0
        func quantifierFollows(_ j: Int) -> Bool { j < characters.count && "*+{".contains(characters[j]) }
        while i < characters.count {
            let c = characters[i]
            switch c {
            case "\\":
                i += 1
            case "[":
                // A class: skip to its closing bracket (a `]` first in it is literal).
                i += 1
                if i < characters.count, characters[i] == "^" { i += 1 }
                if i < characters.count, characters[i] == "]" { i += 1 }
                while i < characters.count, characters[i] != "]" {
                    if characters[i] == "\\" { i += 1 }
                    i += 1
                }
            case "(":
                risky.append(false)
            case ")":
                let inner = risky.popLast() ?? false
                if inner, quantifierFollows(i + 1) { return i + 1 }
                if inner || quantifierFollows(i + 1), !risky.isEmpty { risky[risky.count - 1] = true }
            case "|":
                if !risky.isEmpty { risky[risky.count - 1] = true }
            case "*", "+", "{":
                if !risky.isEmpty { risky[risky.count - 1] = true }
            default:
                break
            }
            i += 1
        }
        return nil
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
