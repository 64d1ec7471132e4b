@testable import MediaFormats
import Testing

/// Bytes a hostile or broken source can put inside its stream (issue 32): lengths that point
/// past a packet, a section, a frame or the buffer. Each scanner reads what is there and stops
/// at the end, never past it (`make fuzz-media` feeds them any bytes; these are the edges it
/// starts from, as docs/security.md lists them).
@Suite struct HostileStreamBytesTests {
    /// A TS packet of `pid` starting a payload unit, its payload `payload` (padded with 0xFF);
    /// `adaptation`: the adaptation field's length byte, when it has one.
    static func packet(pid: Int, adaptation: UInt8? = nil, payload: [UInt8]) -> [UInt8] {
        var p: [UInt8] = [0x47, 0x40 | UInt8(pid >> 8), UInt8(pid & 0xFF), adaptation == nil ? 0x10 : 0x30]
        if let adaptation { p += [adaptation] + [UInt8](repeating: 0xFF, count: min(Int(adaptation), 183)) }
        p += payload
        return Array((p + [UInt8](repeating: 0xFF, count: max(0, 188 - p.count))).prefix(188))
    }

    /// A video PES header with PTS `pts`.
    static func videoPES(pts: Int64) -> [UInt8] {
        [0, 0, 1, 0xE0, 0, 0, 0x80, 0x80, 5,
         UInt8(0x21 | ((pts >> 29) & 0x0E)), UInt8((pts >> 22) & 0xFF), UInt8(0x01 | ((pts >> 14) & 0xFE)),
         UInt8((pts >> 7) & 0xFF), UInt8(0x01 | ((pts << 1) & 0xFE))]
    }

    @Test func videoTimestampsAreReadFromWholePacketsOnly() {
        let pts: Int64 = (1 << 33) - 1
        let one = Self.packet(pid: 256, payload: Self.videoPES(pts: pts))
        #expect(VideoPES.timestamps(in: one + one).timestamps == [pts, pts], "33 bits at most")
        // A packet cut by the end of the bytes is left for the next read.
        let (found, rest) = VideoPES.timestamps(in: [0x00, 0x12] + one + one.prefix(100))
        #expect(found == [pts] && rest == 2 + 188)
        // An adaptation field that fills the packet leaves no room for a PES header.
        for length: UInt8 in [170, 173, 183, 255] {
            #expect(VideoPES.timestamp(Self.packet(pid: 256, adaptation: length, payload: Self.videoPES(pts: 1)), at: 0) == nil, "\(length)")
        }
        // Fewer than 188 bytes from `at`, or an `at` outside: no packet.
        #expect(VideoPES.timestamp(one, at: 1) == nil)
        #expect(VideoPES.timestamp(one, at: -188) == nil)
        #expect(VideoPES.timestamp(Array(one.prefix(20)), at: 0) == nil)
        // A PES header without a PTS is a video PES all the same.
        var noPTS = Self.videoPES(pts: 0)
        noPTS[7] = 0
        #expect(VideoPES.timestamp(Self.packet(pid: 256, payload: noPTS), at: 0) == .some(nil))
    }

    @Test func tableLengthsPastTheirSectionAreReadNoFurther() {
        // A PMT whose program_info_length and ES_info_length point past the section.
        var pmt: [UInt8] = [0x02, 0xB0, 0, 0x00, 0x01, 0xC1, 0x00, 0x00, 0xE1, 0x00, 0xFF, 0xFF,
                            0x1B, 0xE1, 0x00, 0xFF, 0xFF, 0x0A, 0xFF]
        pmt[2] = UInt8(pmt.count + 4 - 3)
        let section = pmt + [0, 0, 0, 0]
        #expect(ProgramMapWatch.streams(section).isEmpty, "program_info_length 4095 skips every stream")
        pmt[10] = 0xF0; pmt[11] = 0x00
        #expect(ProgramMapWatch.streams(pmt + [0, 0, 0, 0]).map(\.pid) == [0x100], "ES_info_length 4095 reads the descriptors there are")
        // Descriptors whose lengths run past the loop.
        #expect(!ProgramMapWatch.describesPicture([0x0A, 255, 0x65, 0x6E]))
        #expect(ProgramMapWatch.teletextPages([0x56, 255] + Array("deu".utf8) + [0x10, 0x88, 0x65]).count == 1)
        #expect(TeletextPage.pages(descriptor: [0x65, 0x6E][...]).isEmpty)
        // A section_length past the 1,024 bytes a PAT or PMT has is dropped, not gathered.
        var watch = ProgramMapWatch()
        let pat = Self.packet(pid: 0, payload: [0x00, 0x00, 0xBF, 0xFF] + [UInt8](repeating: 0, count: 180))
        #expect(watch.read([UInt8]((0..<8).flatMap { _ in pat })).isEmpty)
        #expect(watch.programMapPID == nil)
    }

