import ConnectionGuard
import Foundation
import Lineup
import Recordings
@testable import Serve
import Testing

extension ServeTests {
    /// `/recordings.m3u` and `/recordings/{id}`: a real store with a real MPEG-TS file, served by
    /// a head-end on loopback and read by curl and ffprobe.
    @Suite struct RecordingRoutes {
        /// A state directory with a recordings store, the files under `recordings/` in it.
        struct Box {
            let state: URL
            let store: RecordingStore
            var directory: URL { state.appendingPathComponent("recordings") }
            var library: StoredRecordings { StoredRecordings(store: store, directory: directory) }

            init() throws {
                state = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-serve-rec-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: state.appendingPathComponent("recordings/News"), withIntermediateDirectories: true)
                store = try RecordingStore(directory: state.path)
            }

            func remove() { try? FileManager.default.removeItem(at: state) }

            /// A box with one finished recording of channel 7, `p:7@1795000000`, whose file is a clip.
            static func withClip() async throws -> Box {
                let box = try Box()
                let name = "News/clip.ts"
                try await RecordingRoutes.writeClip(box.directory.appendingPathComponent(name).path)
                _ = try box.record("p:7@1795000000", file: name, bytes: 1)
                return box
            }

            /// A recording of channel 7's "News" stored as the recording service stores one:
            /// scheduled, its file named, a part written (and finished unless `writing`).
            func record(_ id: String, file: String, bytes: Int64, writing: Bool = false) throws -> Recording {
                let start = Date(timeIntervalSince1970: 1_795_000_000)
                let programme = ProgrammeData(title: "News", subTitle: "Late", episodeXMLTVNS: "0.1.", icon: "https://example.com/news.png",
                                              start: start, stop: start.addingTimeInterval(1800))
                try store.save(Recording(id: RecordingID(id), channel: ChannelNumber(7), programme: programme,
                                         paddedStart: start.addingTimeInterval(-60), paddedEnd: start.addingTimeInterval(1980)))
                try store.setFilePath(RecordingID(id), file)
                try store.appendPart(to: RecordingID(id), at: start)
                if writing {
                    try store.updatePart(RecordingID(id), number: 1, bytes: bytes, at: start.addingTimeInterval(2))
                } else {
                    try store.finishPart(RecordingID(id), number: 1, bytes: bytes, at: start.addingTimeInterval(4))
                    try store.finish(RecordingID(id), as: .done)
                }
                return try #require(try store.recording(RecordingID(id)))
            }
        }

