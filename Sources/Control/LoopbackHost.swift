/// Recognises host names and addresses that reach this machine only.
enum LoopbackHost {
    /// True for `localhost`, any `127.x.y.z`, and `::1` in any spelling (brackets allowed).
    static func contains(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        if let octets = ipv4Octets(name) { return octets[0] == 127 }
        if let words = Syscalls.ipv6Words(name) { return words == [0, 0, 0, 0, 0, 0, 0, 1] }
        return false
    }

    private static func ipv4Octets(_ text: String) -> [Int]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let octets = parts.compactMap { part -> Int? in
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCII) else { return nil }
            return Int(part).flatMap { (0...255).contains($0) ? $0 : nil }
        }
        return octets.count == 4 ? octets : nil
    }
}
