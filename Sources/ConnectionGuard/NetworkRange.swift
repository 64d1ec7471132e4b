import Foundation
import Lineup

/// A block of IP addresses in CIDR form (`192.168.1.0/24`, `fd00::/8`, or one address): who may
/// use the serving endpoints without a token (`--serve-allow`). IPv4 clients that reach an IPv6
/// socket (`::ffff:192.168.1.7`) match the IPv4 ranges. Pure value.
public struct NetworkRange: Sendable, Hashable, CustomStringConvertible {
    public let network: [UInt8]
    public let prefixLength: Int

    /// Parses `ADDRESS` or `ADDRESS/PREFIX`; nil for anything else (bad address, prefix too long).
    public init?(_ text: String) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, let bytes = Self.addressBytes(String(parts[0])) else { return nil }
        let maximum = bytes.count * 8
        var length = maximum
        if parts.count == 2 {
            guard let n = Int(parts[1]), parts[1].allSatisfy(\.isASCII), (0...maximum).contains(n) else { return nil }
            length = n
        }
        network = Self.masked(bytes, length)
        prefixLength = length
    }

    public var description: String {
        let address: String
        if network.count == 4 {
            address = network.map(String.init).joined(separator: ".")
        } else {
            address = stride(from: 0, to: 16, by: 2).map { String(UInt16(network[$0]) << 8 | UInt16(network[$0 + 1]), radix: 16) }
                .joined(separator: ":")
        }
        return "\(address)/\(prefixLength)"
    }

    /// Whether `address` (an IPv4 or IPv6 address in text) lies in this range.
    public func contains(_ address: String) -> Bool {
        guard var bytes = Self.addressBytes(address) else { return false }
        if bytes.count == 16, network.count == 4, bytes.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] {
            bytes = Array(bytes.suffix(4))
        }
        guard bytes.count == network.count else { return false }
        return Self.masked(bytes, prefixLength) == network
    }

    /// Whether `address` is this machine's loopback (`127.0.0.0/8`, `::1`, mapped or not).
    public static func isLoopback(_ address: String) -> Bool {
        loopback.contains { $0.contains(address) }
    }

    private static let loopback = [NetworkRange("127.0.0.0/8")!, NetworkRange("::1")!]

    private static func masked(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bits = max(0, min(8, length - index * 8))
            return bits == 8 ? byte : byte & UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
        }
    }

    /// The 4 or 16 bytes of an IPv4 or IPv6 address in text (brackets and a zone allowed for IPv6).
    public static func addressBytes(_ text: String) -> [UInt8]? { IPAddressText.bytes(text) }
}
