import GStreamer
import Testing

/// The splice guard on bytes (what `make fuzz-splice` feeds it): a well-formed splice_insert
/// passes, one whose command overruns its section is caught, a packet cut in two waits for its
/// rest, and bytes with no packet structure turn cues off.
@Suite struct SpliceGuardTests {
    /// A splice_insert section (table 0xFC, 40 bytes with its CRC), as SCTE-35 writes one.
    static let section: [UInt8] = [
        0xFC, 0x30, 0x25, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xF0, 0x14, 0x05, 0x00, 0x00,
        0x00, 0x2A, 0x7F, 0xEF, 0xFE, 0x00, 0x0D, 0xBB, 0xA0, 0xFE, 0x00, 0x29, 0x32, 0xE0, 0x00, 0x01,
        0x00, 0x00, 0x00, 0x00, 0x16, 0xA7, 0xC4, 0xB8,
    ]

    /// `section` in one TS packet of PID 500 with the payload unit start and a pointer field.
    static func packet(_ section: [UInt8], continuity: UInt8 = 0) -> [UInt8] {
        let head: [UInt8] = [0x47, 0x40 | UInt8(500 >> 8), UInt8(500 & 0xFF), 0x10 | (continuity & 0x0F), 0x00]
        return head + section + [UInt8](repeating: 0xFF, count: 188 - head.count - section.count)
    }

    @Test func wellFormedPassesAndAnOverrunningCommandIsCaught() throws {
        try GStreamer.initialize()
        let guarded = SpliceGuard()
        #expect(guarded.feed(Self.packet(Self.section)) == .clean)
        // splice_command_length says 0x0FF0 bytes: past the section's end.
        var overrun = Self.section
        overrun[11] = 0xFF
        overrun[12] = 0xF0
        #expect(guarded.feed(Self.packet(overrun, continuity: 1)) == .malformed)
        // A packet in two pieces: the first waits, the rest completes it.
        let whole = Self.packet(Self.section, continuity: 2)
        #expect(guarded.feed(Array(whole[..<100])) == .held)
        #expect(guarded.feed(Array(whole[100...]) + Self.packet(Self.section, continuity: 3)) == .clean)
    }

    @Test func bytesWithoutPacketsTurnCuesOff() throws {
        try GStreamer.initialize()
        let guarded = SpliceGuard()
        #expect(guarded.feed([UInt8](repeating: 0x11, count: 188 * 5)) == .unaligned)
        #expect(guarded.feed(Self.packet(Self.section)) == .unaligned, "off for good")
    }
}
