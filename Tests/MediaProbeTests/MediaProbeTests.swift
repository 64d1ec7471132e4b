import Foundation
import MediaProbe
import TestSupport
import Testing

/// `MediaProbe` on real files made here with ffmpeg, a file that is not media, a missing file
/// and a TCP server on loopback that accepts and never answers (the timeout).
@Suite struct MediaProbeTests {
    static let directory: URL = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-probe-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }()

    /// Runs ffmpeg with `arguments` writing `name` in the test directory (on a thread of its
    /// own, not the concurrency pool's).
    static func make(_ name: String, _ arguments: [String]) async throws -> String {
        try await offPool { try makeBlocking(name, arguments) }
    }

    private static func makeBlocking(_ name: String, _ arguments: [String]) throws -> String {
        let out = directory.appendingPathComponent(name).path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-hide_banner", "-loglevel", "error", "-y"] + arguments + [out]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw FixtureError(text: "ffmpeg \(name): \(text)") }
        return out
    }

    struct FixtureError: Error { var text: String }

    @Test func h264AndTwoAACLanguagesInMP4() async throws {
        let file = try await Self.make("two-languages.mp4", [
            "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=6",
            "-f", "lavfi", "-i", "sine=frequency=440:duration=6",
            "-f", "lavfi", "-i", "sine=frequency=660:duration=6",
            "-map", "0:v", "-map", "1:a", "-map", "2:a",
            "-c:v", "libx264", "-profile:v", "main", "-g", "50", "-keyint_min", "50", "-sc_threshold", "0", "-b:v", "800k",
            "-c:a", "aac", "-b:a", "96k", "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra",
            "-metadata", "title=Two languages",
        ])
        let info = try await MediaProbe.probe(file)
        #expect(info.container.contains("mp4"))
        #expect(info.tags["title"] == "Two languages")
        #expect(abs((info.duration ?? 0) - 6) < 0.2)
        let video = try #require(info.videoStreams.first)
        #expect(video.codec == "h264")
        #expect(video.profile == "Main")
        #expect(video.video?.width == 640 && video.video?.height == 360)
        #expect(video.video?.frameRate == 25)
        #expect(video.video?.fieldOrder == "progressive")
        #expect(video.video?.bitDepth == 8)
        #expect(abs((video.keyframeInterval ?? 0) - 2) < 0.05, "keyframe interval \(String(describing: video.keyframeInterval))")
        #expect(info.audioStreams.map(\.codec) == ["aac", "aac"])
        #expect(info.audioStreams.map(\.language) == ["eng", "fra"])
        #expect(info.audioStreams.first?.profile == "LC")
        #expect(info.audioStreams.first?.audio?.sampleRate == 44100)
        #expect((info.bitrate ?? 0) > 500_000)
    }

    @Test func interlacedMPEG2InTransportStream() async throws {
        let file = try await Self.make("interlaced.ts", [
            "-f", "lavfi", "-i", "testsrc2=size=720x576:rate=25:duration=3",
            "-c:v", "mpeg2video", "-flags", "+ilme+ildct", "-top", "1", "-b:v", "4M", "-g", "12",
            "-metadata", "service_name=Interlaced", "-f", "mpegts",
        ])
        let info = try await MediaProbe.probe(file)
        #expect(info.container == "mpegts")
        #expect(info.programs.count == 1)
        #expect(info.programs.first?.tags["service_name"] == "Interlaced")
        let video = try #require(info.videoStreams.first)
        #expect(video.codec == "mpeg2video")
        #expect(video.id == 256, "the PID")
        #expect(video.video?.width == 720 && video.video?.height == 576)
        #expect(video.video?.fieldOrder == "top-first")
        #expect(abs((video.keyframeInterval ?? 0) - 0.48) < 0.05, "\(String(describing: video.keyframeInterval))")
    }

    @Test func hevcTenBitWithHDRTags() async throws {
        let file = try await Self.make("hdr.mkv", [
            "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=24:duration=2",
            "-pix_fmt", "yuv420p10le", "-c:v", "libx265", "-x265-params",
            "log-level=error:hdr10=1:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:range=limited:"
                + "master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,50):max-cll=1000,400",
            "-color_primaries", "bt2020", "-color_trc", "smpte2084", "-colorspace", "bt2020nc", "-color_range", "tv",
        ])
        let info = try await MediaProbe.probe(file)
        let video = try #require(info.videoStreams.first)
        #expect(video.codec == "hevc")
        #expect(video.profile == "Main 10")
        #expect(video.video?.bitDepth == 10)
        #expect(video.video?.colorPrimaries == "bt2020")
        #expect(video.video?.colorTransfer == "smpte2084")
        #expect(video.video?.colorMatrix == "bt2020nc")
        #expect(video.video?.colorRange == "tv")
        #expect(video.video?.dynamicRange == "PQ")
        let hdr = try #require(video.video?.hdr)
        #expect(hdr.maxCLL == 1000 && hdr.maxFALL == 400)
        #expect(hdr.maxLuminance == 1000)
        #expect(hdr.minLuminance == 0.005)
        #expect(hdr.primaries?.first == [0.68, 0.32], "red: \(String(describing: hdr.primaries))")
    }

    @Test func chaptersFromFFMetadata() async throws {
        let metadata = Self.directory.appendingPathComponent("chapters.txt")
        try """
            ;FFMETADATA1
            title=With chapters
            [CHAPTER]
            TIMEBASE=1/1000
            START=0
            END=2000
            title=Opening
            [CHAPTER]
            TIMEBASE=1/1000
            START=2000
            END=5000
            title=Middle part
            [CHAPTER]
            TIMEBASE=1/1000
            START=5000
            END=6000
            title=Credits

            """.write(to: metadata, atomically: true, encoding: .utf8)
        let file = try await Self.make("chapters.mkv", [
            "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=6", "-i", metadata.path,
            "-map_metadata", "1", "-map_chapters", "1", "-c:v", "libx264", "-g", "25",
        ])
        let info = try await MediaProbe.probe(file)
        #expect(info.chapters.map(\.title) == ["Opening", "Middle part", "Credits"])
        #expect(info.chapters.map(\.start) == [0, 2, 5])
        #expect(info.chapters.map(\.end) == [2, 5, 6])
        #expect(info.tags["title"] == "With chapters")
    }

    @Test func aFileThatIsNotMediaSaysSo() async throws {
        let file = Self.directory.appendingPathComponent("notes.txt")
        try String(repeating: "this is a shopping list, not a video\n", count: 200).write(to: file, atomically: true, encoding: .utf8)
        do {
            _ = try await MediaProbe.probe(file.path)
            Issue.record("a text file probed as media")
        } catch {
            guard case .notMedia = error else { Issue.record("wrong error: \(error)"); return }
            #expect(error.description.contains("notes.txt is not a media file"), "\(error)")
        }
        var generator = SystemRandomNumberGenerator()
        let noise = Self.directory.appendingPathComponent("noise.bin")
        try Data((0..<3000).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: noise)
        do {
            _ = try await MediaProbe.probe(noise.path)
            Issue.record("random bytes probed as media")
        } catch {
            guard case .notMedia = error else { Issue.record("wrong error for random bytes: \(error)"); return }
        }
        do {
            _ = try await MediaProbe.probe(Self.directory.appendingPathComponent("missing.mp4").path)
            Issue.record("a missing file probed")
        } catch {
            #expect(error == .notFound(source: Self.directory.appendingPathComponent("missing.mp4").path, reason: "no such file"))
        }
    }

    @Test func aURLThatHangsTimesOut() async throws {
        let server = try SilentTCPServer()
        defer { server.close() }
        let started = ContinuousClock.now
        do {
            _ = try await MediaProbe.probe("http://127.0.0.1:\(server.port)/live.ts", options: ProbeOptions(timeout: .seconds(2)))
            Issue.record("a silent server probed")
        } catch {
            guard case .timedOut = error else { Issue.record("wrong error: \(error)"); return }
            #expect(error.description.contains("timed out"))
        }
        // Only bounds a hang: the timeout is 2 s.
        #expect(ContinuousClock.now - started < .seconds(60))
    }
}

/// A TCP listener on loopback that accepts connections and never sends a byte.
final class SilentTCPServer: @unchecked Sendable {
    let socket: Int32
    let port: Int

    init() throws {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, listen(fd, 8) == 0 else { Glibc.close(fd); throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        socket = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Closing the listener; the kernel's backlog held the accepted-but-silent connections.
    func close() { Glibc.close(socket) }
}
