import Foundation
import TestSupport
import Testing

/// Clips cut from the timeshift buffer of the real binary, over its API and with `flipbox clip`:
/// the clip keeps the source's codec, profile, resolution and bitrate (no re-encode, checked
/// with ffprobe), its length is within one GOP of what was asked, and bad requests say why.
@Suite(.serialized) struct ClipEndToEndTests {
    /// Runs `tool ARGUMENTS`; its standard output.
    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// `source.mp4` in `dir`: a test picture and a tone, H.264 Main and AAC, a keyframe every
    /// second (25 frames), with `encoding`'s bitrates and B-frames.
    static func makeSource(in dir: URL, size: String, seconds: Int, encoding: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let source = dir.appendingPathComponent("source.mp4").path
        let made = try run("/usr/bin/ffmpeg", [
            "-hide_banner", "-loglevel", "error", "-y",
            "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=25:duration=\(seconds)", "-f", "lavfi", "-i", "sine=frequency=440:duration=\(seconds)",
            "-c:v", "libx264", "-profile:v", "main", "-g", "25", "-keyint_min", "25", "-sc_threshold", "0", "-c:a", "aac",
        ] + encoding + [source])
        #expect(made.status == 0, sourceLocation: sourceLocation)
        return source
    }

    /// `lineup.yaml` in `dir`: channel 1 plays `source`, then the channels in `more`.
    static func writeLineup(in dir: URL, source: String, more: String = "") throws -> URL {
        let lineup = dir.appendingPathComponent("lineup.yaml")
        try """
            channels:
              - number: 1
                name: File
                source: \(source)

            """.appending(more).write(to: lineup, atomically: true, encoding: .utf8)
        return lineup
    }

    /// A box playing `lineup` at 320x180 with a 5-minute timeshift and no warm channels, its
    /// cache in `dir`, once it shows channel 1. Stop it when done.
    static func startBox(_ lineup: URL, in dir: URL, more: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws -> FlipboxProcess {
        let box = try FlipboxProcess(arguments: [lineup.path, "--size", "320x180", "--timeshift", "5m"] + more + ["--warm", "none"],
                                     port: freePort(), environment: ["XDG_CACHE_HOME": dir.path])
        #expect(box.waitForStatus(seconds: 30) { ($0["channel"] as? [String: Any])?["number"] as? String == "1" }, "\(box.logText.suffix(600))",
                sourceLocation: sourceLocation)
        return box
    }

    /// Waits (up to 30 s) for clip `id` to be written and saves it at `path`.
    static func download(_ id: String, from box: FlipboxProcess, to path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        var download: (status: Int, body: [UInt8]) = (0, [])
        for _ in 0..<150 {
            download = box.request("GET", "/api/v1/clips/\(id)")
            if download.status != 202 { break }
            Thread.sleep(forTimeInterval: 0.2)
        }
        #expect(download.status == 200, "\(path): \(String(decoding: download.body.prefix(300), as: UTF8.self))", sourceLocation: sourceLocation)
        try Data(download.body).write(to: URL(fileURLWithPath: path))
    }

    /// ffprobe's first video stream and the container's duration.
    static func probe(_ file: String) throws -> (video: [String: Any], duration: Double, streams: Int) {
        let r = try run("/usr/bin/ffprobe", ["-v", "error", "-show_streams", "-show_format", "-of", "json", file])
        let object = (try JSONSerialization.jsonObject(with: Data(r.output.utf8))) as? [String: Any] ?? [:]
        let streams = object["streams"] as? [[String: Any]] ?? []
        let video = streams.first { $0["codec_type"] as? String == "video" } ?? [:]
        let duration = Double((object["format"] as? [String: Any])?["duration"] as? String ?? "") ?? 0
        return (video, duration, streams.count)
    }

    /// Bits per second of the video stream, measured from its packets (the same way for source and clip).
    static func videoBitrate(_ file: String) throws -> Double {
        let r = try run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=size,pts_time", "-of", "csv=p=0", file])
        var bytes = 0.0, first = Double.infinity, last = -Double.infinity
        for line in r.output.split(separator: "\n") {
            let fields = line.split(separator: ",")
            guard fields.count == 2, let pts = Double(fields[0]), let size = Double(fields[1]) else { continue }
            bytes += size
            first = min(first, pts)
            last = max(last, pts)
        }
        return last > first ? bytes * 8 / (last - first) : 0
    }

