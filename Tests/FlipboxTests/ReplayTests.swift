import Foundation
import LoopbackStreams
import Testing

/// `flipbox-lab replay` (`flipbox replay`), the benchmark's one sender for all its channels:
/// every port gets its clip as live MPEG-TS that a real client (ffprobe) reads, and the sender
/// ends with its input.
@Suite struct ReplayTests {
    @Test func sendsEveryChannelFromOneProcessUntilItsInputEnds() throws {
        let dir = ClipFormat.cacheDirectory
        let h264 = try ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 4, bitrateKbps: 400, colour: 0x00FF00).file(in: dir)
        let mpeg2 = try ClipFormat(codec: .mpeg2, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 4, bitrateKbps: 800, colour: 0xFF0000).file(in: dir)
        let base = 41000 + Int.random(in: 0..<100) * 10
        let replay = Process()
        replay.executableURL = FlipboxProcess.lab
        replay.arguments = ["replay", "--loop-skip", "0.05", "\(base)=\(h264)", "\(base + 1)=\(mpeg2)", "\(base + 2)=\(h264)"]
        let input = Pipe(), output = Pipe()
        replay.standardInput = input
        replay.standardOutput = output
        try replay.run()
        defer { if replay.isRunning { kill(replay.processIdentifier, SIGKILL) } }
        #expect(String(decoding: output.fileHandleForReading.availableData, as: UTF8.self).hasPrefix("ready"))

        for (port, codec) in [(base, "h264"), (base + 1, "mpeg2video"), (base + 2, "h264")] {
            let probe = try FlipboxProcess.runToEnd(program: URL(fileURLWithPath: "/usr/bin/ffprobe"), [
                "-v", "error", "-probesize", "2000000", "-analyzeduration", "3000000",
                "-show_entries", "stream=codec_type,codec_name", "-of", "csv=p=0", "udp://127.0.0.1:\(port)?timeout=8000000"])
            #expect(probe.output.contains("\(codec),video"), "port \(port): \(probe.output)")
        }

        try input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(10)
        while replay.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(!replay.isRunning, "the sender outlived its input")
    }
}