        /// 4 s of ffmpeg's test picture as H.264 in MPEG-TS, at `path`.
        static func writeClip(_ path: String) async throws {
            let run = try await runTool("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                                                   "testsrc2=size=320x180:rate=25:duration=4", "-c:v", "libx264", "-g", "25",
                                                   "-f", "mpegts", path], timeout: 60)
            #expect(run.status == 0, "ffmpeg made the clip: \(run.errors)")
        }

        /// One request by curl: the status, the response's head and its body.
        static func fetch(_ url: String, _ arguments: [String] = []) async throws -> (status: Int, head: String, body: Data) {
            let run = try await runTool("curl", ["-s", "-D", "/dev/stderr", "-o", "-"] + arguments + [url])
            let status = run.errors.split(separator: "\n").first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) }
            return (status ?? 0, run.errors, run.output)
        }

        static let news = makeChannel("test://color/ff0000?size=160x90&fps=15", number: 7, name: "News")

        @Test func aRecordingIsListedAndServedWithRanges() async throws {
            let box = try Box()
            defer { box.remove() }
            let name = "News/News - S01E02 - Late (2026-11-18 1053).ts"
            let file = box.directory.appendingPathComponent(name).path
            try await Self.writeClip(file)
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            let size = data.count
            #expect(size > 20_000)
            _ = try box.record("p:7@1795000000", file: name, bytes: Int64(size))
            let start = Date(timeIntervalSince1970: 1_795_100_000)
            try box.store.save(Recording(id: RecordingID("later"), channel: ChannelNumber(7),
                                         programme: ProgrammeData(title: "Later", start: start, stop: start.addingTimeInterval(600)),
                                         paddedStart: start, paddedEnd: start.addingTimeInterval(600)))
            let harness = try await ServeHarness(channels: [Self.news], policy: .none, recordings: box.library)

            let m3u = try await Self.fetch(harness.url("/recordings.m3u"))
            let text = String(decoding: m3u.body, as: UTF8.self)
            let url = harness.url("/recordings/p%3A7%401795000000")
            #expect(m3u.status == 200 && text.hasPrefix("#EXTM3U\n"), "\(m3u.head) \(text)")
            #expect(text.contains(#"tvg-logo="https://example.com/news.png""#) && text.contains(#"group-title="News""#), "\(text)")
            #expect(text.contains(",News - S01E02 - Late ("), "\(text)")
            #expect(text.contains("#EXTINF:4 "), "the duration of the part written: \(text)")
            #expect(text.split(separator: "\n").filter { $0.hasPrefix("http") } == [Substring(url)],
                    "the recording with a file is listed, the scheduled one is not: \(text)")

            let whole = try await Self.fetch(url)
            #expect(whole.status == 200 && whole.body == data, "\(whole.head)")
            #expect(whole.head.lowercased().contains("content-type: video/mp2t") && whole.head.lowercased().contains("accept-ranges: bytes"),
                    "\(whole.head)")
            let head = try await Self.fetch(url, ["-I"])
            #expect(head.status == 200 && head.head.lowercased().contains("content-length: \(size)"), "\(head.head)")

            let part = try await Self.fetch(url, ["-H", "Range: bytes=100-1099"])
            #expect(part.status == 206 && part.body == data[100..<1100], "\(part.head) \(part.body.count) bytes")
            #expect(part.head.contains("Content-Range: bytes 100-1099/\(size)"), "\(part.head)")
            let tail = try await Self.fetch(url, ["-H", "Range: bytes=-500"])
            #expect(tail.status == 206 && tail.body == data.suffix(500), "\(tail.head)")
            #expect(tail.head.contains("Content-Range: bytes \(size - 500)-\(size - 1)/\(size)"), "\(tail.head)")
            let from = try await Self.fetch(url, ["-H", "Range: bytes=\(size - 188)-"])
            #expect(from.status == 206 && from.body == data.suffix(188), "\(from.head)")
            let beyond = try await Self.fetch(url, ["-H", "Range: bytes=\(size)-"])
            #expect(beyond.status == 416 && beyond.head.contains("Content-Range: bytes */\(size)"), "\(beyond.head)")
            let several = try await Self.fetch(url, ["-H", "Range: bytes=0-9,20-29"])
            #expect(several.status == 200 && several.body == data, "several ranges get the whole file: \(several.head)")

            let unknown = try await Self.fetch(harness.url("/recordings/nothing%40here"))
            #expect(unknown.status == 404 && String(decoding: unknown.body, as: UTF8.self).contains("no recording 'nothing@here' on this box"),
                    "\(unknown.head) \(String(decoding: unknown.body, as: UTF8.self))")
            let scheduled = try await Self.fetch(harness.url("/recordings/later"))
            #expect(scheduled.status == 404 && String(decoding: scheduled.body, as: UTF8.self).contains("has not started"),
                    "\(String(decoding: scheduled.body, as: UTF8.self))")

            // A real client reads it as a file: a transport stream with its picture.
            let probe = try await runTool("ffprobe", ["-v", "error", "-show_entries", "format=format_name:stream=codec_type,codec_name",
                                                      "-of", "default=nw=1", url])
            #expect(probe.status == 0 && probe.text.contains("format_name=mpegts") && probe.text.contains("codec_type=video")
                    && probe.text.contains("codec_name=h264"), "\(probe.text) \(probe.errors)")
            let json = try await Self.fetch(harness.url("/recordings.json"))
            #expect(String(decoding: json.body, as: UTF8.self).contains(#""url":"\#(url)""#), "\(String(decoding: json.body, as: UTF8.self))")
            await harness.stop()
        }

        @Test func aRecordingBeingWrittenServesWhatIsWrittenNow() async throws {
            let box = try Box()
            defer { box.remove() }
            let clip = box.state.appendingPathComponent("clip.ts").path
            try await Self.writeClip(clip)
            let data = try Data(contentsOf: URL(fileURLWithPath: clip))
            let name = "News/News - S01E02 - Late (2026-11-18 1053).ts"
            let file = box.directory.appendingPathComponent(name)
            let half = data.count / 2 / 188 * 188
            try data.prefix(half).write(to: file)
            _ = try box.record("p:7@1795000000", file: name, bytes: Int64(half), writing: true)
            let harness = try await ServeHarness(channels: [Self.news], policy: .none, recordings: box.library)
            let url = harness.url("/recordings/p%3A7%401795000000")

            let m3u = String(decoding: try await Self.fetch(harness.url("/recordings.m3u")).body, as: UTF8.self)
            #expect(m3u.contains("#EXTINF:-1 ") && m3u.contains(url), "listed while it is written, with no duration: \(m3u)")
            let first = try await Self.fetch(url)
            #expect(first.status == 200 && first.body == data.prefix(half), "\(first.head) \(first.body.count) bytes of \(half)")
            // The recorder writes on; the next request gets what is there then.
            let handle = try FileHandle(forWritingTo: file)
            try handle.seekToEnd()
            try handle.write(contentsOf: data.suffix(from: half))
            try handle.close()
            let second = try await Self.fetch(url, ["-H", "Range: bytes=\(half)-"])
            #expect(second.status == 206 && second.body == data.suffix(from: half) && second.head.contains("/\(data.count)"), "\(second.head)")
            await harness.stop()
        }

        @Test func withoutRecordingsOrWithoutTheTokenNothingIsServed() async throws {
            let bare = try await ServeHarness(channels: [Self.news], policy: .none)
            for path in ["/recordings.m3u", "/recordings.json", "/recordings/p%3A7%401795000000"] {
                let answer = try await Self.fetch(bare.url(path))
                #expect(answer.status == 404 && String(decoding: answer.body, as: UTF8.self).contains("this box keeps no recordings"),
                        "\(path): \(answer.head)")
            }
            await bare.stop()

            // Off loopback (here: forwarded by a proxy that was not declared) only the token gets in,
            // and the URLs listed for it carry it, so a player can open them.
            let box = try await Box.withClip()
            defer { box.remove() }
            let harness = try await ServeHarness(channels: [Self.news], policy: .none, recordings: box.library) {
                $0.token = "rec-token"
            }
            let forwarded = ["-H", "X-Forwarded-For: 192.168.1.7"]
            #expect(try await Self.fetch(harness.url("/recordings.m3u"), forwarded).status == 403)
            #expect(try await Self.fetch(harness.url("/recordings/p%3A7%401795000000"), forwarded).status == 403)
            let m3u = try await Self.fetch(harness.url("/recordings.m3u?token=rec-token"), forwarded)
            let url = String(decoding: m3u.body, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("http") }.map(String.init)
            #expect(url == harness.url("/recordings/p%3A7%401795000000?token=rec-token"), "\(String(decoding: m3u.body, as: UTF8.self))")
            #expect(try await Self.fetch(url ?? "", forwarded + ["-I"]).status == 200)
            await harness.stop()
        }

        @Test func aLockedChannelsRecordingsNeedTheToken() async throws {
            let box = try await Box.withClip()
            defer { box.remove() }
            let harness = try await ServeHarness(channels: [Self.news], policy: .none, recordings: box.library) {
                $0.token = "owner-token"
                $0.locks = ServeLocks(lockedChannels: [ChannelNumber(7)])
            }
            let listed = String(decoding: try await Self.fetch(harness.url("/recordings.m3u")).body, as: UTF8.self)
            #expect(listed == "#EXTM3U\n", "a locked channel's recording is not listed: \(listed)")
            let refused = try await Self.fetch(harness.url("/recordings/p%3A7%401795000000"))
            #expect(refused.status == 403 && String(decoding: refused.body, as: UTF8.self).contains("locked"), "\(refused.head)")
            let owner = String(decoding: try await Self.fetch(harness.url("/recordings.m3u?token=owner-token")).body, as: UTF8.self)
            #expect(owner.contains(harness.url("/recordings/p%3A7%401795000000?token=owner-token")), "\(owner)")
            #expect(try await Self.fetch(harness.url("/recordings/p%3A7%401795000000?token=owner-token"), ["-I"]).status == 200)
            await harness.stop()
        }

        @Test(arguments: [
            (nil, ByteRange.whole),
            ("bytes=100-1099", .part(100...1099)),
            ("bytes=-500", .part(9500...9999)),
            ("bytes=-20000", .part(0...9999)),
            ("bytes=9000-", .part(9000...9999)),
            ("bytes=9000-20000", .part(9000...9999)),
            ("Bytes = 0-0", .part(0...0)),
            ("bytes=10000-", .unsatisfiable),
            ("bytes=99999999999999999999999-", .unsatisfiable),
            ("bytes=-0", .unsatisfiable),
            ("bytes=5-1", .whole),
            ("bytes=0-1,5-6", .whole),
            ("items=0-1", .whole),
            ("bytes=a-b", .whole),
            ("bytes=-", .whole),
            ("bytes=" + String(repeating: "1", count: 300) + "-", .whole),
        ] as [(String?, ByteRange)])
        func rangeHeaders(_ header: String?, _ expected: ByteRange) {
            #expect(ByteRange(header: header, size: 10_000) == expected, "\(header ?? "no header")")
        }

        @Test func anEmptyFileHasNoRange() {
            #expect(ByteRange(header: "bytes=0-", size: 0) == .unsatisfiable)
            #expect(ByteRange(header: "bytes=-5", size: 0) == .unsatisfiable)
            #expect(ByteRange(header: nil, size: 0) == .whole)
        }
    }
}
