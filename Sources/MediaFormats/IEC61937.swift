/// AC-3 frames packed for an HDMI or S/PDIF receiver to decode (IEC 61937-3): each frame goes in
/// a burst of one audio frame's length at the stream's rate, so a 48 kHz AC-3 frame of 1,536
/// samples fills 1,536 stereo 16-bit frames of the output (6,144 bytes). A burst opens with the
/// four 16-bit words Pa (0xF872), Pb (0x4E1F), Pc (the data type, 1 for AC-3, and the frame's
/// bitstream mode) and Pd (the payload's length in bits); the frame's bytes follow as 16-bit
/// big-endian words, each written as one sample; zeros fill the rest. To the output pipeline this
/// is stereo PCM at 48 kHz, passed on untouched; a receiver finds the bursts by their preamble.
public enum IEC61937 {
    /// The burst's two sync words, as samples.
    public static let syncA: UInt16 = 0xF872
    public static let syncB: UInt16 = 0x4E1F
    /// IEC 61937's data type for AC-3.
    public static let ac3DataType: UInt16 = 1
    /// Bytes of one AC-3 burst: 1,536 stereo frames of 16-bit samples.
    public static let ac3BurstBytes = 1536 * 2 * 2
    /// The time one AC-3 burst plays for, in nanoseconds (a GStreamer `ClockTime`): 1,536
    /// samples at 48 kHz.
    public static let ac3BurstDuration: UInt = 1_000_000_000 * 1536 / 48000
    /// The header's four words, in bytes.
    static let headerBytes = 8

    /// Why a frame cannot be passed through.
    public enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// Not an AC-3 frame (no sync word, or too short to hold its header).
        case notAC3
        /// An AC-3 frame sampled at 44.1 or 32 kHz: the output carries 48 kHz.
        case sampleRate(Int)
        /// A frame larger than a burst holds.
        case tooLarge(Int)

        public var description: String {
            switch self {
            case .notAC3: "not an AC-3 frame"
            case .sampleRate(let hz): "AC-3 at \(hz) Hz (the output passes 48 kHz through)"
            case .tooLarge(let bytes): "an AC-3 frame of \(bytes) bytes (a burst holds \(IEC61937.ac3BurstBytes - IEC61937.headerBytes))"
            }
        }
    }

    /// The sample rate an AC-3 frame's `fscod` gives.
    static func ac3SampleRate(_ frame: [UInt8]) -> Int? {
        guard frame.count > 5 else { return nil }
        switch frame[4] >> 6 {
        case 0: return 48000
        case 1: return 44100
        case 2: return 32000
        default: return nil
        }
    }

    /// The burst carrying one AC-3 `frame` (sync word 0x0B77 first), as the S16LE bytes of
    /// stereo output samples.
    public static func burst(ac3 frame: [UInt8]) throws(Refusal) -> [UInt8] {
        guard frame.count > 5, frame[0] == 0x0B, frame[1] == 0x77 else { throw .notAC3 }
        guard let rate = ac3SampleRate(frame) else { throw .notAC3 }
        guard rate == 48000 else { throw .sampleRate(rate) }
        guard frame.count <= ac3BurstBytes - headerBytes else { throw .tooLarge(frame.count) }
        let bitstreamMode = UInt16(frame[5] & 0x07)
        var out = [UInt8](repeating: 0, count: ac3BurstBytes)
        func put(_ word: UInt16, at i: Int) {
            out[i] = UInt8(word & 0xFF)
            out[i + 1] = UInt8(word >> 8)
        }
        put(syncA, at: 0)
        put(syncB, at: 2)
        put(ac3DataType | bitstreamMode << 8, at: 4)
        put(UInt16(frame.count * 8), at: 6)
        // Each big-endian word of the frame becomes one little-endian sample: the bytes swap.
        var i = 0
        while i < frame.count {
            out[headerBytes + i + 1] = frame[i]
            if i + 1 < frame.count { out[headerBytes + i] = frame[i + 1] }
            i += 2
        }
        return out
    }

    /// The payloads of the AC-3 bursts in `samples` (interleaved 16-bit output samples, as the
    /// output's sound ring keeps them): what a receiver would decode. A burst cut off at the
    /// end is left out.
    public static func ac3Frames(in samples: [Int16]) -> [[UInt8]] {
        var frames: [[UInt8]] = []
        var i = 0
        while i + 4 <= samples.count {
            guard UInt16(bitPattern: samples[i]) == syncA, UInt16(bitPattern: samples[i + 1]) == syncB else { i += 1; continue }
            let info = UInt16(bitPattern: samples[i + 2])
            let bits = Int(UInt16(bitPattern: samples[i + 3]))
            let bytes = bits / 8
            let words = (bytes + 1) / 2
            guard info & 0x1F == ac3DataType, i + 4 + words <= samples.count else { i += 4; continue }
            var frame: [UInt8] = []
            frame.reserveCapacity(words * 2)
            for w in samples[(i + 4)..<(i + 4 + words)] {
                let word = UInt16(bitPattern: w)
                frame.append(UInt8(word >> 8))
                frame.append(UInt8(word & 0xFF))
            }
            frames.append(Array(frame.prefix(bytes)))
            i += 4 + words
        }
        return frames
    }
}
