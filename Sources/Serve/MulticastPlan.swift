import Foundation
import Lineup

/// Which multicast group each channel is sent to: `--multicast 239.1.1.0/24:5000` gives the
/// lineup's first channel 239.1.1.1:5000, the second 239.1.1.2:5000, and so on (as many as the
/// block holds), with a TTL (1: the local network only) and the local address of the interface to
/// send on. Pure value.
public struct MulticastPlan: Sendable, Equatable {
    public var network: NetworkRange
    public var port: Int
    public var ttl: Int
    /// The local IPv4 address whose interface sends (nil: the system's choice by route).
    public var interface: String?
    /// Wrap the transport stream in RTP (payload type 33) instead of plain UDP.
    public var rtp: Bool

    /// Parses `GROUP/PREFIX:PORT` (IPv4 multicast, 224.0.0.0/4).
    public init(_ text: String, ttl: Int = 1, interface: String? = nil, rtp: Bool = false) throws(ServeConfigurationError) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port),
              let network = NetworkRange(String(text[..<colon])), network.network.count == 4, (224...239).contains(network.network[0]) else {
            throw ServeConfigurationError("--multicast must be an IPv4 multicast block and a port such as 239.1.1.0/24:5000, not '\(text)'")
        }
        guard (1...255).contains(ttl) else { throw ServeConfigurationError("--multicast-ttl must be from 1 to 255, not \(ttl)") }
        if let interface, NetworkRange.addressBytes(interface)?.count != 4 {
            throw ServeConfigurationError("--multicast-interface must be a local IPv4 address such as 192.168.1.20, not '\(interface)'")
        }
        self.network = network
        self.port = port
        self.ttl = ttl
        self.interface = interface
        self.rtp = rtp
    }

    /// The group of the channel at `index` in the lineup, nil when the block has no room for it.
    public func group(forChannelAt index: Int) -> String? {
        let size = 1 << (32 - network.prefixLength)
        guard index + 1 < max(2, size) || (size == 1 && index == 0) else { return nil }
        let base = network.network.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let address = size == 1 ? base : base + UInt32(index + 1)
        return [24, 16, 8, 0].map { String(address >> UInt32($0) & 0xFF) }.joined(separator: ".")
    }

    /// Every channel with its group, in lineup order.
    public func groups(_ lineup: Lineup) -> [(channel: Channel, group: String)] {
        lineup.channels.enumerated().compactMap { index, channel in group(forChannelAt: index).map { (channel, $0) } }
    }
}
