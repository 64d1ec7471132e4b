import Foundation

/// IPv4 and IPv6 addresses written as text, read into their bytes. Pure.
public enum IPAddressText {
    /// The 4 or 16 bytes of an IPv4 or IPv6 address in text (brackets and a zone allowed for
    /// IPv6); nil for anything else (a host name).
    public static func bytes(_ text: String) -> [UInt8]? {
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if let percent = text.firstIndex(of: "%") { text = text[..<percent] }
        if !text.contains(":") { return ipv4(text) }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt8]? {
            guard !part.isEmpty else { return [] }
            var bytes: [UInt8] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (i, piece) in pieces.enumerated() {
                if i == pieces.count - 1, piece.contains(".") {
                    guard let v4 = ipv4(piece) else { return nil }
                    bytes += v4
                } else {
                    guard (1...4).contains(piece.count), let v = UInt16(piece, radix: 16) else { return nil }
                    bytes += [UInt8(v >> 8), UInt8(v & 0xFF)]
                }
            }
            return bytes
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 16 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count <= 14 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }

    /// An IPv4 address mapped into IPv6 (`::ffff:127.0.0.1`) as its 4 IPv4 bytes; others as they are.
    public static func unmapped(_ bytes: [UInt8]) -> [UInt8] {
        bytes.count == 16 && bytes.prefix(12).elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]) ? Array(bytes.suffix(4)) : bytes
    }

    /// What an address is when it is one no request from the box should reach unasked: this
    /// machine's loopback, a link-local address (where cloud metadata services answer), or the
    /// unspecified address (which reaches this machine). Nil for any other address.
    public static func special(_ bytes: [UInt8]) -> String? {
        let bytes = unmapped(bytes)
        if bytes.count == 4 {
            switch bytes[0] {
            case 127: return "this machine's loopback"
            case 0: return "the unspecified address (this machine)"
            case 169 where bytes[1] == 254: return "a link-local address (169.254.0.0/16: metadata services, the router's neighbours)"
            default: return nil
            }
        }
        guard bytes.count == 16 else { return nil }
        if bytes.allSatisfy({ $0 == 0 }) { return "the unspecified address (this machine)" }
        if bytes.prefix(15).allSatisfy({ $0 == 0 }), bytes[15] == 1 { return "this machine's loopback" }
        if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0x80 { return "a link-local address (fe80::/10)" }
        return nil
    }

    private static func ipv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let bytes = parts.compactMap { part -> UInt8? in
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCII) else { return nil }
            return UInt8(part)
        }
        return bytes.count == 4 ? bytes : nil
    }
}
