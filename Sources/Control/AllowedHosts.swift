/// The names a request may give in its `Host` header when the API has no token: loopback names
/// and addresses, the host the API listens on, and the names the person running the box allowed.
///
/// A web page that rebinds its own name to 127.0.0.1 (DNS rebinding) reaches the API with its own
/// name in `Host`; it is not on this list, so it is refused.
struct AllowedHosts: Sendable, Hashable {
    /// Lowercased, without brackets or a trailing dot.
    let names: Set<String>

    init(listenHost: String, allowed: [String]) {
        var names = Set(allowed.map(Self.normalised))
        let listen = Self.normalised(listenHost)
        // A wildcard address is no name a client uses.
        if !["0.0.0.0", "::", ""].contains(listen) { names.insert(listen) }
        self.names = names
    }

    /// True when `authority` (`name`, `name:port`, `[v6]:port`) names this box.
    func contains(authority: String) -> Bool {
        guard let host = Self.host(ofAuthority: authority) else { return false }
        return LoopbackHost.contains(host) || names.contains(host)
    }

    /// What the refusal message lists: loopback and every allowed name.
    var description: String {
        (["localhost", "127.0.0.1", "[::1]"] + names.sorted()).joined(separator: ", ")
    }

    /// The host of an authority, lowercased without brackets, port or trailing dot; nil when it is
    /// not one (`user@host`, an empty name, a bad port).
    static func host(ofAuthority authority: String) -> String? {
        var text = Substring(authority)
        guard !text.contains("@"), !text.isEmpty else { return nil }
        var host: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            text = text[text.index(after: close)...]
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            text = text[colon...]
        } else {
            host = text
            text = ""
        }
        if !text.isEmpty {
            guard text.hasPrefix(":"), text.count > 1, text.dropFirst().allSatisfy(\.isASCII),
                  let port = Int(text.dropFirst()), (0...65535).contains(port) else { return nil }
        }
        let name = normalised(String(host))
        return name.isEmpty ? nil : name
    }

    static func normalised(_ name: String) -> String {
        var name = name.lowercased()
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix(".") { name.removeLast() }
        return name
    }

    /// A name or address without port, scheme or path: letters, digits, `-`, `.`, and `:` for IPv6.
    static func isValidName(_ name: String) -> Bool {
        let name = normalised(name)
        return !name.isEmpty && name.count <= 253
            && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-.:".unicodeScalars.contains($0)) }
            && !(name.contains(":") && name.contains("."))
    }
}