    /// A locked channel's buffer is not clipped (issue 32: parental locks stopped at the screen).
    @Test func clipsOfALockedChannelAreRefused() async throws {
        // The answers are checked here, not on the box's thread, so a failure is this test's.
        let (refused, open) = try await offPool {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-clips-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let lineup = try Self.writeLineup(in: dir, source: "test://color/00ff00?size=160x90&fps=15&gop=15", more: """
                  - number: 2
                    name: Late Film
                    source: test://color/ff0000?size=160x90&fps=15&gop=15
                """)
            let box = try Self.startBox(lineup, in: dir, more: ["--locked", "2"])
            defer { box.stop() }
            Thread.sleep(forTimeInterval: 4)
            return (box.response("POST", "/api/v1/clips", body: #"{"channel": "2", "from": "-2s", "to": "now", "format": "ts"}"#),
                    box.response("POST", "/api/v1/clips", body: #"{"channel": "1", "from": "-2s", "to": "now", "format": "ts"}"#))
        }
        #expect(refused.status == 403, "\(refused.status) \(refused.body)")
        #expect(refused.body.contains("channel 2 is locked (This channel is locked)") && refused.body.contains("/api/v1/unlock"), "\(refused.body)")
        #expect(open.status == 202, "the open channel is clipped: \(open.status) \(open.body)")
    }

    @Test func clipsKeepTheSourceStreamsAndBadRequestsSayWhy() async throws {
        try await offPool {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-clips-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            // A 1-minute H.264 Main + AAC file at 1.5 Mb/s, a keyframe every second (25 frames).
            let source = try Self.makeSource(in: dir, size: "640x360", seconds: 60,
                                             encoding: ["-b:v", "1500k", "-maxrate", "1500k", "-bufsize", "1500k", "-b:a", "96k"])
            let lineup = try Self.writeLineup(in: dir, source: source, more: """
                  - number: 2
                    name: Never Shown
                    source: test://color/0000ff?size=160x90&fps=15
                """)
            // 256 KB of memory: the clips read most of their GOPs back from segment files.
            let box = try Self.startBox(lineup, in: dir, more: ["--timeshift-memory", "256KB"])
            defer { box.stop() }
            Thread.sleep(forTimeInterval: 12)
            let events = try EventRecorder(url: "http://127.0.0.1:\(box.port)/api/v1/events")

            let started = box.response("POST", "/api/v1/clips", body: #"{"channel": "1", "from": "-8s", "to": "now", "format": "mp4"}"#)
            #expect(started.status == 202, "\(started.body)")
            let job = (try? JSONSerialization.jsonObject(with: Data(started.body.utf8))) as? [String: Any] ?? [:]
            let id = try #require(job["id"] as? String)
            let clip = dir.appendingPathComponent("clip.mp4").path
            try Self.download(id, from: box, to: clip)

            let original = try Self.probe(source), cut = try Self.probe(clip)
            for key in ["codec_name", "profile", "width", "height", "pix_fmt"] {
                #expect("\(cut.video[key] ?? "none")" == "\(original.video[key] ?? "?")", "\(key)")
            }
            #expect(cut.streams == 2, "video and sound")
            let rates = (try Self.videoBitrate(source), try Self.videoBitrate(clip))
            #expect(abs(rates.1 - rates.0) / rates.0 < 0.2, "bitrate \(rates.1) vs the source's \(rates.0)")
            // Asked 8 s; it starts at the keyframe at or before -8 s (GOP: 1 s).
            #expect(cut.duration >= 7 && cut.duration <= 9 + 0.5, "duration \(cut.duration)")

            // The list, the event stream, then the CLI in Matroska.
            let list = box.json("GET", "/api/v1/clips")
            #expect((list.object["clips"] as? [[String: Any]])?.first?["state"] as? String == "done", "\(list)")
            let out = dir.appendingPathComponent("cli.mkv").path
            let cli = try FlipboxProcess.runToEnd(["clip", "1", "--from", "-4s", "--to", "now", "-o", out, "--url", "http://127.0.0.1:\(box.port)"])
            #expect(cli.status == 0, "\(cli.output)")
            let mkv = try Self.probe(out)
            #expect(mkv.video["codec_name"] as? String == "h264" && mkv.duration >= 3 && mkv.duration <= 5.5, "\(mkv)")
            let ts = box.response("POST", "/api/v1/clips", body: #"{"channel": 1, "from": "-3s", "format": "ts"}"#)
            #expect(ts.status == 202, "\(ts.body)")
            let recorded = events.stop()
            let clipEvents = recorded.filter { $0.event == "clip" && $0.data["id"] as? String == id }
            #expect(clipEvents.first?.data["state"] as? String == "done" || clipEvents.contains { $0.data["state"] as? String == "done" }, "\(clipEvents)")

            // Bad input.
            let old = box.response("POST", "/api/v1/clips", body: #"{"channel": "1", "from": "-1h", "to": "now"}"#)
            #expect(old.status == 400 && old.body.contains("the buffer holds"), "\(old.body)")
            let backwards = box.response("POST", "/api/v1/clips", body: #"{"channel": "1", "from": "-2s", "to": "-5s"}"#)
            #expect(backwards.status == 400, "\(backwards.body)")
            let unbuffered = box.response("POST", "/api/v1/clips", body: #"{"channel": "2", "from": "-5s"}"#)
            #expect(unbuffered.status == 409 && unbuffered.body.contains("no timeshift buffer"), "\(unbuffered.body)")
            #expect(box.response("POST", "/api/v1/clips", body: #"{"channel": "9", "from": "-5s"}"#).status == 404)
            #expect(box.response("POST", "/api/v1/clips", body: #"{"channel": "1", "from": "yesterday"}"#).status == 400)
            #expect(box.response("POST", "/api/v1/clips", body: #"{"channel": "1", "from": "-5s", "format": "avi"}"#).status == 400)
            let refused = try FlipboxProcess.runToEnd(["clip", "2", "--from", "-5s", "-o", dir.appendingPathComponent("no.mp4").path,
                                                      "--url", "http://127.0.0.1:\(box.port)"])
            #expect(refused.status == 1 && refused.output.contains("409"), "\(refused.output)")

            // Delete removes the file.
            #expect(box.request("DELETE", "/api/v1/clips/\(id)").status == 204)
            #expect(box.request("GET", "/api/v1/clips/\(id)").status == 404)
            let left = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("flipbox/clips").path)
            #expect(!left.contains { $0.hasPrefix(id) }, "\(left)")
        }
    }

    /// The frames of `file` as 32x18 grey pictures (576 bytes each), in presentation order,
    /// and what ffmpeg said decoding it (empty: it decoded without a complaint).
    static func tinyFrames(_ file: String) throws -> (frames: [[UInt8]], complaints: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-hide_banner", "-v", "error", "-i", file, "-an", "-fps_mode", "passthrough", "-vf", "scale=32:18,format=gray", "-f", "rawvideo", "-"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let complaints = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let bytes = [UInt8](data)
        return (stride(from: 0, to: bytes.count - 575, by: 576).map { Array(bytes[$0..<$0 + 576]) }, complaints)
    }

    /// The source frame `frame` looks most like, and how far off it is (mean difference per pixel).
    static func closest(_ frame: [UInt8], in source: [[UInt8]]) -> (index: Int, difference: Double) {
        var best = (index: -1, difference: Double.infinity)
        for (i, candidate) in source.enumerated() {
            var sum = 0
            for j in 0..<576 { sum += abs(Int(frame[j]) - Int(candidate[j])) }
            let d = Double(sum) / 576
            if d < best.difference { best = (i, d) }
        }
        return best
    }

    /// `exact` clips start and end on the asked frames: their length is what was asked (not up
    /// to a GOP more), every frame decodes, and frame after frame they are the source's frames
    /// in order, across the seams between the re-encoded ends and the copied middle. The
    /// source has B-frames (H.264 Main), so decode and presentation order differ at the seams.
    @Test func exactClipsCutAtTheAskedFramesInEveryContainer() async throws {
        try await offPool {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-exact-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let source = try Self.makeSource(in: dir, size: "320x180", seconds: 30, encoding: ["-bf", "2", "-b:v", "800k", "-b:a", "64k"])
            let sourceFrames = try Self.tinyFrames(source).frames
            #expect(sourceFrames.count >= 740, "\(sourceFrames.count) source frames")
            let lineup = try Self.writeLineup(in: dir, source: source)
            let box = try Self.startBox(lineup, in: dir)
            defer { box.stop() }
            // Well past the start, whose first GOPs arrive in a burst (their wall times bunched).
            Thread.sleep(forTimeInterval: 14)
            for format in ["mp4", "mkv", "ts"] {
                // 3.48 s asked, starting and ending between keyframes (the GOP is 1 s).
                let started = box.response("POST", "/api/v1/clips", body: #"{"channel": "1", "from": "-6.62s", "to": "-3.14s", "format": "\#(format)", "exact": true}"#)
                #expect(started.status == 202, "\(format): \(started.body)")
                let job = (try? JSONSerialization.jsonObject(with: Data(started.body.utf8))) as? [String: Any] ?? [:]
                guard let id = job["id"] as? String else { continue }
                #expect(job["exact"] as? Bool == true)
                let clip = dir.appendingPathComponent("exact.\(format)").path
                try Self.download(id, from: box, to: clip)
                let probe = try Self.probe(clip)
                #expect(probe.video["codec_name"] as? String == "h264" && probe.video["width"] as? Int == 320, "\(format): \(probe.video)")
                let (frames, complaints) = try Self.tinyFrames(clip)
                #expect(complaints.isEmpty, "\(format): ffmpeg decoding the clip said: \(complaints.prefix(500))")
                // 3.48 s at 25 fps: 87 frames, give or take one at each end.
                #expect(abs(frames.count - 87) <= 2, "\(format): \(frames.count) frames for 3.48 s")
                guard let firstFrame = frames.first else { continue }
                let start = Self.closest(firstFrame, in: sourceFrames)
                var outOfOrder: [String] = []
                for (k, frame) in frames.enumerated() {
                    let expected = (start.index + k) % sourceFrames.count
                    let found = Self.closest(frame, in: sourceFrames)
                    if found.index != expected || found.difference > 6 { outOfOrder.append("frame \(k): source \(found.index) (\(String(format: "%.1f", found.difference))), expected \(expected)") }
                }
                #expect(outOfOrder.isEmpty, "\(format): the clip's frames are not the source's in order: \(outOfOrder.prefix(8))")
            }
            // A non-boolean is a bad request.
            let badExact = box.response("POST", "/api/v1/clips", body: #"{"channel": "1", "from": "-3s", "exact": "yes"}"#)
            #expect(badExact.status == 400, "\(badExact.body)")
        }
    }

    /// An exact cut of interlaced video (which the encoders here would make progressive) is
    /// refused when asked (409, saying why and what to ask instead), not later in the job; the
    /// same clip cut at keyframes is written.
    @Test func exactClipsOfInterlacedVideoAreRefusedAtOnce() async throws {
        try await offPool {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-exact-i-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            // 576i25: H.264 coded as fields (MBAFF).
            let source = try Self.makeSource(in: dir, size: "720x576", seconds: 20,
                                             encoding: ["-flags", "+ildct+ilme", "-x264opts", "tff=1", "-b:v", "1500k", "-b:a", "64k"])
            let lineup = try Self.writeLineup(in: dir, source: source)
            let box = try Self.startBox(lineup, in: dir)
            defer { box.stop() }
            Thread.sleep(forTimeInterval: 6)
            let exact = box.response("POST", "/api/v1/clips", body: #"{"channel": "1", "from": "-4.5s", "to": "-1.5s", "exact": true}"#)
            #expect(exact.status == 409 && exact.body.contains("interlaced") && exact.body.contains("keyframes"), "\(exact.status) \(exact.body)")
            #expect((box.json("GET", "/api/v1/clips").object["clips"] as? [[String: Any]])?.isEmpty == true, "a refused clip leaves no job")
            let cut = box.response("POST", "/api/v1/clips", body: #"{"channel": "1", "from": "-4.5s", "to": "-1.5s"}"#)
            #expect(cut.status == 202, "\(cut.body)")
            let job = (try? JSONSerialization.jsonObject(with: Data(cut.body.utf8))) as? [String: Any] ?? [:]
            let id = try #require(job["id"] as? String)
            let clip = dir.appendingPathComponent("clip.mp4").path
            try Self.download(id, from: box, to: clip)
            let probe = try Self.probe(clip)
            #expect(["tt", "bb", "tb", "bt"].contains(probe.video["field_order"] as? String ?? "") && probe.video["width"] as? Int == 720,
                    "still interlaced: \(probe.video)")
        }
    }
}
