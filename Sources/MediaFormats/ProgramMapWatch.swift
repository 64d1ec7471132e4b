/// Watches an MPEG transport stream's programme tables for a change of its streams.
///
/// A demuxer takes a table (PAT or PMT) again only when its version number changes: GStreamer's
/// `tsdemux` drops a section whose version it has processed as "already processed", whatever it
/// now says. A sender that switches to another stream on the same PIDs and writes every stream's
/// tables as version 0 (a playout server changing clips, `ffmpeg` restarted with another codec)
/// leaves the demuxer parsing MPEG-2 as H.264: nothing comes out, and the picture on screen
/// stays still until the stall rule reconnects. And when the streams move to other PIDs under a
/// new version, the demuxer follows but the ingest has routed its one video stream already.
/// This watch reads the tables itself and says when the streams they list (type and PID) or the
/// programme's PMT PID changed, with or without a new version, so the ingest is read again at
/// once; a new version that lists the same streams is no change.
///
/// A value, fed the bytes entering the demuxer in order; no clock, no threads. Sections are
/// checked by their CRC, so a bit flipped on the way is not taken for a change.
public struct ProgramMapWatch: Sendable {
    public static let packetSize = 188

    /// A table as the demuxer would keep it: its version and what it lists (for the PAT,
    /// programme number and PMT PID; for a PMT, stream type and PID of each stream).
    public struct Table: Sendable, Hashable {
        public var version: UInt8
        public var entries: [Entry]
        public struct Entry: Sendable, Hashable {
            public var kind: Int
            public var pid: Int
            /// An audio stream that describes the picture for people who cannot see it: ISO 639
            /// language descriptor with audio type 3 ("visual impaired commentary"), or DVB's
            /// supplementary audio descriptor classifying it as audio description.
            public var describesPicture = false
            /// The pages a teletext stream's descriptor names (empty for other streams).
            public var teletextPages: [TeletextPage] = []
        }
    }

    /// What changed: the table, what the demuxer holds and what the stream now says.
    public struct Change: Sendable, Hashable, CustomStringConvertible {
        public var pid: Int
        public var old: Table
        public var new: Table
        public var description: String {
            let how = old.version == new.version ? "without a new table version" : "(table version \(old.version) to \(new.version))"
            return pid == 0 ? "its programme list changed \(how)" : "its streams changed from \(old.streamList) to \(new.streamList) \(how)"
        }
    }

    /// The PIDs of the programme's audio description streams (`Table.Entry.describesPicture`),
    /// as the newest intact PMT lists them.
    public var describingPIDs: Set<Int> { Set(pmt?.entries.filter(\.describesPicture).map(\.pid) ?? []) }

    /// The pages the teletext descriptor of the private stream on `pid` names, as the newest
    /// intact PMT has them (empty when it names none); nil before the table is read, or when it
    /// lists no private stream on `pid`.
    public func teletextPages(pid: Int) -> [TeletextPage]? {
        guard let entry = pmt?.entries.first(where: { $0.pid == pid }), entry.kind == 0x06 else { return nil }
        return entry.teletextPages
    }

    /// The PMT PID of the first programme (the one the demuxer plays), once the PAT was read.
    public private(set) var programMapPID: Int?
    private var pat: Table?
    private var pmt: Table?
    /// A section being assembled over several packets of its PID.
    private var pending: (pid: Int, bytes: [UInt8])?
    /// Bytes of a packet cut by the end of the last buffer (sources that do not deliver whole packets).
    private var carry: [UInt8] = []

    public init() {}

    /// Whether the stream is a transport stream: nil until enough bytes were seen to tell.
    /// Anything else (an MP4 file, raw audio) is not read any further.
    public private(set) var isTransportStream: Bool?
    private var head: [UInt8] = []

