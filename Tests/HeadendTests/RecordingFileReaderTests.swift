import Foundation
@testable import Headend
import LoopbackStreams
@testable import MediaFormats
import Testing

extension HeadendTests {
    /// A seek inside a recording starts reading at the keyframe before the moment asked (with
    /// the tables a demuxer needs first), so the picture comes at once, not at the next keyframe.
    @Suite struct RecordingFileReaderTests {
        @Test func aStartOffsetMovesBackToTheKeyframeBeforeIt() async throws {
            let format = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 6, bitrateKbps: 400)
            let path = try await format.made(in: ClipFormat.cacheDirectory)
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            // The video keyframes as ffprobe's packets say (flags K), by byte position.
            let probe = Process()
            probe.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
            probe.arguments = ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pos,flags", "-of", "csv=p=0", path]
            let out = Pipe()
            probe.standardOutput = out
            try probe.run()
            let listed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            probe.waitUntilExit()
            let keyframes = listed.split(separator: "\n").compactMap { line -> Int? in
                let parts = line.split(separator: ",")
                return parts.count == 2 && parts[1].hasPrefix("K") ? Int(parts[0]) : nil
            }
            #expect(keyframes.count >= 5, "\(listed.prefix(300))")
            let handle = try #require(FileHandle(forReadingAtPath: path))
            defer { try? handle.close() }
            for (i, key) in keyframes.enumerated().dropFirst() {
                // Anywhere from this keyframe to the packet before the next: this keyframe's start.
                let next = i + 1 < keyframes.count ? keyframes[i + 1] : bytes.count
                for offset in [key, (key + next) / 2, next - 188] {
                    let aligned = UInt64(offset - offset % 188)
                    let start = Int(RecordingFileReader.keyframeStart(handle, before: aligned))
                    #expect(start <= key && key - start <= 4 * 188, "offset \(aligned): started at \(start), keyframe at \(key)")
                    #expect(start % 188 == 0 && bytes[start + 1] & 0x1F == 0 && bytes[start + 2] == 0, "starts at the PAT before it")
                }
            }
            // Before the first keyframe's tables: the offset stays.
            #expect(RecordingFileReader.keyframeStart(handle, before: 0) == 0)
        }
    }
}
