/// The LOAS frames (AudioSyncStream, ISO/IEC 14496-3 1.7.2) a buffer starts with, walked from
/// its first byte: an 11-bit sync word 0x2B7 and a 13-bit length each.
public struct LOASFrames: Sendable {
    /// Where each frame starts (the last may end past the buffer).
    public private(set) var starts: [Int] = []
    /// The first frame that carries its StreamMuxConfig: its index, offset and the time one
    /// frame lasts by that configuration, in nanoseconds (nil when it cannot be read).
    public private(set) var firstConfigured: (index: Int, offset: Int, frameDuration: UInt?)?

    public init(_ bytes: [UInt8]) {
        var offset = 0
        while offset + 3 <= bytes.count, bytes[offset] == 0x56, bytes[offset + 1] & 0xE0 == 0xE0 {
            starts.append(offset)
            if firstConfigured == nil, offset + 4 <= bytes.count, bytes[offset + 3] & 0x80 == 0 {
                firstConfigured = (starts.count - 1, offset, Self.frameDuration(configAt: offset + 3, in: bytes))
            }
            let length = (Int(bytes[offset + 1] & 0x1F) << 8) | Int(bytes[offset + 2])
            offset += 3 + length
        }
    }

    /// How long one frame lasts by the StreamMuxConfig (version 0) starting at bit 1 of byte
    /// `at` (bit 0 is `useSameStreamMux`), in nanoseconds: its sub-frames of 1024 samples at the
    /// sampling rate of its AudioSpecificConfig. Nil for another version or a rate it does not say.
    static func frameDuration(configAt at: Int, in bytes: [UInt8]) -> UInt? {
        var bits = BitReader(bytes, byte: at, bit: 1)
        guard let version = bits.read(1), version == 0,
              bits.read(1) != nil,                      // allStreamsSameTimeFraming
              let subFrames = bits.read(6),             // numSubFrames (minus one)
              bits.read(4) != nil, bits.read(3) != nil, // numProgram, numLayer
              let objectType = bits.read(5) else { return nil }
        if objectType == 31, bits.read(6) == nil { return nil }
        guard let index = bits.read(4) else { return nil }
        let rates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]
        let rate: Int
        if index == 15 {
            guard let explicit = bits.read(24), explicit > 0 else { return nil }
            rate = explicit
        } else {
            guard index < rates.count else { return nil }
            rate = rates[index]
        }
        return UInt((subFrames + 1) * 1024) * 1_000_000_000 / UInt(rate)
    }

    private struct BitReader {
        let bytes: [UInt8]
        var position: Int
        init(_ bytes: [UInt8], byte: Int, bit: Int) {
            self.bytes = bytes
            position = byte * 8 + bit
        }
        mutating func read(_ count: Int) -> Int? {
            guard position + count <= bytes.count * 8 else { return nil }
            var value = 0
            for _ in 0..<count {
                let bit = (bytes[position / 8] >> (7 - UInt8(position % 8))) & 1
                value = value << 1 | Int(bit)
                position += 1
            }
            return value
        }
    }
}
