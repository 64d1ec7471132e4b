import Foundation

/// A channel name reduced to what identifies it, so that "Das Erste HD", "das erste" and
/// "Das-Erste" meet:
///
/// 1. case and accents are folded (`Allgäu` → `allgau`);
/// 2. `&` counts as `and`;
/// 3. a trailing time shift (`+1`, `+ 2`, `+24`) is kept apart: a `+1` channel shows the same
///    programmes an hour later, so it only matches another `+1` name, never the base channel;
/// 4. trailing picture-quality words are dropped, repeatedly: `HD`, `FHD`, `UHD`, `SD`, `4K`,
///    `HEVC` (so "Arte HD" matches "Arte", and "Arte +1 HD" matches "Arte +1");
/// 5. everything that is not a letter or digit (spaces, punctuation) is removed.
///
/// Letters of other scripts are kept as they are. A name that is only quality words keeps them.
public struct ChannelNameKey: Hashable, Sendable, CustomStringConvertible {
    public let text: String

    static let qualityWords: Set<String> = ["hd", "fhd", "uhd", "sd", "4k", "hevc"]

    public init(_ name: String) {
        var folded = name.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .lowercased()
            .replacingOccurrences(of: "&", with: " and ")
        var shift = ""
        var tokens = Self.tokens(folded)
        // Quality words may sit on either side of the shift: "X HD +1", "X +1 HD".
        while let last = tokens.last, Self.qualityWords.contains(last), tokens.count > 1 { tokens.removeLast() }
        folded = tokens.joined(separator: " ")
        if let plus = folded.lastIndex(of: "+") {
            let digits = folded[folded.index(after: plus)...].filter { !$0.isWhitespace }
            if !digits.isEmpty, digits.allSatisfy(\.isASCII), Int(digits) != nil {
                shift = "+" + digits
                folded = String(folded[..<plus])
            }
        }
        tokens = Self.tokens(folded)
        while let last = tokens.last, Self.qualityWords.contains(last), tokens.count > 1 { tokens.removeLast() }
        text = tokens.filter { $0 != "+" }.joined() + shift
    }

    /// Runs of letters and digits; `+` is kept as a token of its own so the shift survives.
    private static func tokens(_ text: String) -> [String] {
        var result: [String] = []
        var current = ""
        for character in text {
            if character.isLetter || character.isNumber {
                current.append(character)
            } else {
                if !current.isEmpty { result.append(current); current = "" }
                if character == "+" { result.append("+") }
            }
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    public var description: String { text }
}
