/// Reads just enough of an MPEG transport stream to serve it: the newest PAT and PMT packets
/// (a client that joins mid-stream needs them first) and where each video keyframe begins (a
/// PES start with the random-access indicator on the programme's video PID, as `mpegtsmux`
/// writes it).
///
/// A value: feed it the muxer's output in order, packet-aligned (188-byte packets).
struct TransportStreamScanner: Sendable {
    static let packetSize = 188

    /// The newest PAT packet and the newest PMT packet, in that order (empty until both were seen).
    private(set) var tables: [UInt8] = []
    private var pat: [UInt8]?
    private var pmt: [UInt8]?
    private var pmtPID: Int?
    private(set) var videoPID: Int?

    /// A packet that starts a video frame (a PES on the video PID; any PES while the programme
    /// has no video): where it is in the scanned bytes, whether the frame is a keyframe, and its
    /// presentation time (90 kHz, nil when the PES header has none).
    struct FrameStart: Equatable {
        var offset: Int
        var isKeyframe: Bool
        var pts: UInt64?
    }

    /// Scans `bytes` (whole packets) and returns the packets that start a frame.
    mutating func scan(_ bytes: UnsafeRawBufferPointer) -> [FrameStart] {
        var starts: [FrameStart] = []
        var offset = 0
        while offset + Self.packetSize <= bytes.count {
            let packet = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + Self.packetSize])
            if packet[0] == 0x47, var start = inspect(packet) {
                start.offset = offset
                starts.append(start)
            }
            offset += Self.packetSize
        }
        return starts
    }

    /// The frame `packet` starts, if it starts one; remembers PAT and PMT packets.
    private mutating func inspect(_ packet: UnsafeRawBufferPointer) -> FrameStart? {
        let pid = (Int(packet[1] & 0x1F) << 8) | Int(packet[2])
        let unitStart = packet[1] & 0x40 != 0
        let adaptation = (packet[3] >> 4) & 0x3
        var payload = 4
        var randomAccess = false
        if adaptation & 0x2 != 0 {
            let length = Int(packet[4])
            if length > 0 { randomAccess = packet[5] & 0x40 != 0 }
            payload = 5 + length
        }
        guard adaptation & 0x1 != 0, payload < Self.packetSize else { return nil }
        if pid == 0 && unitStart {
            pat = Array(packet)
            pmtPID = Self.firstProgramMapPID(packet, payload: payload)
            updateTables()
        } else if pid == pmtPID && unitStart {
            pmt = Array(packet)
            videoPID = Self.firstVideoPID(packet, payload: payload)
            updateTables()
        } else if unitStart && pid != 0 && pid != 0x1FFF && (pid == videoPID || (videoPID == nil && pmt != nil)) {
            let keyframe = pid == videoPID && randomAccess
            return FrameStart(offset: 0, isKeyframe: keyframe, pts: keyframe ? Self.presentationTime(packet, payload: payload) : nil)
        }
        return nil
    }

    /// The PTS of the PES header starting at `payload`, when it has one.
    static func presentationTime(_ packet: UnsafeRawBufferPointer, payload p: Int) -> UInt64? {
        guard p + 14 <= packetSize, packet[p] == 0, packet[p + 1] == 0, packet[p + 2] == 1,
              packet[p + 7] & 0x80 != 0 else { return nil }
        let b = (0..<5).map { UInt64(packet[p + 9 + $0]) }
        return (b[0] >> 1 & 0x7) << 30 | b[1] << 22 | (b[2] >> 1) << 15 | b[3] << 7 | b[4] >> 1
    }

    private mutating func updateTables() {
        if let pat, let pmt { tables = pat + pmt }
    }

    /// The PMT PID of the first programme in a PAT section that fits in one packet.
    static func firstProgramMapPID(_ packet: UnsafeRawBufferPointer, payload: Int) -> Int? {
        let section = payload + 1 + Int(packet[payload])  // pointer field
        guard section + 8 < packetSize, packet[section] == 0x00 else { return nil }
        let length = (Int(packet[section + 1] & 0x0F) << 8) | Int(packet[section + 2])
        var entry = section + 8
        let end = min(section + 3 + length - 4, packetSize)
        while entry + 4 <= end {
            let program = (Int(packet[entry]) << 8) | Int(packet[entry + 1])
            let pid = (Int(packet[entry + 2] & 0x1F) << 8) | Int(packet[entry + 3])
            if program != 0 { return pid }
            entry += 4
        }
        return nil
    }

    /// The PID of the first video stream in a PMT section that fits in one packet.
    static func firstVideoPID(_ packet: UnsafeRawBufferPointer, payload: Int) -> Int? {
        let section = payload + 1 + Int(packet[payload])
        guard section + 12 < packetSize, packet[section] == 0x02 else { return nil }
        let length = (Int(packet[section + 1] & 0x0F) << 8) | Int(packet[section + 2])
        let infoLength = (Int(packet[section + 10] & 0x0F) << 8) | Int(packet[section + 11])
        var entry = section + 12 + infoLength
        let end = min(section + 3 + length - 4, packetSize)
        while entry + 5 <= end {
            let type = packet[entry]
            let pid = (Int(packet[entry + 1] & 0x1F) << 8) | Int(packet[entry + 2])
            let esInfo = (Int(packet[entry + 3] & 0x0F) << 8) | Int(packet[entry + 4])
            if videoStreamTypes.contains(type) { return pid }
            entry += 5 + esInfo
        }
        return nil
    }

    /// MPEG-1/2 video, MPEG-4 part 2, H.264, H.265.
    static let videoStreamTypes: Set<UInt8> = [0x01, 0x02, 0x10, 0x1B, 0x24]
}
