import Foundation
import Testing

/// `flipbox probe` and `flipbox lineup check --probe` as a person runs them: a real file made
/// with ffmpeg, a text file, and a source that accepts connections and never answers.
@Suite struct ProbeCommandTests {
    static func ffmpeg(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-hide_banner", "-loglevel", "error", "-y"] + arguments
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test func probeReportsAFileAndRefusesText() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-probe-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("news.ts").path
        try Self.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=4", "-f", "lavfi", "-i", "sine=duration=4",
                         "-c:v", "libx264", "-g", "25", "-c:a", "aac", "-metadata:s:a:0", "language=deu", file])
        let text = try FlipboxProcess.runToEnd(["probe", file])
        #expect(text.status == 0, "\(text.output)")
        #expect(text.output.contains("video: h264 High") && text.output.contains("640x360 25 fps"), "\(text.output)")
        #expect(text.output.contains("language deu") && text.output.contains("keyframe every 1.00 s"), "\(text.output)")
        let json = try FlipboxProcess.runToEnd(["probe", file, "--json"])
        let object = (try JSONSerialization.jsonObject(with: Data(json.output.utf8))) as? [String: Any] ?? [:]
        #expect(object["container"] as? String == "mpegts", "\(json.output.prefix(400))")
        #expect((object["streams"] as? [[String: Any]])?.count == 2)

        let notes = dir.appendingPathComponent("notes.txt")
        try "a shopping list\n".write(to: notes, atomically: true, encoding: .utf8)
        let refused = try FlipboxProcess.runToEnd(["probe", notes.path])
        #expect(refused.status == 1)
        #expect(refused.output.contains("notes.txt is not a media file"), "\(refused.output)")
        #expect(!refused.output.contains(" @ 0x"), "no FFmpeg log lines: \(refused.output)")
    }

    @Test func lineupCheckProbesEverySourceWithATimeout() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-probe-lineup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("film.mkv").path
        try Self.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=3", "-c:v", "libx264", "-g", "50", file])
        // Accepts connections (the kernel's backlog) and never sends a byte.
        let silent = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(silent) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(silent, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        listen(silent, 8)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(silent, $0, &length) } }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let lineup = dir.appendingPathComponent("lineup.yaml")
        try """
            channels:
              - number: 1
                name: Film
                source: file://\(file)
              - number: 2
                name: Hangs
                source: http://127.0.0.1:\(port)/live.ts
              - number: 3
                name: Bars
                source: test://smpte
            """.write(to: lineup, atomically: true, encoding: .utf8)
        let r = try FlipboxProcess.runToEnd(["lineup", "check", lineup.path, "--probe", "--probe-timeout", "2s"])
        #expect(r.status == 1, "a source that hangs fails the check: \(r.output)")
        #expect(r.output.contains("channel 1 'Film': matroska,webm: h264 High 320x180 25 fps (keyframe every 2.00 s)"), "\(r.output)")
        #expect(r.output.contains("channel 2 'Hangs': error: http://127.0.0.1:\(port)/live.ts: no answer within 2 s"), "\(r.output)")
        #expect(r.output.contains("channel 3 'Bars': test://smpte: synthetic, not probed"), "\(r.output)")
        #expect(r.output.contains("probe: 2 of 3 sources answered"), "\(r.output)")
    }
}
