/// Hides the SUBTITLES renditions of a master playlist from `hlsdemux`, which would fetch their
/// playlists and fail (404) or wait (no answer) with them, and with them the whole channel:
/// `TYPE=SUBTITLES` becomes `TYPE=SUBTITLEZ`, a type it skips. Edits bytes in place as they
/// pass, across buffer boundaries. Not thread-safe: one streaming thread calls it.
struct SubtitleRenditionMask {
    private static let token = Array("TYPE=SUBTITLES".utf8)
    /// How much of `token` the bytes so far end with.
    private var matched = 0

    mutating func mask(_ bytes: UnsafeMutableRawBufferPointer) {
        for i in bytes.indices {
            let b = bytes[i]
            if b == Self.token[matched] {
                matched += 1
            } else {
                matched = b == Self.token[0] ? 1 : 0
            }
            if matched == Self.token.count {
                bytes[i] = UInt8(ascii: "Z")
                matched = 0
            }
        }
    }
}
