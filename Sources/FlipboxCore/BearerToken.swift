/// Reading and comparing bearer tokens, for every listener that takes one (the control API, the
/// head-end's serving endpoints).
public enum BearerToken {
    /// The token of an `Authorization: Bearer TOKEN` header, nil for anything else.
    public static func parse(_ header: String?) -> String? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        var token = parts[1]
        while token.first?.isWhitespace == true { token.removeFirst() }
        while token.last?.isWhitespace == true { token.removeLast() }
        return token.isEmpty ? nil : String(token)
    }

    /// Compares without stopping at the first difference, so timing does not reveal the token.
    public static func matches(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(truncatingIfNeeded: x.count ^ y.count)
        for i in 0..<max(x.count, y.count) {
            difference |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
        }
        return difference == 0 && x.count == y.count
    }
}
