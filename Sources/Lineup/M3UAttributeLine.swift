import Foundation

/// The parts of an `#EXTINF:` or `#EXTM3U` line: `<duration> key="value" ...,Display Name`.
///
/// Values may be double-quoted, single-quoted or bare; the display name starts
/// after the first comma outside quotes. Never fails: problems are collected
/// in `errors` and `warnings` and parsing recovers as well as it can.
struct M3UAttributeLine {
    struct Attribute: Hashable {
        var key: String
        var value: String
    }

    var duration: String?
    /// Attributes in the order written; keys lower-cased.
    var attributes: [Attribute] = []
    /// Text after the first comma outside quotes, trimmed; nil when there is no such comma.
    var name: String?
    /// Human messages for parts that make the line unusable (an unterminated quote).
    var errors: [String] = []
    /// Human messages for odd but harmless parts (an attribute without a name).
    var warnings: [String] = []

    /// Parses the text after `#EXTINF:` (`isHeader` false) or after `#EXTM3U` (`isHeader` true).
    ///
    /// In a header there is no duration, and a bare value may contain commas
    /// (`url-tvg=http://a,http://b`).
    init(_ text: Substring, isHeader: Bool) {
        let chars = Array(text)
        var i = 0

        func skipSpaces() { while i < chars.count, chars[i].isWhitespace { i += 1 } }

        skipSpaces()
        if !isHeader {
            var token = ""
            var j = i
            while j < chars.count, !chars[j].isWhitespace, chars[j] != "," {
                token.append(chars[j])
                j += 1
            }
            if !token.contains("=") {
                duration = token.isEmpty ? nil : token
                i = j
            }
        }

        while true {
            skipSpaces()
            guard i < chars.count else { break }
            if chars[i] == "," {
                name = String(chars[(i + 1)...]).trimmingCharacters(in: .whitespaces)
                break
            }
            var key = ""
            while i < chars.count, !chars[i].isWhitespace, chars[i] != "=", chars[i] != "," {
                key.append(chars[i])
                i += 1
            }
            var value = ""
            if i < chars.count, chars[i] == "=" {
                i += 1
                if i < chars.count, chars[i] == "\"" || chars[i] == "'" {
                    let quote = chars[i]
                    i += 1
                    guard let close = chars[i...].firstIndex(of: quote) else {
                        let label = key.isEmpty ? "an attribute" : "attribute '\(key)'"
                        errors.append("\(label) has an opening \(quote) but no closing \(quote)")
                        // Recover: the name is whatever follows the last comma.
                        if !isHeader, let comma = chars[i...].lastIndex(of: ",") {
                            name = String(chars[(comma + 1)...]).trimmingCharacters(in: .whitespaces)
                        }
                        break
                    }
                    value = String(chars[i..<close])
                    i = close + 1
                } else {
                    while i < chars.count, !chars[i].isWhitespace, isHeader || chars[i] != "," {
                        value.append(chars[i])
                        i += 1
                    }
                }
            }
            if key.isEmpty {
                warnings.append("an attribute has no name before '='")
                continue
            }
            attributes.append(Attribute(key: key.lowercased(), value: value))
        }
    }

    /// The first non-empty value for `key` (empty values count as absent).
    func value(_ key: String) -> String? {
        attributes.first { $0.key == key && !$0.value.trimmingCharacters(in: .whitespaces).isEmpty }?
            .value.trimmingCharacters(in: .whitespaces)
    }

    /// Every non-empty attribute, first occurrence of a key wins.
    var nonEmptyAttributes: [String: String] {
        var result: [String: String] = [:]
        for attribute in attributes where result[attribute.key] == nil {
            let value = attribute.value.trimmingCharacters(in: .whitespaces)
            if !value.isEmpty { result[attribute.key] = value }
        }
        return result
    }
}
