import Foundation
import GStreamer
@testable import Headend
import Lineup
import Logging
@testable import MediaFormats
import Testing

extension HeadendTests {
    /// SCTE-35 cues from sources that do not come in whole TS packets (a file served over
    /// loopback HTTP, read in blocks of any size; the same as an HLS playlist) and on a radio
    /// channel: a live `mpegtsmux` with an SCTE-35
    /// PID writes an 8 s file with a time_signal placement opportunity at 2 s (2 s long) and a
    /// splice_insert longer than one TS packet at 5 s (1.5 s long); a malformed section spread
    /// over two packets is put in between by hand. The channel lists both breaks, 3 s apart,
    /// and the malformed one is dropped before the demuxer and told once.
    @Suite struct SpliceCueSources {
        init() throws { try GStreamer.initialize() }

        static let pid = 500

        /// With video, and a radio channel (AAC only: the cues are read on its sound).
        @Test(arguments: [true, false])
        func breaksComeFromATransportStreamOverHTTP(video: Bool) async throws {
            let directory = try TempDirectory()
            defer { directory.remove() }
            try await Self.writeCuedFile(directory.path("cues.ts"), video: video)
            let server = try HTTPFileServer(directory: directory.url)
            defer { server.stop() }
            try await Self.expectCuedBreaks(source: server.url("cues.ts"), video: video)
        }

        /// The same file cut in two at a packet boundary and served as an HLS playlist: the
        /// demuxer gets both segments' bytes in pieces through `hlsdemux`.
        @Test func breaksComeFromAnHLSPlaylist() async throws {
            let directory = try TempDirectory()
            defer { directory.remove() }
            try await Self.writeCuedFile(directory.path("cues.ts"), video: true)
            let bytes = try Data(contentsOf: directory.url.appendingPathComponent("cues.ts"))
            let half = bytes.count / 188 / 2 * 188
            try bytes.prefix(half).write(to: directory.url.appendingPathComponent("one.ts"))
            try bytes.suffix(from: half).write(to: directory.url.appendingPathComponent("two.ts"))
            try Data("""
                #EXTM3U
                #EXT-X-VERSION:3
                #EXT-X-TARGETDURATION:5
                #EXT-X-MEDIA-SEQUENCE:0
                #EXT-X-PLAYLIST-TYPE:VOD
                #EXTINF:4.0,
                one.ts
                #EXTINF:4.0,
                two.ts
                #EXT-X-ENDLIST

                """.utf8).write(to: directory.url.appendingPathComponent("cues.m3u8"))
            let server = try HTTPFileServer(directory: directory.url)
            defer { server.stop() }
            try await Self.expectCuedBreaks(source: server.url("cues.m3u8"), video: true)
        }

