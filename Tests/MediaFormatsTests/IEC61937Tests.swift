import Testing
@testable import MediaFormats

/// AC-3 frames packed in IEC 61937 bursts, as an HDMI receiver reads them.
@Suite struct IEC61937Tests {
    /// A made-up AC-3 frame header: sync word, CRC, `fscod`/`frmsizecod`, `bsid`/`bsmod`.
    static func frame(bytes: Int, fscod: UInt8 = 0, bitstreamMode: UInt8 = 0) -> [UInt8] {
        var f = [UInt8](repeating: 0, count: bytes)
        f[0] = 0x0B; f[1] = 0x77; f[2] = 0x12; f[3] = 0x34
        f[4] = fscod << 6 | 0x14
        f[5] = 8 << 3 | bitstreamMode
        for i in 6..<bytes { f[i] = UInt8(truncatingIfNeeded: i * 7) }
        return f
    }

    @Test func aFrameFillsABurstOfOneAudioFrameWithItsPreambleFirst() throws {
        let frame = Self.frame(bytes: 768, bitstreamMode: 2)
        let burst = try IEC61937.burst(ac3: frame)
        #expect(burst.count == 6144, "1,536 stereo 16-bit frames")
        // Pa, Pb, Pc (type 1 and bsmod 2), Pd (768 bytes in bits), little-endian samples.
        #expect(Array(burst.prefix(8)) == [0x72, 0xF8, 0x1F, 0x4E, 0x01, 0x02, 0x00, 0x18])
        // The frame's big-endian words become samples: each pair swaps.
        #expect(Array(burst[8..<12]) == [0x77, 0x0B, 0x34, 0x12])
        #expect(burst[(8 + 768)...].allSatisfy { $0 == 0 }, "zeros after the frame")
    }

    @Test func theBurstsOfTheOutputGiveBackEveryFrameByteForByte() throws {
        let frames = [Self.frame(bytes: 768), Self.frame(bytes: 1393, bitstreamMode: 7), Self.frame(bytes: 3840)]
        var samples: [Int16] = Array(repeating: 0x1234, count: 77)  // what played before
        for f in frames {
            let b = try IEC61937.burst(ac3: f)
            for i in stride(from: 0, to: b.count, by: 2) { samples.append(Int16(bitPattern: UInt16(b[i]) | UInt16(b[i + 1]) << 8)) }
        }
        let cut = try IEC61937.burst(ac3: Self.frame(bytes: 2000))
        for i in stride(from: 0, to: 200, by: 2) { samples.append(Int16(bitPattern: UInt16(cut[i]) | UInt16(cut[i + 1]) << 8)) }
        #expect(IEC61937.ac3Frames(in: samples) == frames, "an odd-length frame too; the burst cut off is left out")
    }

    @Test func whatABurstCannotCarryIsRefused() {
        #expect(throws: IEC61937.Refusal.sampleRate(44100)) { try IEC61937.burst(ac3: Self.frame(bytes: 768, fscod: 1)) }
        #expect(throws: IEC61937.Refusal.notAC3) { try IEC61937.burst(ac3: [0xFF, 0xF1, 0, 0, 0, 0, 0]) }
        #expect(throws: IEC61937.Refusal.notAC3) { try IEC61937.burst(ac3: [0x0B, 0x77]) }
        #expect(throws: IEC61937.Refusal.tooLarge(6140)) { try IEC61937.burst(ac3: Self.frame(bytes: 6140)) }
        #expect(IEC61937.Refusal.sampleRate(44100).description == "AC-3 at 44100 Hz (the output passes 48 kHz through)")
    }
}
