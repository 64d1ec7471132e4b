/// Where playing MPEG-TS bytes from gives a picture at once: at a video keyframe (a packet that
/// starts a video PES, stream id 0xE0-0xEF, with the adaptation field's random access
/// indicator set), from the programme association table sent before it (a demuxer needs the
/// PAT and PMT before any stream; muxers send them just ahead of each keyframe). Pure; bytes
/// out of sync or cut short give none.
public enum TSRandomAccess {
    public static let packet = 188
    /// How far before a keyframe its PAT may be (muxers send it a packet or two ahead).
    public static let patLead = 256

    /// The offset in `bytes` (whole packets from its start) of the last place to play from:
    /// the last PAT within `patLead` packets before the last video keyframe, else that
    /// keyframe; nil when `bytes` holds no video keyframe.
    public static func lastStart(in bytes: [UInt8]) -> Int? {
        var lastPAT: Int?, found: Int?
        var at = 0
        while at + packet <= bytes.count {
            defer { at += packet }
            guard bytes[at] == 0x47 else { continue }
            let pid = Int(bytes[at + 1] & 0x1F) << 8 | Int(bytes[at + 2])
            if pid == 0 {
                lastPAT = at
                continue
            }
            let startsPES = bytes[at + 1] & 0x40 != 0, control = (bytes[at + 3] >> 4) & 3
            guard startsPES, control & 2 != 0, bytes[at + 4] > 0, bytes[at + 5] & 0x40 != 0, control & 1 != 0 else { continue }
            let payload = at + 5 + Int(bytes[at + 4])
            guard payload + 4 <= at + packet, bytes[payload] == 0, bytes[payload + 1] == 0, bytes[payload + 2] == 1,
                  (0xE0...0xEF).contains(bytes[payload + 3]) else { continue }
            found = lastPAT.map { at - $0 <= patLead * packet ? $0 : at } ?? at
        }
        return found
    }
}
