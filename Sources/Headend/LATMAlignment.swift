import Foundation
import GStreamer

/// Keeps `aacparse` from stalling for good on AAC in LATM (LOAS) joined mid-stream.
///
/// `aacparse` can play nothing before a frame that carries the stream's configuration
/// (StreamMuxConfig), which LATM sends only every few hundred milliseconds. Until then it
/// looks for a frame one byte at a time, through the audio of the frames before, and a few
/// bytes there can look like an ADTS header with an impossible length (under 9 bytes). GStreamer
/// 1.22's parser then waits for "more data" at that same byte, which every new buffer gives it
/// again, and never passes a frame: the channel stays "connecting" until its tune times out
/// (about one cold LATM flip in twenty-five, by where the flip joins the stream).
///
/// The guard sits on the parser's sink pad. Until the first frame carrying the configuration,
/// it drops what comes before (the parser would have thrown it away) and starts the buffer at
/// that frame, dated by the frames it skipped: the parser then finds a frame with its
/// configuration at the first byte, and never searches. After a gap in the stream (`DISCONT`)
/// it passes only buffers that start at a frame. Streams that are not LOAS pass untouched.
final class LATMAlignment: @unchecked Sendable {
    private let lock = NSLock()
    /// nil until the first buffer: whether the pad carries LOAS.
    private var isLOAS: Bool?
    private enum Phase {
        /// No frame with the configuration passed yet.
        case unconfigured
        /// Buffers pass as they come.
        case synced
        /// After a gap: waiting for a buffer that starts at a frame.
        case resyncing
    }
    private var phase = Phase.unconfigured

    /// Guards the `aacparse` sink pad `pad` (on the thread that added the parser).
    static func guardParser(sinkPad pad: Pad) {
        let alignment = LATMAlignment()
        pad.onBufferFiltering { buffer, pad in
            alignment.filter(buffer, isLOAS: { pad.caps?.string("stream-format") == "loas" })
        }
    }

    /// What goes on to the parser in place of `buffer` (streaming thread).
    func filter(_ buffer: Buffer, isLOAS: () -> Bool) -> BufferVerdict {
        lock.withLock {
            if self.isLOAS == nil { self.isLOAS = isLOAS() }
            guard self.isLOAS == true else { return .pass }
            if phase == .synced {
                guard buffer.isDiscont else { return .pass }
                phase = .resyncing
            }
            let frames = buffer.withBytes { LOASFrames(Array($0)) } ?? LOASFrames([])
            if phase == .resyncing {
                // After a gap: the parser knows the configuration, any frame start will do.
                guard frames.starts.first == 0 else { return .drop }
                phase = .synced
                return .pass
            }
            guard let start = frames.firstConfigured else { return .drop }
            phase = .synced
            guard start.index > 0 else { return .pass }
            guard buffer.pts.isValid, let frameDuration = start.frameDuration else {
                // A configuration it cannot read: the buffer's own time, a few frames early.
                return .replace(buffer.tail(from: start.offset, pts: buffer.pts))
            }
            return .replace(buffer.tail(from: start.offset, pts: buffer.pts + ClockTime(start.index) * frameDuration))
        }
    }
}

/// The LOAS frames (AudioSyncStream, ISO/IEC 14496-3 1.7.2) a buffer starts with, walked from
/// its first byte: an 11-bit sync word 0x2B7 and a 13-bit length each.
struct LOASFrames {
    /// Where each frame starts (the last may end past the buffer).
    private(set) var starts: [Int] = []
    /// The first frame that carries its StreamMuxConfig: its index, offset and the time one
    /// frame lasts by that configuration (nil when it cannot be read).
    private(set) var firstConfigured: (index: Int, offset: Int, frameDuration: ClockTime?)?

    init(_ bytes: [UInt8]) {
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
    /// `at` (bit 0 is `useSameStreamMux`): its sub-frames of 1024 samples at the sampling rate
    /// of its AudioSpecificConfig. Nil for another version or a rate it does not say.
    static func frameDuration(configAt at: Int, in bytes: [UInt8]) -> ClockTime? {
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
        return ClockTime((subFrames + 1) * 1024) * ClockTime.second / ClockTime(rate)
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
