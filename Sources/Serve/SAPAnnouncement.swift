import ConnectionGuard
import Foundation
import Lineup
import struct Lineup.Channel
import NIOCore

/// A SAP packet (RFC 2974) announcing, or deleting, one multicast channel: SAP version 1, IPv4,
/// no authentication or encryption, the payload type `application/sdp` and an SDP (RFC 4566)
/// session description: the channel's name, its group with the TTL, and a media line for an
/// MPEG transport stream over plain UDP (`udp mpeg`, as VLC writes it) or RTP (`RTP/AVP 33`).
/// Sent to 224.2.127.254:9875, where VLC's SAP discovery and other players listen. Pure value.
struct SAPAnnouncement: Sendable, Equatable {
    /// The well-known SAP group and port for global-scope IPv4 sessions.
    static let group = "224.2.127.254"
    static let port = 9875

    var channel: Channel
    var destination: MulticastDestination
    var ttl: Int
    var rtp: Bool
    /// The sender's IPv4 address (the origin in the SAP header and the SDP `o=` line).
    var origin: String
    /// A deletion: the session has ended.
    var deletes = false

    /// The same session's deletion packet.
    var deletion: SAPAnnouncement {
        var copy = self
        copy.deletes = true
        return copy
    }

    /// Identifies the session in the SAP header: a 16-bit FNV-1a hash of what it describes, so a
    /// changed description has another.
    var messageIDHash: UInt16 {
        var hash: UInt32 = 0x811C_9DC5
        for byte in "\(channel.id) \(destination) \(rtp)".utf8 { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
        return UInt16(truncatingIfNeeded: hash ^ (hash >> 16))
    }

    /// The SDP body, lines ended by CRLF.
    var sessionDescription: String {
        let session = UInt32(messageIDHash) << 8 | UInt32(channel.number.major & 0xFF)
        let name = channel.name.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        var lines = [
            "v=0",
            "o=- \(session) 1 IN IP4 \(origin)",
            "s=\(name)",
            "i=Channel \(channel.number)",
            "c=IN IP4 \(destination.group)/\(ttl)",
            "t=0 0",
            "a=tool:flipbox",
            "a=recvonly",
            "a=type:broadcast",
        ]
        if let group = channel.group { lines.append("a=x-plgroup:\(group.replacingOccurrences(of: "\n", with: " "))") }
        lines.append(rtp ? "m=video \(destination.port) RTP/AVP 33" : "m=video \(destination.port) udp mpeg")
        return lines.map { $0 + "\r\n" }.joined()
    }

    /// The packet as sent: nil when `origin` is not an IPv4 address.
    var packet: ByteBuffer? {
        guard let address = NetworkRange.addressBytes(origin), address.count == 4 else { return nil }
        var buffer = ByteBuffer()
        // V=1 (001), A=0 (IPv4), R=0, T (1: deletion), E=0, C=0.
        buffer.writeInteger(UInt8(0x20 | (deletes ? 0x04 : 0)))
        buffer.writeInteger(UInt8(0)) // no authentication data
        buffer.writeInteger(messageIDHash)
        buffer.writeBytes(address)
        buffer.writeString("application/sdp")
        buffer.writeInteger(UInt8(0))
        buffer.writeString(sessionDescription)
        return buffer
    }
}
