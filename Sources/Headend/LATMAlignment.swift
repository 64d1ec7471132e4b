import Foundation
import GStreamer
import MediaFormats

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
