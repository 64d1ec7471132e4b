import Foundation
import Testing

/// What ffprobe reads of a media file, decoding every video frame (`-count_frames`).
public struct ProbedFile: CustomStringConvertible {
    public var video = 0, audio = 0, videoFrames = 0
    public var duration = 0.0

    public init(_ file: URL) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffprobe", "-v", "error", "-count_frames", "-of", "json",
                       "-show_entries", "stream=codec_type,nb_read_frames:format=duration", file.path]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "ffprobe said nothing of \(file.path)")
        for stream in json["streams"] as? [[String: Any]] ?? [] {
            if stream["codec_type"] as? String == "video" {
                video += 1
                videoFrames += Int(stream["nb_read_frames"] as? String ?? "") ?? 0
            }
            if stream["codec_type"] as? String == "audio" { audio += 1 }
        }
        duration = Double((json["format"] as? [String: Any])?["duration"] as? String ?? "") ?? 0
    }

    public var description: String { "\(video) video (\(videoFrames) frames), \(audio) audio, \(duration) s" }
}
