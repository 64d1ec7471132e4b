import ConnectionGuard
import Foundation
import Lineup

/// Which multicast group each channel is sent to: `--multicast 239.1.1.0/24:5000` gives the
/// lineup's first channel 239.1.1.1:5000, the second 239.1.1.2:5000, and so on (as many as the
/// block holds); a channel with its own `multicast:` in the lineup goes to that group instead
/// (and, without a block, only those channels are sent). All with one TTL (1: the local network
/// only) and the local address of the interface to send on. Pure value.
public struct MulticastPlan: Sendable, Equatable {
    /// The block channels without a group of their own are numbered into (nil: none).
    public var network: NetworkRange?
    public var port: Int
    public var ttl: Int
    /// The local IPv4 address whose interface sends (nil: the system's choice by route).
    public var interface: String?
    /// Wrap the transport stream in RTP (payload type 33) instead of plain UDP.
    public var rtp: Bool
    /// Announce each channel sent by SAP/SDP (RFC 2974) to 224.2.127.254:9875 every
    /// `SAPAnnouncement` interval, so players list them by themselves.
    public var sap = false

    /// No block: only the channels with a `multicast:` group of their own in the lineup are sent.
    public init(ttl: Int = 1, interface: String? = nil, rtp: Bool = false) throws(ServeConfigurationError) {
        try Self.check(ttl: ttl, interface: interface)
        self.network = nil
        self.port = 0
        self.ttl = ttl
        self.interface = interface
        self.rtp = rtp
    }

    private static func check(ttl: Int, interface: String?) throws(ServeConfigurationError) {
        guard (1...255).contains(ttl) else { throw ServeConfigurationError(.badValue, "--multicast-ttl must be from 1 to 255, not \(ttl)") }
        if let interface, NetworkRange.addressBytes(interface)?.count != 4 {
            throw ServeConfigurationError(.badValue, "--multicast-interface must be a local IPv4 address such as 192.168.1.20, not '\(interface)'")
        }
    }

    /// Parses `GROUP/PREFIX:PORT` (IPv4 multicast, 224.0.0.0/4).
    public init(_ text: String, ttl: Int = 1, interface: String? = nil, rtp: Bool = false) throws(ServeConfigurationError) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port),
              let network = NetworkRange(String(text[..<colon])), network.network.count == 4, (224...239).contains(network.network[0]) else {
            throw ServeConfigurationError(.badValue, "--multicast must be an IPv4 multicast block and a port such as 239.1.1.0/24:5000, not '\(text)'")
        }
        try Self.check(ttl: ttl, interface: interface)
        self.network = network
        self.port = port
        self.ttl = ttl
        self.interface = interface
        self.rtp = rtp
    }

    /// The block's group for the channel at `index` in the lineup, nil when there is no block or
    /// it has no room for it.
    public func group(forChannelAt index: Int) -> String? {
        guard let network else { return nil }
        let size = 1 << (32 - network.prefixLength)
        guard index + 1 < max(2, size) || (size == 1 && index == 0) else { return nil }
        let base = network.network.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let address = size == 1 ? base : base + UInt32(index + 1)
        return [24, 16, 8, 0].map { String(address >> UInt32($0) & 0xFF) }.joined(separator: ".")
    }

    /// Every channel that is sent, with its group and port, in lineup order: its own
    /// `multicast:` group, else the block's.
    public func destinations(_ lineup: Lineup) -> [(channel: Channel, destination: MulticastDestination)] {
        lineup.channels.enumerated().compactMap { index, channel in
            if let own = channel.multicast { return (channel, own) }
            guard let group = group(forChannelAt: index), let block = try? MulticastDestination(parsing: "\(group):\(port)") else { return nil }
            return (channel, block)
        }
    }

    /// What the plan sends to, for messages: the block, or "the lineup's groups".
    public var summary: String { network.map { "\($0):\(port)" } ?? "the lineup's groups" }
}