    /// Reads `bytes` (the next bytes of the stream) and returns the changes found in them.
    public mutating func read(_ bytes: UnsafeRawBufferPointer) -> [Change] {
        if isTransportStream == nil {
            head += bytes.prefix(4 * Self.packetSize - head.count)
            guard head.count >= 4 * Self.packetSize else { return [] }
            // Three sync bytes a packet apart, from any start (a stream may begin mid-packet).
            isTransportStream = (0..<Self.packetSize).contains { i in
                head[i] == 0x47 && head[i + Self.packetSize] == 0x47 && head[i + 2 * Self.packetSize] == 0x47
            }
            head = []
        }
        guard isTransportStream == true else { return [] }
        var changes: [Change] = []
        var offset = 0
        if !carry.isEmpty {
            let need = Self.packetSize - carry.count
            guard bytes.count >= need else {
                carry += bytes
                return []
            }
            carry += bytes[0..<need]
            carry.withUnsafeBytes { if let c = inspect($0) { changes.append(c) } }
            carry = []
            offset = need
        }
        while offset < bytes.count {
            guard bytes[offset] == 0x47 else {
                offset += 1  // find the next sync byte
                continue
            }
            guard offset + Self.packetSize <= bytes.count else {
                carry = Array(bytes[offset...])
                break
            }
            if let c = inspect(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + Self.packetSize])) { changes.append(c) }
            offset += Self.packetSize
        }
        return changes
    }

    /// Convenience for tests and callers holding an array.
    public mutating func read(_ bytes: [UInt8]) -> [Change] {
        bytes.withUnsafeBytes { read($0) }
    }

    private mutating func inspect(_ packet: UnsafeRawBufferPointer) -> Change? {
        let pid = (Int(packet[1] & 0x1F) << 8) | Int(packet[2])
        guard pid == 0 || pid == programMapPID else { return nil }
        guard packet[1] & 0x80 == 0 else { return nil }  // transport error indicator
        let adaptation = (packet[3] >> 4) & 0x3
        guard adaptation & 0x1 != 0 else { return nil }
        var payload = 4
        if adaptation & 0x2 != 0 { payload = 5 + Int(packet[4]) }
        guard payload < Self.packetSize else { return nil }
        if packet[1] & 0x40 != 0 {
            let start = payload + 1 + Int(packet[payload])  // after the pointer field
            guard start < Self.packetSize else { return nil }
            pending = (pid, Array(packet[start...]))
        } else if let p = pending, p.pid == pid {
            pending = (pid, p.bytes + packet[payload...])
        } else {
            return nil
        }
        guard let p = pending, p.bytes.count >= 3 else { return nil }
        let length = 3 + ((Int(p.bytes[1] & 0x0F) << 8) | Int(p.bytes[2]))
        guard length <= 1024 else { pending = nil; return nil }
        guard p.bytes.count >= length else { return nil }
        pending = nil
        let section = Array(p.bytes[0..<length])
        guard length >= 12, Self.crc32(section) == 0, section[5] & 0x01 != 0 else { return nil }  // whole, intact, current
        let version = (section[5] >> 1) & 0x1F
        if pid == 0 {
            guard section[0] == 0x00 else { return nil }
            let table = Table(version: version, entries: Self.programs(section))
            defer { pat = table }
            programMapPID = table.entries.first { $0.kind != 0 }?.pid
            if let old = pat, old.entries != table.entries {
                pmt = nil
                return Change(pid: 0, old: old, new: table)
            }
            return nil
        }
        guard section[0] == 0x02 else { return nil }
        let table = Table(version: version, entries: Self.streams(section))
        defer { pmt = table }
        if let old = pmt, old.entries != table.entries { return Change(pid: pid, old: old, new: table) }
        return nil
    }

    /// A PAT's programmes: (programme number, PMT PID); number 0 is the network PID.
    static func programs(_ section: [UInt8]) -> [Table.Entry] {
        var entries: [Table.Entry] = []
        var i = 8
        while i + 4 <= section.count - 4 {
            entries.append(.init(kind: (Int(section[i]) << 8) | Int(section[i + 1]), pid: (Int(section[i + 2] & 0x1F) << 8) | Int(section[i + 3])))
            i += 4
        }
        return entries
    }

    /// A PMT's streams: (stream type, PID), in order.
    static func streams(_ section: [UInt8]) -> [Table.Entry] {
        let infoLength = (Int(section[10] & 0x0F) << 8) | Int(section[11])
        var entries: [Table.Entry] = []
        var i = 12 + infoLength
        while i + 5 <= section.count - 4 {
            let esInfo = (Int(section[i + 3] & 0x0F) << 8) | Int(section[i + 4])
            let descriptors = section[min(i + 5, section.count - 4)..<min(i + 5 + esInfo, section.count - 4)]
            entries.append(.init(kind: Int(section[i]), pid: (Int(section[i + 1] & 0x1F) << 8) | Int(section[i + 2]),
                                 describesPicture: describesPicture(Array(descriptors)),
                                 teletextPages: teletextPages(Array(descriptors))))
            i += 5 + esInfo
        }
        return entries
    }

    /// Whether an elementary stream's descriptors mark it as audio description: an ISO 639
    /// language descriptor (tag 0x0A) whose audio type is 0x03, or a DVB supplementary audio
    /// descriptor (extension 0x06 of tag 0x7F) whose editorial classification is 1.
    static func describesPicture(_ descriptors: [UInt8]) -> Bool {
        var i = 0
        while i + 2 <= descriptors.count {
            let tag = descriptors[i], length = Int(descriptors[i + 1])
            let body = descriptors[(i + 2)..<min(i + 2 + length, descriptors.count)]
            if tag == 0x0A {
                // (language code, audio type) entries of four bytes.
                var e = body.startIndex
                while e + 4 <= body.endIndex {
                    if body[e + 3] == 0x03 { return true }
                    e += 4
                }
            }
            if tag == 0x7F, body.count >= 2, body[body.startIndex] == 0x06, (body[body.startIndex + 1] >> 2) & 0x1F == 0x01 {
                return true
            }
            i += 2 + length
        }
        return false
    }

    /// The pages of the teletext descriptors (tag 0x56) among an elementary stream's descriptors.
    static func teletextPages(_ descriptors: [UInt8]) -> [TeletextPage] {
        var pages: [TeletextPage] = []
        var i = 0
        while i + 2 <= descriptors.count {
            let tag = descriptors[i], length = Int(descriptors[i + 1])
            if tag == 0x56 { pages += TeletextPage.pages(descriptor: descriptors[(i + 2)..<min(i + 2 + length, descriptors.count)]) }
            i += 2 + length
        }
        return pages
    }

    /// CRC-32/MPEG-2 of `bytes`; 0 over a whole section, its CRC included, when it is intact.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        return crc
    }

    /// Names of the stream types a person running a box meets.
    enum StreamType {
        static func name(_ type: Int) -> String {
            switch type {
            case 0x01: "MPEG-1 video"
            case 0x02: "MPEG-2 video"
            case 0x03, 0x04: "MPEG audio"
            case 0x06: "private data"
            case 0x0F: "AAC"
            case 0x11: "AAC (LATM)"
            case 0x1B: "H.264"
            case 0x24: "HEVC"
            case 0x81: "AC-3"
            case 0x87: "E-AC-3"
            case 0x86: "SCTE-35"
            default: "type 0x" + String(type, radix: 16)
            }
        }
    }
}

extension ProgramMapWatch.Table {
    /// "H.264 on PID 256, AAC on PID 257, private data (teletext pages 888 deu, 777 eng) on PID 258".
    var streamList: String {
        entries.map { entry in
            let pages = entry.teletextPages.map { [$0.number.map(String.init) ?? "?", $0.language].compactMap { $0 }.joined(separator: " ") }
            let teletext = pages.isEmpty ? "" : " (teletext pages \(pages.joined(separator: ", ")))"
            return "\(ProgramMapWatch.StreamType.name(entry.kind))\(teletext) on PID \(entry.pid)"
        }.joined(separator: ", ")
    }
}
