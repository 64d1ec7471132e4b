import Testing
@testable import MediaFormats

/// Where playing MPEG-TS from gives a picture at once.
@Suite struct TSRandomAccessTests {
    /// A TS packet of `pid`: a PES start of `streamID` with the random access indicator when
    /// `keyframe`, else payload only.
    static func packet(pid: Int, streamID: UInt8? = nil, keyframe: Bool = false) -> [UInt8] {
        var p: [UInt8] = [0x47, UInt8(pid >> 8) | (streamID != nil ? 0x40 : 0), UInt8(pid & 0xFF)]
        if keyframe {
            p += [0x30, 7, 0x40, 0, 0, 0, 0, 0, 0]
        } else {
            p += [0x10]
        }
        if let streamID { p += [0, 0, 1, streamID, 0, 0] }
        return p + [UInt8](repeating: 0xFF, count: 188 - p.count)
    }

    @Test func theLastVideoKeyframeIsFoundWithThePATBeforeIt() {
        let pat = Self.packet(pid: 0), pmt = Self.packet(pid: 0x1000)
        let video = Self.packet(pid: 0x100), audioStart = Self.packet(pid: 0x101, streamID: 0xC0, keyframe: true)
        let key = Self.packet(pid: 0x100, streamID: 0xE0, keyframe: true)
        var bytes = pat + pmt + key + video + audioStart + video
        bytes += pat + pmt + key + video + audioStart
        #expect(TSRandomAccess.lastStart(in: bytes) == 6 * 188, "the second keyframe's PAT")
        // Audio starts carry the indicator too: they are no place to start a picture.
        #expect(TSRandomAccess.lastStart(in: pat + pmt + audioStart + video) == nil)
        // No PAT in reach: the keyframe itself.
        let far = pat + [UInt8](repeating: 0, count: 0) + Array(repeating: video, count: TSRandomAccess.patLead + 1).flatMap { $0 } + key
        #expect(TSRandomAccess.lastStart(in: far) == (TSRandomAccess.patLead + 2) * 188)
    }

    @Test func bytesOutOfSyncOrCutShortGiveNone() {
        #expect(TSRandomAccess.lastStart(in: []) == nil)
        var key = Self.packet(pid: 0x100, streamID: 0xE0, keyframe: true)
        key[0] = 0x46
        #expect(TSRandomAccess.lastStart(in: key) == nil)
        #expect(TSRandomAccess.lastStart(in: Array(Self.packet(pid: 0x100, streamID: 0xE0, keyframe: true).prefix(100))) == nil)
        var lying = Self.packet(pid: 0x100, streamID: 0xE0, keyframe: true)
        lying[4] = 183 // an adaptation field running to the packet's end: no PES header in it
        #expect(TSRandomAccess.lastStart(in: lying) == nil)
    }
}
