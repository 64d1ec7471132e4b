import Foundation
import Lineup

/// Who a request comes from, as the access check judges it: the connection's peer, or, when the
/// peer is a declared proxy (`--serve-trusted-proxy`), the client its `X-Forwarded-For` or
/// `Forwarded` header names. Forwarded headers are believed only from declared proxies: a peer
/// that sends one without being declared (an nginx on the box itself, whose every client
/// arrives from 127.0.0.1) is no client of its own, and is refused without the token. Pure value.
public enum ForwardedClient: Equatable, Sendable {
    /// The address to judge.
    case address(String)
    /// A request that cannot be judged by address; the message says why (for the 403).
    case unknown(String)

    /// At most this many addresses are read from a forwarded chain (a longer one is refused).
    public static let maxHops = 64

    /// `peer`: the connection's address; `xForwardedFor`, `forwarded`: every value of each header.
    public static func judge(peer: String?, xForwardedFor: [String], forwarded: [String], trusted: [NetworkRange]) -> ForwardedClient {
        guard let peer else { return .unknown("refused: the client's address is unknown") }
        if xForwardedFor.isEmpty && forwarded.isEmpty { return .address(peer) }
        let header = xForwardedFor.isEmpty ? "Forwarded" : "X-Forwarded-For"
        guard trusted.contains(where: { $0.contains(peer) }) else {
            return .unknown("""
                refused: \(peer) forwarded this request for another client (\(header)) but is no declared proxy, so the \
                client's address is unknown; if \(peer) is your proxy, start the head-end with --serve-trusted-proxy \(peer), \
                or send the token
                """)
        }
        var candidates: [String] = []
        var chains: [(name: String, addresses: [String]?)] = []
        if !xForwardedFor.isEmpty { chains.append(("X-Forwarded-For", forwardedForChain(xForwardedFor))) }
        if !forwarded.isEmpty { chains.append(("Forwarded", forwardedChain(forwarded))) }
        for (name, chain) in chains {
            guard let addresses = chain, !addresses.isEmpty else {
                return .unknown("refused: the proxy at \(peer) sent a \(name) header with no client address this head-end can read (or more than \(maxHops)); send the token")
            }
            // The nearest address the declared proxies did not add: anything left of it is
            // whatever the client itself wrote.
            let client = addresses.last { address in !trusted.contains { $0.contains(address) } } ?? addresses[0]
            candidates.append(client)
        }
        guard let first = candidates.first else { return .address(peer) }
        if candidates.contains(where: { IPAddressText.bytes($0) != IPAddressText.bytes(first) }) {
            return .unknown("""
                refused: the proxy at \(peer) names different clients in X-Forwarded-For (\(candidates[0])) and Forwarded \
                (\(candidates.last ?? "")); have it send one of them (proxy_set_header Forwarded ""; in nginx)
                """)
        }
        return .address(first)
    }

    /// The addresses of `X-Forwarded-For: a, b, c`, oldest first; nil when one is no address.
    public static func forwardedForChain(_ values: [String]) -> [String]? {
        var out: [String] = []
        for value in values {
            for part in value.split(separator: ",", omittingEmptySubsequences: false) {
                guard out.count < maxHops, let address = address(String(part)) else { return nil }
                out.append(address)
            }
        }
        return out
    }

    /// The `for=` addresses of `Forwarded: for=a;proto=http, for="[b]:port"` (RFC 7239), oldest
    /// first; nil when an element has none or one is no address (`unknown`, an obfuscated name).
    public static func forwardedChain(_ values: [String]) -> [String]? {
        var out: [String] = []
        for value in values {
            for element in value.split(separator: ",", omittingEmptySubsequences: false) {
                guard out.count < maxHops else { return nil }
                let pairs = element.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                guard let pair = pairs.first(where: { $0.lowercased().hasPrefix("for=") }),
                      let address = address(String(pair.dropFirst(4))) else { return nil }
                out.append(address)
            }
        }
        return out
    }

    /// One address as proxies write it: `192.0.2.7`, `192.0.2.7:4711`, `2001:db8::1`,
    /// `"[2001:db8::1]:4711"`. nil for anything else.
    public static func address(_ text: String) -> String? {
        var t = text.trimmingCharacters(in: .whitespaces)
        if t.count >= 2, t.hasPrefix("\""), t.hasSuffix("\"") { t = String(t.dropFirst().dropLast()) }
        if t.hasPrefix("["), let close = t.firstIndex(of: "]") {
            t = String(t[t.index(after: t.startIndex)..<close])
        } else if t.filter({ $0 == ":" }).count == 1, let colon = t.firstIndex(of: ":") {
            t = String(t[..<colon])
        }
        guard t.utf8.count <= 64, IPAddressText.bytes(t) != nil else { return nil }
        return t
    }
}
