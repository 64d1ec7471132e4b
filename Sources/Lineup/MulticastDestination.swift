import Foundation

/// Where one channel is multicast by a serving Flipbox: an IPv4 multicast group (224.0.0.0/4)
/// and a UDP port, written `239.1.1.7:5000` (the lineup's `multicast` key, or the M3U attribute
/// `multicast="239.1.1.7:5000"`). It overrides the group that `serve --multicast BLOCK` would give
/// the channel; TTL, interface and RTP stay the serve command's. Pure value.
public struct MulticastDestination: Hashable, Sendable, CustomStringConvertible {
    public var group: String
    public var port: Int

    /// Parses `GROUP:PORT`; throws a message naming the value when it is not one.
    public init(parsing text: String) throws(LineupValueError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let colon = trimmed.lastIndex(of: ":"), let port = Int(trimmed[trimmed.index(after: colon)...]), (1...65535).contains(port) else {
            throw LineupValueError(.multicast, "multicast \"\(text)\" is not a group and port such as 239.1.1.7:5000")
        }
        let octets = trimmed[..<colon].split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard octets.count == 4, octets.allSatisfy({ $0.map { (0...255).contains($0) } ?? false }) else {
            throw LineupValueError(.multicast, "multicast \"\(text)\": '\(trimmed[..<colon])' is not an IPv4 address")
        }
        guard let first = octets[0], (224...239).contains(first) else {
            throw LineupValueError(.multicast, "multicast \"\(text)\": \(trimmed[..<colon]) is not a multicast group (224.0.0.0 to 239.255.255.255)")
        }
        self.group = octets.map { String($0!) }.joined(separator: ".")
        self.port = port
    }

    public var description: String { "\(group):\(port)" }
}

extension Channel {
    /// The channel's own multicast group (`multicast:` in the lineup); nil when it has none or
    /// it does not parse (the loader reports that, with the file and line).
    public var multicast: MulticastDestination? {
        attributes["multicast"].flatMap { try? MulticastDestination(parsing: $0) }
    }
}
