/// One packet of the HDHomeRun discovery (UDP 65001) and control (TCP 65001) protocols, as
/// libhdhomerun's `hdhomerun_pkt.h` describes them: a big-endian type and payload length, a
/// payload of tag-length-value fields (the length is one byte below 128, else two: the low 7
/// bits with 0x80 set, then the rest), and an Ethernet CRC-32 of all that, little-endian.
///
/// Pure value: `encoded()` and `decode(_:)` round-trip; decoding never traps on bad input.
public struct HDHomeRunPacket: Sendable, Equatable {
    public enum PacketType: UInt16, Sendable {
        case discoverRequest = 0x0002
        case discoverReply = 0x0003
        case getSetRequest = 0x0004
        case getSetReply = 0x0005
        case upgradeRequest = 0x0006
        case upgradeReply = 0x0007
    }

    public enum Tag: UInt8, Sendable {
        case deviceType = 0x01
        case deviceID = 0x02
        case getSetName = 0x03
        case getSetValue = 0x04
        case errorMessage = 0x05
        case getSetLockKey = 0x15
        case tunerCount = 0x10
        case lineupURL = 0x27
        case baseURL = 0x2A
        case deviceAuth = 0x2B
    }

    public static let deviceTypeTuner: UInt32 = 0x0000_0001
    public static let wildcard: UInt32 = 0xFFFF_FFFF
    /// The most a packet may take (libhdhomerun's `HDHOMERUN_MAX_PACKET_SIZE`).
    public static let maxSize = 1460

    public var type: UInt16
    /// Fields in order; tags this code does not know are kept by their raw value.
    public var fields: [(tag: UInt8, value: [UInt8])]

    public init(_ type: PacketType, fields: [(tag: UInt8, value: [UInt8])] = []) {
        self.type = type.rawValue
        self.fields = fields
    }

    public static func == (a: HDHomeRunPacket, b: HDHomeRunPacket) -> Bool {
        a.type == b.type && a.fields.count == b.fields.count
            && zip(a.fields, b.fields).allSatisfy { $0.tag == $1.tag && $0.value == $1.value }
    }

    public var packetType: PacketType? { PacketType(rawValue: type) }

    /// The first value of `tag`.
    public func value(_ tag: Tag) -> [UInt8]? { fields.first { $0.tag == tag.rawValue }?.value }

    /// A 4-byte big-endian field.
    public func uint32(_ tag: Tag) -> UInt32? {
        guard let v = value(tag), v.count == 4 else { return nil }
        return v.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// A NUL-terminated string field (the NUL is not required).
    public func string(_ tag: Tag) -> String? {
        guard var v = value(tag) else { return nil }
        if let nul = v.firstIndex(of: 0) { v = Array(v[..<nul]) }
        return String(decoding: v, as: UTF8.self)
    }

    public mutating func append(_ tag: Tag, _ value: [UInt8]) { fields.append((tag.rawValue, value)) }
    public mutating func append(_ tag: Tag, uint32 value: UInt32) {
        append(tag, [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }
    /// Appends a string with its NUL, as the protocol wants.
    public mutating func append(_ tag: Tag, string: String) { append(tag, Array(string.utf8) + [0]) }

    /// The packet on the wire.
    public func encoded() -> [UInt8] {
        var payload: [UInt8] = []
        for field in fields {
            payload.append(field.tag)
            let length = min(field.value.count, 0x7FFF)
            if length < 128 {
                payload.append(UInt8(length))
            } else {
                payload.append(UInt8(length & 0x7F) | 0x80)
                payload.append(UInt8(length >> 7))
            }
            payload += field.value.prefix(length)
        }
        var bytes = [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(payload.count >> 8 & 0xFF), UInt8(payload.count & 0xFF)] + payload
        let crc = Self.crc32(bytes)
        bytes += [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)]
        return bytes
    }

    /// What decoding the start of a byte stream gives.
    public enum Decoded: Sendable, Equatable {
        /// A whole packet and the bytes it took.
        case packet(HDHomeRunPacket, consumed: Int)
        /// Not enough bytes yet.
        case incomplete
        /// Not a packet (bad CRC, bad fields): the reason.
        case invalid(String)
    }

    /// Decodes the packet at the start of `bytes`.
    public static func decode(_ bytes: [UInt8]) -> Decoded {
        guard bytes.count >= 4 else { return .incomplete }
        let type = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        let length = Int(bytes[2]) << 8 | Int(bytes[3])
        guard length + 8 <= 3074 else { return .invalid("a payload of \(length) bytes is too long") }
        guard bytes.count >= 4 + length + 4 else { return .incomplete }
        let crc = UInt32(bytes[4 + length]) | UInt32(bytes[5 + length]) << 8 | UInt32(bytes[6 + length]) << 16 | UInt32(bytes[7 + length]) << 24
        guard crc == crc32(bytes[0..<4 + length]) else { return .invalid("the CRC does not match") }
        var fields: [(tag: UInt8, value: [UInt8])] = []
        var i = 4
        let end = 4 + length
        while i < end {
            guard i + 2 <= end else { return .invalid("a field is cut short") }
            let tag = bytes[i]
            var fieldLength = Int(bytes[i + 1])
            i += 2
            if fieldLength & 0x80 != 0 {
                guard i < end else { return .invalid("a field length is cut short") }
                fieldLength = (fieldLength & 0x7F) | Int(bytes[i]) << 7
                i += 1
            }
            guard i + fieldLength <= end else { return .invalid("field 0x\(String(tag, radix: 16)) runs past the packet") }
            fields.append((tag, Array(bytes[i..<i + fieldLength])))
            i += fieldLength
        }
        var packet = HDHomeRunPacket(.discoverRequest, fields: fields)
        packet.type = type
        return .packet(packet, consumed: end + 4)
    }

    /// The Ethernet (IEEE 802.3, reflected) CRC-32 that the protocol uses.
    public static func crc32<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }
}
