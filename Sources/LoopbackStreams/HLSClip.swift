import Foundation

/// An MPEG-TS clip cut into HLS segments by ffmpeg's hls muxer (`-c copy`, so every segment
/// starts at a keyframe), made once and kept next to the clip: the segments' bytes and
/// durations, in order.
///
/// Immutable; safe to share.
public final class HLSClip: Sendable {
    public struct Segment: Sendable {
        /// Seconds, as the muxer's playlist gives them.
        public let duration: Double
        let bytes: [UInt8]
        /// The PTS (90 kHz) of the segment's first video frame in decode order (its first
        /// picture, without B-frames); nil when it has none.
        public var firstVideoPTS: Int64? {
            var i = 0
            while i + 188 <= bytes.count {
                let payloadStart = bytes[i + 1] & 0x40 != 0, control = (bytes[i + 3] >> 4) & 0x3
                var start = i + 4
                if control == 3 { start += 1 + Int(bytes[i + 4]) }
                if bytes[i] == 0x47, payloadStart, control & 1 == 1, start + 14 <= i + 188, bytes[start] == 0, bytes[start + 1] == 0,
                   bytes[start + 2] == 1, (0xE0...0xEF).contains(bytes[start + 3]), bytes[start + 7] & 0x80 != 0 {
                    let b = bytes[start + 9..<start + 14].map(Int64.init)
                    return ((b[0] >> 1) & 0x7) << 30 | b[1] << 22 | (b[2] >> 1) << 15 | b[3] << 7 | b[4] >> 1
                }
                i += 188
            }
            return nil
        }
    }

    public let segments: [Segment]
    /// The longest segment, rounded up (the playlist's target duration).
    public let targetDuration: Int

    /// Cuts the MPEG-TS file at `path` into segments of about `segmentSeconds` (at keyframes),
    /// in a directory beside it named after it, unless that was done before.
    public init(path: String, segmentSeconds: Int) throws {
        let clip = URL(fileURLWithPath: path)
        // The segments and their playlist are made in a directory of their own, put in place whole.
        let directory = try ClipFormat.cached(clip.deletingPathExtension().lastPathComponent + "-hls\(segmentSeconds)",
                                              in: clip.deletingLastPathComponent().path, tool: "ffmpeg",
                                              what: "HLS segments of \(clip.lastPathComponent)") { ffmpeg, output in
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: false)
            try ClipFormat.runTool(ffmpeg, ["-loglevel", "error", "-y", "-i", path, "-c", "copy", "-f", "hls",
                                            "-hls_time", "\(segmentSeconds)", "-hls_list_size", "0",
                                            "-hls_segment_filename", output + "/s%03d.ts", output + "/index.m3u8"])
        }
        let playlist = directory + "/index.m3u8"
        var segments: [Segment] = []
        var duration: Double?
        let text = try String(contentsOfFile: playlist, encoding: .utf8)
        for line in text.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("#EXTINF:") {
                duration = Double(line.dropFirst("#EXTINF:".count).prefix { $0 != "," })
            } else if !line.hasPrefix("#"), let seconds = duration {
                let file = directory + "/" + line
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw TransportStreamClip.Failure(description: "cannot read the HLS segment \(file)")
                }
                segments.append(Segment(duration: seconds, bytes: [UInt8](data)))
                duration = nil
            }
        }
        guard !segments.isEmpty else { throw TransportStreamClip.Failure(description: "\(playlist) names no segments") }
        self.segments = segments
        targetDuration = Int(segments.map(\.duration).max()!.rounded(.up))
    }
}
