import Foundation
import GStreamer
import Headend
import Lineup
import Logging
import LoopbackStreams
import MediaFormats
@testable import Switcher
import TestSupport
import Testing

/// AC-3 passed through undecoded (issue 15): with `audioPassthrough` the output's sound is the
/// channel's own AC-3 frames in IEC 61937 bursts, bit for bit, as a receiver behind HDMI reads
/// them; the language chosen is the one whose frames arrive; E-AC-3 arrives re-encoded as AC-3
/// (a receiver decodes it to the channel's tone); an AAC channel is still decoded.
@Suite(.serialized, .heavy) struct PassthroughPlayerTests {
    static let logger = Logger(label: "test")

    /// The AC-3 frames of audio stream `index` of the clip at `path`, as sent (ffmpeg copies
    /// them out of the transport stream), split by their sizes.
    static func ac3Frames(of path: String, stream index: Int) throws -> [[UInt8]] {
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = ["-v", "error", "-i", path, "-map", "0:a:\(index)", "-c", "copy", "-f", "ac3", "pipe:1"]
        let out = Pipe()
        ffmpeg.standardOutput = out
        try ffmpeg.run()
        let data = [UInt8](out.fileHandleForReading.readDataToEndOfFile())
        ffmpeg.waitUntilExit()
        // 48 kHz frame sizes in 16-bit words, by frmsizecod / 2 (ATSC A/52 table 5.18).
        let words = [64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 640, 768, 896, 1024, 1152, 1280]
        var frames: [[UInt8]] = []
        var i = 0
        while i + 5 < data.count, data[i] == 0x0B, data[i + 1] == 0x77 {
            let code = Int(data[i + 4] & 0x3F) / 2
            guard data[i + 4] >> 6 == 0, code < words.count else { break }
            let size = words[code] * 2
            guard i + size <= data.count else { break }
            frames.append(Array(data[i..<(i + size)]))
            i += size
        }
        return frames
    }

    /// What a receiver hears from AC-3 `frames`: ffmpeg decodes them to 48 kHz stereo.
    static func decode(_ frames: [[UInt8]]) throws -> [Int16] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("passthrough-\(UUID().uuidString).ac3")
        try Data(frames.flatMap { $0 }).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = ["-v", "error", "-f", "ac3", "-i", file.path, "-f", "s16le", "-ac", "2", "-ar", "48000", "pipe:1"]
        let out = Pipe()
        ffmpeg.standardOutput = out
        try ffmpeg.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        ffmpeg.waitUntilExit()
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// The AC-3 frames in the last `milliseconds` of the output's sound, and the distances (in
    /// samples) between the bursts that carried them.
    static func passedThrough(_ player: Player, milliseconds: Int = 600) -> (frames: [[UInt8]], spacings: [Int]) {
        let samples = player.output.recentAudio(milliseconds: milliseconds)
        var starts: [Int] = []
        for i in 0..<max(0, samples.count - 1)
        where UInt16(bitPattern: samples[i]) == IEC61937.syncA && UInt16(bitPattern: samples[i + 1]) == IEC61937.syncB {
            starts.append(i)
        }
        return (IEC61937.ac3Frames(in: samples), zip(starts.dropFirst(), starts).map { $0 - $1 })
    }