        /// Plays `source` on a headend until its cues made the two breaks, and checks them.
        static func expectCuedBreaks(source: String, video: Bool) async throws {
            let warnings = WarningRecorder()
            let logger = Logger(label: "splice-cue-source-test") { _ in warnings }
            let headend = Headend(lineup: Lineup(channels: [makeChannel([source])]), policy: .all,
                                  target: DecodeTarget(width: 320, height: 180), logger: logger)
            await headend.applyPolicy(current: 0, last: nil)
            let source = headend.sources[0]
            // Paced at real time: the second break starts 5 s into the file and lasts 1.5 s.
            let listed = await eventually(within: 30) {
                let breaks = source.spliceCues.intervals(until: Date())
                return breaks.count >= 2 && breaks[1].end < Date()
            }
            let breaks = source.spliceCues.intervals(until: Date())
            #expect(listed, "two breaks: \(breaks); warnings: \(warnings.all)")
            if breaks.count >= 2 {
                #expect(abs(breaks[0].duration - 2) < 0.05, "the placement opportunity's segmentation_duration: \(breaks[0])")
                #expect(abs(breaks[1].duration - 1.5) < 0.05, "the long splice_insert's break_duration: \(breaks[1])")
                let apart = breaks[1].start.timeIntervalSince(breaks[0].start)
                #expect(abs(apart - 3) < 0.5, "3 s apart in the stream, as played: \(apart)")
            }
            #expect(warnings.count { $0.contains("malformed SCTE-35") } == 1, "the bad section dropped, told once: \(warnings.all)")
            #expect(!warnings.all.contains { $0.contains("cues are off") || $0.contains("before any") }, "\(warnings.all)")
            if !video { #expect(source.cache.isAudioOnly, "a radio channel") }
            await headend.shutdown()
        }

        /// Writes an 8 s MPEG-TS with cues (see the suite), live so cues land at their moments.
        static func writeCuedFile(_ path: String, video: Bool) async throws {
            var d = ""
            if video {
                d += "videotestsrc is-live=true num-buffers=240 ! video/x-raw,width=160,height=90,framerate=30/1 ! "
                    + "x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 ! h264parse ! queue ! mux. "
            }
            d += "audiotestsrc is-live=true num-buffers=\(video ? 370 : 375) samplesperbuffer=1024 freq=440 ! audio/x-raw,rate=48000 ! "
                + "audioconvert ! avenc_aac ! aacparse ! queue ! mux. "
                + "mpegtsmux name=mux alignment=7 scte-35-pid=\(pid) ! filesink location=\(path)"
            let pipeline = try Pipeline(description: d)
            defer { pipeline.shutdown() }
            let mux = try #require(pipeline.child(named: "mux"))
            try pipeline.setState(.playing)
            let start = Date()
            func at(_ seconds: Double) -> ClockTime { pipeline.runningTimeNow + ClockTime(max(0, seconds - Date().timeIntervalSince(start)) * 1e9) }
            try await Task.sleep(for: .seconds(1))
            #expect(mux.sendSpliceTimeSignal(at: at(2), segmentation: SpliceSegmentation(eventID: 40, typeID: 0x34, duration: 2 * ClockTime.second)))
            try await Task.sleep(for: .seconds(2.5))
            #expect(mux.sendSpliceInsert(eventID: 41, out: true, at: at(5), duration: ClockTime(1.5e9), padding: 30))
            var ended = false
            for await message in pipeline.messages {
                if case .endOfStream = message { ended = true; break }
                if case .error(_, let text, _) = message { Issue.record("writing the cued file: \(text)"); break }
            }
            #expect(ended)
            pipeline.shutdown()
            try insertMalformedSection(into: path, atFraction: 0.4)
        }

        /// Puts a splice section that does not parse (protocol_version 1), spread over two TS
        /// packets on the SCTE-35 PID, into the file at about `fraction` of it.
        static func insertMalformedSection(into path: String, atFraction fraction: Double) throws {
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            var section: [UInt8] = [0xFC, 0x30, 0, 1, 0x00, 0, 0, 0, 0, 0x00, 0xFF, 0xF0, 0x00, 0x00]
            let descriptors = (0..<30).flatMap { i -> [UInt8] in [0x00, 8, 0x43, 0x55, 0x45, 0x49, 0, 0, 0, UInt8(i)] }
            section += [UInt8(descriptors.count >> 8), UInt8(descriptors.count & 0xFF)] + descriptors
            section[1] = 0x30 | UInt8((section.count - 3 + 4) >> 8)
            section[2] = UInt8((section.count - 3 + 4) & 0xFF)
            let crc = ProgramMapWatch.crc32(section)
            section += [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
            var payload = [0x00] + section // pointer_field
            var packets: [UInt8] = []
            var cc: UInt8 = 0
            var first = true
            while !payload.isEmpty {
                let chunk = Array(payload.prefix(184))
                payload.removeFirst(chunk.count)
                packets += [0x47, (first ? 0x40 : 0x00) | UInt8(pid >> 8), UInt8(pid & 0xFF), 0x10 | cc]
                packets += chunk + [UInt8](repeating: 0xFF, count: 184 - chunk.count)
                cc = (cc + 1) & 0x0F
                first = false
            }
            let at = Int(Double(bytes.count / 188) * fraction) * 188
            bytes.insert(contentsOf: packets, at: at)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
    }
}
