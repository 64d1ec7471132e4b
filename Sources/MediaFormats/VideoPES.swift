/// The presentation timestamps of the video PES packets (stream ids 0xE0-0xEF) in an MPEG
/// transport stream, read from the packets that start them. Pure, and safe on any bytes.
public enum VideoPES {
    /// Walks the whole 188-byte packets of `data` (a byte that is not a sync byte is skipped):
    /// the PTS of each packet that starts a video PES, in order (nil for one that has none), and
    /// where the bytes not read yet (a packet cut by the end) start.
    public static func timestamps(in data: [UInt8]) -> (timestamps: [Int64?], rest: Int) {
        var timestamps: [Int64?] = []
        var i = 0
        while i + 188 <= data.count {
            guard data[i] == 0x47 else { i += 1; continue }
            if let pts = timestamp(data, at: i) { timestamps.append(pts) }
            i += 188
        }
        return (timestamps, i)
    }

    /// For a TS packet at `i` (188 bytes of `p` from there) that starts a video PES: its PTS
    /// (nil inside when it has none); nil for any other packet, or when fewer than 188 bytes
    /// are left.
    public static func timestamp(_ p: [UInt8], at i: Int) -> Int64?? {
        guard i >= 0, i <= p.count - 188 else { return nil }
        guard p[i + 1] & 0x40 != 0 else { return nil }  // payload_unit_start_indicator
        let control = (p[i + 3] >> 4) & 0x3
        var start = i + 4
        if control == 2 { return nil }  // adaptation field only
        if control == 3 { start += 1 + Int(p[i + 4]) }
        guard start + 14 <= i + 188, p[start] == 0, p[start + 1] == 0, p[start + 2] == 1,
              (0xE0...0xEF).contains(p[start + 3]) else { return nil }
        guard p[start + 7] & 0x80 != 0 else { return .some(nil) }
        let b = p[start + 9..<start + 14].map(Int64.init)
        let pts = ((b[0] >> 1) & 0x7) << 30 | b[1] << 22 | (b[2] >> 1) << 15 | b[3] << 7 | b[4] >> 1
        return .some(pts)
    }
}