    @Test func ac3ReachesTheOutputBitForBitInTheLanguageChosenAndAACIsDecoded() async throws {
        try GStreamer.initialize()
        var tv = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 4, bitrateKbps: 400, colour: 0x0000FF)
        tv.audioCodec = .ac3
        tv.audioTracks = [.init(toneHz: 440, language: "deu"), .init(toneHz: 1000, language: "eng")]
        let aac = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 4, bitrateKbps: 400, toneHz: 600, colour: 0x00FF00)
        var eac3 = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 4, bitrateKbps: 400, toneHz: 700, colour: 0xFF0000)
        eac3.audioCodec = .eac3
        let tvPath = try await tv.made(in: ClipFormat.cacheDirectory)
        let germanSent = try await offPool { try Self.ac3Frames(of: tvPath, stream: 0) }
        let englishSent = try await offPool { try Self.ac3Frames(of: tvPath, stream: 1) }
        #expect(germanSent.count > 100 && englishSent.count > 100, "4 s of 32 ms frames in each language")
        // (A 1 kHz tone repeats every 48 samples, so its frames repeat too.)
        let german = Set(germanSent), english = Set(englishSent)
        #expect(german.isDisjoint(with: english))

        let (senders, channels) = try loopbackChannels([tvPath, try await aac.made(in: ClipFormat.cacheDirectory), try await eac3.made(in: ClipFormat.cacheDirectory)],
                                                       idPrefix: "c", names: ["Surround", "Stereo", "E-AC-3"])
        defer { for s in senders { s.stop() } }
        let lineup = Lineup(channels: channels, settings: ["audio-languages": "eng"])
        var options = PlayerOptions(sink: .headless, width: 320, height: 180, fps: 25, warm: .all)
        options.audioPassthrough = AudioPassthrough(ac3: true, eac3: true)
        let player = try Player(lineup: lineup, options: options, logger: Self.logger)
        try await player.start()
        #expect(await waitUntil(20) { await player.status().channel?.number == ChannelNumber(1) })

        // English, the preferred language: its frames arrive unchanged, one burst per 1,536 samples.
        #expect(await waitUntil(10) { Self.passedThrough(player).frames.count >= 12 })
        let first = Self.passedThrough(player)
        #expect(!first.frames.isEmpty && first.frames.allSatisfy { english.contains($0) },
                "\(first.frames.filter { !english.contains($0) }.count) of \(first.frames.count) frames are not English frames as sent")
        let steady = first.spacings.filter { $0 == 1536 * 2 }.count
        #expect(steady >= first.spacings.count - 2, "bursts follow each other every 1,536 stereo samples: \(first.spacings)")
        let status = await player.audioStatus()
        #expect(status.audio.tracks.map(\.passedThrough) == [true, true])

        // German on request: German frames, and no English one, from then on.
        _ = try await player.selectAudio("German")
        #expect(await waitUntil(5) {
            let frames = Self.passedThrough(player, milliseconds: 300).frames
            return frames.count >= 5 && frames.allSatisfy { german.contains($0) }
        }, "German frames arrive after the switch")

        // An AAC channel is decoded: its tone plays, no burst.
        let flip = await player.flip(.tune(ChannelNumber(2)))
        #expect(flip.ok, "\(flip.error ?? "")")
        #expect(await waitUntil(5) {
            let a = player.output.recentAudio(milliseconds: 300)
            return Self.passedThrough(player, milliseconds: 300).frames.isEmpty && tonePower(a, 600) > 10 * max(tonePower(a, 1000), 1e-9)
        }, "the AAC channel's tone, decoded")
        #expect(await player.audioStatus().audio.tracks.map(\.passedThrough) == [false])

        // E-AC-3: re-encoded as AC-3 (bitstream id 8 or less, not E-AC-3's 16), which a receiver
        // decodes to the channel's 700 Hz tone.
        let third = await player.flip(.tune(ChannelNumber(3)))
        #expect(third.ok, "\(third.error ?? "")")
        #expect(await waitUntil(5) { Self.passedThrough(player, milliseconds: 600).frames.count >= 12 })
        let reencoded = Self.passedThrough(player, milliseconds: 600).frames
        #expect(!reencoded.isEmpty && reencoded.allSatisfy { $0.count > 5 && $0[5] >> 3 <= 8 }, "AC-3 frames: \(reencoded.map { $0.count > 5 ? $0[5] >> 3 : 0 })")
        let heard = try await offPool { try Self.decode(reencoded) }
        #expect(heard.count >= 48 * 300 * 2 && tonePower(heard, 700) > 10 * max(tonePower(heard, 600), 1e-9),
                "the receiver hears the E-AC-3 channel's tone (\(heard.count) samples)")
        #expect(await player.audioStatus().audio.tracks.map(\.passedThrough) == [true])

        // Back to the AC-3 channel: its remembered language, passed through again.
        let back = await player.flip(.tune(ChannelNumber(1)))
        #expect(back.ok, "\(back.error ?? "")")
        #expect(await waitUntil(5) {
            let frames = Self.passedThrough(player, milliseconds: 300).frames
            return frames.count >= 5 && frames.allSatisfy { german.contains($0) }
        }, "German frames again after the flip back")
        await player.shutdown()
    }
}
