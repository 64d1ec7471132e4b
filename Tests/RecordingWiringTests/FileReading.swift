import Foundation

/// What ffprobe makes of a recording, decoding every frame: `key=value` lines of its streams
/// and format, read into the few figures the tests look at.
struct FileReading: CustomStringConvertible {
    var videoFrames = 0
    var audioStreams = 0
    var duration = 0.0

    init(_ file: URL) throws {
        let pipe = Pipe(), ffprobe = Process()
        ffprobe.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        ffprobe.arguments = ["-v", "error", "-count_frames", "-of", "default=noprint_wrappers=1",
                             "-show_entries", "stream=codec_type,nb_read_frames:format=duration", file.path]
        (ffprobe.standardOutput, ffprobe.standardError) = (pipe, FileHandle.nullDevice)
        try ffprobe.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        ffprobe.waitUntilExit()
        var kind = ""
        for line in text.split(separator: "\n") {
            let pair = line.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { continue }
            switch pair[0] {
            case "codec_type":
                kind = pair[1]
                if kind == "audio" { audioStreams += 1 }
            case "nb_read_frames" where kind == "video": videoFrames += Int(pair[1]) ?? 0
            case "duration": duration = Double(pair[1]) ?? duration
            default: break
            }
        }
    }

    var description: String { "\(videoFrames) video frames, \(audioStreams) audio streams, \(duration) s" }
}