    @Test func captionDataCutShortIsNotRead() {
        var screen = CEA608Screen()
        // Resume caption loading, "HI", end of caption; then a triplet cut short.
        let carries708 = screen.take(ccData: [0xFC, 0x94, 0x20, 0xFC, 0xC8, 0x49, 0xFC, 0x94, 0x2F, 0xFC, 0xC8])
        #expect(!carries708 && screen.text == "HI")
        let found = [[0xFF, 0x02, 0x21], [0xFB, 0x02, 0x21], [], [0xFC], [0xFC, 0x94]].map { screen.take(ccData: $0) }
        #expect(found == [true, false, false, false, false], "a CEA-708 packet start; not valid, so not read; nothing whole")
        // Every byte pair leaves 15 rows of at most 32 columns.
        var any = CEA608Screen()
        for a in UInt8(0x10)...0x1F { for b in stride(from: UInt8(0), through: 0x7F, by: 1) { any.take(a, b); any.take(0x41, 0x42) } }
        let rows = any.text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(rows.count <= 15 && rows.allSatisfy { $0.count <= 32 }, "\(rows)")
    }

    @Test func frameLengthsPastTheBufferEndTheWalk() {
        // A LOAS frame of 8191 bytes in a buffer of 10: one start, and a configuration read
        // only from the bytes there are.
        let frames = LOASFrames([0x56, 0xFF, 0xFF, 0x00, 0x00, 0, 0, 0, 0, 0])
        #expect(frames.starts == [0])
        #expect(LOASFrames.frameDuration(configAt: 3, in: [0x56, 0xE0, 0x05, 0x20]) == nil, "the configuration runs past the bytes")
        #expect(LOASFrames.frameDuration(configAt: 40, in: [0x56]) == nil)
        // An explicit rate of 1 Hz and 64 sub-frames: 65,536 s, no overflow.
        var config = BitString()
        config.append(0, bits: 1); config.append(0, bits: 1); config.append(0, bits: 1)  // useSameStreamMux, version, allStreamsSameTimeFraming
        config.append(63, bits: 6); config.append(0, bits: 4); config.append(0, bits: 3)
        config.append(2, bits: 5); config.append(15, bits: 4); config.append(1, bits: 24)
        #expect(LOASFrames.frameDuration(configAt: 0, in: config.bytes) == UInt(64 * 1024) * 1_000_000_000)
    }

    @Test func burstLengthsAreWhatTheSamplesHold() throws {
        // A burst whose Pd says 65,535 bits with 10 samples after it: not a frame.
        let samples: [Int16] = [Int16(bitPattern: IEC61937.syncA), Int16(bitPattern: IEC61937.syncB), 1, -1] + [Int16](repeating: 0x0B77, count: 10)
        #expect(IEC61937.ac3Frames(in: samples).isEmpty)
        // The largest frame a burst holds goes through and back; one byte more is refused.
        var frame = [UInt8](repeating: 0x55, count: IEC61937.ac3BurstBytes - IEC61937.headerBytes)
        frame[0] = 0x0B; frame[1] = 0x77; frame[4] = 0x00
        let burst = try IEC61937.burst(ac3: frame)
        let back = stride(from: 0, to: burst.count, by: 2).map { Int16(bitPattern: UInt16(burst[$0]) | UInt16(burst[$0 + 1]) << 8) }
        #expect(IEC61937.ac3Frames(in: back) == [frame])
        #expect(throws: IEC61937.Refusal.tooLarge(frame.count + 1)) { try IEC61937.burst(ac3: frame + [0]) }
        #expect(throws: IEC61937.Refusal.notAC3) { try IEC61937.burst(ac3: [0x0B, 0x77, 0, 0, 0xC0, 0]) }
    }
}

/// Bits written most significant first, for made-up headers.
struct BitString {
    private(set) var bytes: [UInt8] = []
    private var count = 0

    mutating func append(_ value: Int, bits: Int) {
        for i in stride(from: bits - 1, through: 0, by: -1) {
            if count % 8 == 0 { bytes.append(0) }
            if (value >> i) & 1 == 1 { bytes[count / 8] |= 0x80 >> UInt8(count % 8) }
            count += 1
        }
    }
}
