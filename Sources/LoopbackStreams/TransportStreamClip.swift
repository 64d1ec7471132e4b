import Foundation

/// An MPEG-TS file loaded for sending: its 188-byte packets, when each is due (from the PCR),
/// and where the video keyframes start (packets that open a video PES with the random access
/// indicator set, as muxers mark keyframes).
///
/// Immutable; safe to share between senders.
public final class TransportStreamClip: Sendable {
    public static let packetSize = 188

    /// The file's bytes, a whole number of packets.
    let bytes: [UInt8]
    /// Seconds from the clip's start at which each packet is due.
    let dueTimes: [Double]
    /// Packet indices that open a keyframe's PES.
    let keyframePackets: Set<Int>
    /// Packet indices that open any video PES (a frame in practice).
    let videoPESStarts: Set<Int>
    /// Seconds one pass of the clip lasts.
    public let duration: Double
    /// Where the file came from (for messages).
    public let path: String

    public var packetCount: Int { dueTimes.count }
    /// How many keyframes one pass holds.
    public var keyframeCount: Int { keyframePackets.count }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Loads `path`; throws when it holds no MPEG-TS packets with a PCR.
    public init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(description: "cannot read \(path)")
        }
        var bytes = [UInt8](data)
        let count = bytes.count / Self.packetSize
        bytes.removeLast(bytes.count - count * Self.packetSize)
        guard count > 0, bytes[0] == 0x47 else { throw Failure(description: "\(path) is not an MPEG-TS file (no 0x47 sync byte)") }
        var times = [Double](repeating: 0, count: count)
        var keyframes: [Int] = []
        var starts: [Int] = []
        var firstPCR: Double?
        var last = 0.0
        var videoPIDs = Set<Int>()
        var pmtPIDs = Set<Int>()
        for i in 0..<count {
            let p = i * Self.packetSize
            let pid = (Int(bytes[p + 1] & 0x1F) << 8) | Int(bytes[p + 2])
            let unitStart = bytes[p + 1] & 0x40 != 0
            let hasAdaptation = bytes[p + 3] & 0x20 != 0
            let adaptationLength = hasAdaptation ? Int(bytes[p + 4]) : 0
            if hasAdaptation, adaptationLength >= 7, bytes[p + 5] & 0x10 != 0 {
                let b = (p + 6..<p + 11).map { UInt64(bytes[$0]) }
                let base = (b[0] << 25) | (b[1] << 17) | (b[2] << 9) | (b[3] << 1) | (b[4] >> 7)
                let seconds = Double(base) / 90_000
                if firstPCR == nil { firstPCR = seconds }
                last = max(last, seconds - (firstPCR ?? seconds))
            }
            times[i] = last
            let payload = p + 4 + (hasAdaptation ? 1 + adaptationLength : 0)
            guard unitStart, payload < p + Self.packetSize else { continue }
            if pid == 0 {
                // PAT: program_map_PIDs.
                let section = payload + 1 + Int(bytes[payload])
                let length = (Int(bytes[section + 1] & 0x0F) << 8) | Int(bytes[section + 2])
                var e = section + 8
                while e + 4 <= min(section + 3 + length - 4, p + Self.packetSize) {
                    let program = (Int(bytes[e]) << 8) | Int(bytes[e + 1])
                    if program != 0 { pmtPIDs.insert((Int(bytes[e + 2] & 0x1F) << 8) | Int(bytes[e + 3])) }
                    e += 4
                }
            } else if pmtPIDs.contains(pid) {
                // PMT: elementary streams whose type is video (MPEG-1/2, MPEG-4, H.264, HEVC).
                let section = payload + 1 + Int(bytes[payload])
                let length = (Int(bytes[section + 1] & 0x0F) << 8) | Int(bytes[section + 2])
                let infoLength = (Int(bytes[section + 10] & 0x0F) << 8) | Int(bytes[section + 11])
                var e = section + 12 + infoLength
                let end = min(section + 3 + length - 4, p + Self.packetSize)
                while e + 5 <= end {
                    let type = bytes[e]
                    let esPID = (Int(bytes[e + 1] & 0x1F) << 8) | Int(bytes[e + 2])
                    if [0x01, 0x02, 0x10, 0x1B, 0x24].contains(type) { videoPIDs.insert(esPID) }
                    e += 5 + ((Int(bytes[e + 3] & 0x0F) << 8) | Int(bytes[e + 4]))
                }
            } else if videoPIDs.contains(pid) {
                starts.append(i)
                if hasAdaptation, adaptationLength > 0, bytes[p + 5] & 0x40 != 0 { keyframes.append(i) }
            }
        }
        guard firstPCR != nil else { throw Failure(description: "\(path) carries no PCR: cannot pace it") }
        self.bytes = bytes
        self.dueTimes = times
        self.keyframePackets = Set(keyframes)
        self.videoPESStarts = Set(starts)
        // One more packet interval after the last PCR, so loops keep the clip's rate.
        self.duration = last + last / Double(max(1, count))
        self.path = path
    }

    /// The first packet due at or after `seconds` into the clip.
    func packetIndex(at seconds: Double) -> Int {
        dueTimes.firstIndex { $0 >= seconds } ?? 0
    }
}
