import Foundation

/// Writes a Matroska file of `seconds` of ffmpeg's test picture (H.264, a keyframe every `gop`
/// frames at 25 fps) with `chapters` (title, start, end in seconds) as its chapters, made with
/// ffmpeg's `;FFMETADATA1` metadata; returns its path. Throws when ffmpeg fails.
public func makeChapteredFile(in directory: URL, seconds: Int, size: String = "320x180", gop: Int = 25,
                              chapters: [(title: String, start: Double, end: Double)]) throws -> String {
    let metadata = directory.appendingPathComponent("chapters-\(UUID().uuidString).txt")
    var text = ";FFMETADATA1\n"
    for chapter in chapters {
        text += "[CHAPTER]\nTIMEBASE=1/1000\nSTART=\(Int(chapter.start * 1000))\nEND=\(Int(chapter.end * 1000))\ntitle=\(chapter.title)\n"
    }
    try text.write(to: metadata, atomically: true, encoding: .utf8)
    let file = directory.appendingPathComponent("chaptered-\(UUID().uuidString).mkv").path
    let ffmpeg = Process()
    ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    ffmpeg.arguments = ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=25:duration=\(seconds)",
                        "-i", metadata.path, "-map", "0:v", "-map_chapters", "1", "-c:v", "libx264", "-g", "\(gop)", file]
    try ffmpeg.run()
    ffmpeg.waitUntilExit()
    guard ffmpeg.terminationStatus == 0 else {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "ffmpeg could not write \(file) (status \(ffmpeg.terminationStatus))"])
    }
    return file
}
