import Foundation
import TestSupport
import Testing

/// Recordings in a running box, driven as a person drives them (`flipbox record …` against
/// `flipbox play`), on a made-up guide a minute long: a time range, a series rule that records
/// its first episode and skips a repeat, the events, removal, and bad requests said.
@Suite(.serialized) struct RecordBoxTests {
    static func xmltvTime(_ date: Date) -> String { GuideStatusTests.xmltvTime(date) }

    /// `flipbox record ARGUMENTS --url …`: status and what it printed.
    static func record(_ arguments: [String], port: Int) throws -> (status: Int32, output: String) {
        try FlipboxProcess.runToEnd(["record"] + arguments + ["--url", "http://127.0.0.1:\(port)"])
    }

    /// The box's recordings, by id.
    static func recordings(_ box: FlipboxProcess) -> [String: [String: Any]] {
        let list = box.json("GET", "/api/v1/recordings").object["recordings"] as? [[String: Any]] ?? []
        return Dictionary(list.map { ($0["id"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// Waits until recording `id` is in `state`; its entry then.
    static func wait(_ box: FlipboxProcess, for id: String, state: String, seconds: Double) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let r = recordings(box)[id], r["state"] as? String == state { return r }
            Thread.sleep(forTimeInterval: 0.3)
        }
        return nil
    }

    @Test func aBoxRecordsARangeAndASeriesAndSaysWhatItDid() async throws {
        try await offPool {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-record-e2e-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let t0 = Date()
            func at(_ s: Double) -> String { Self.xmltvTime(t0.addingTimeInterval(s)) }
            // Episode 1 at +16 s (6 s long), its repeat at +40 s, episode 2 at +70 s.
            let xml = """
                <?xml version="1.0" encoding="UTF-8"?>
                <tv>
                  <channel id="news.example"><display-name>News</display-name></channel>
                  <programme channel="news.example" start="\(at(-600))" stop="\(at(16))"><title>Before</title></programme>
                  <programme channel="news.example" start="\(at(16))" stop="\(at(22))">
                    <title>Evening News</title><sub-title>Pilot</sub-title><episode-num system="xmltv_ns">0.0.</episode-num></programme>
                  <programme channel="news.example" start="\(at(22))" stop="\(at(40))"><title>Between</title></programme>
                  <programme channel="news.example" start="\(at(40))" stop="\(at(46))">
                    <title>Evening News</title><sub-title>Pilot</sub-title><episode-num system="xmltv_ns">0.0.</episode-num></programme>
                  <programme channel="news.example" start="\(at(46))" stop="\(at(70))"><title>Between</title></programme>
                  <programme channel="news.example" start="\(at(70))" stop="\(at(76))">
                    <title>Evening News</title><sub-title>Second</sub-title><episode-num system="xmltv_ns">0.1.</episode-num></programme>
                </tv>
                """
            try xml.write(to: dir.appendingPathComponent("guide.xml"), atomically: true, encoding: .utf8)
            let yaml = """
                guide: guide.xml
                channels:
                  - number: 1
                    name: News
                    id: news.example
                    source: test://ball?size=320x180&fps=25&gop=25&tone=440&bitrate=300
                  - number: 2
                    name: Sport
                    source: test://ball?size=320x180&fps=25&gop=25&tone=660&bitrate=300
                """
            let lineup = dir.appendingPathComponent("lineup.yaml")
            try yaml.write(to: lineup, atomically: true, encoding: .utf8)
            let folder = dir.appendingPathComponent("recordings")
            let port = freePort()
            let box = try FlipboxProcess(arguments: [lineup.path, "--recordings-dir", folder.path], port: port,
                                         stateDirectory: dir.appendingPathComponent("state"))
            defer { box.stop() }
            #expect(box.waitForStatus(seconds: 30) { ($0["now"] as? [String: Any])?["title"] as? String == "Before" },
                    "the box started with its guide: \(box.logText.suffix(1500))")
            let events = try EventRecorder(url: "http://127.0.0.1:\(port)/api/v1/events")

            // A time range, exactly as asked.
            let range = try Self.record(["add", "2", "--from", "now", "--to", "+5s", "--title", "Quick"], port: port)
            #expect(range.status == 0, "\(range.output)")
            let rangeID = String(range.output.prefix { $0 != " " })
            #expect(rangeID.hasPrefix("o-"), "\(range.output)")

            // A series rule: episode 1 and 2, not the repeat.
            let rule = try Self.record(["rule", "Evening News", "--new-only", "--padding-before", "0s", "--padding-after", "1s", "--id", "news"], port: port)
            #expect(rule.status == 0, "\(rule.output)")
            #expect(rule.output.hasPrefix("rule news: Evening News"), "\(rule.output)")
            let ruled = Self.recordings(box).values.filter { ($0["rules"] as? [String]) == ["news"] }
            #expect(ruled.count == 2, "episode 1 and 2, the repeat skipped: \(ruled)")
            #expect(Set(ruled.compactMap { $0["episode"] as? String }) == ["S01E01", "S01E02"], "\(ruled)")

            // The range is written and readable.
            let quick = try #require(Self.wait(box, for: rangeID, state: "done", seconds: 20), "\(Self.recordings(box)[rangeID] ?? [:]) \(box.logText.suffix(1500))")
            let quickFile = folder.appendingPathComponent(try #require(quick["file"] as? String)).path
            let quickProbe = try ClipEndToEndTests.probe(quickFile)
            #expect(quickProbe.video["codec_name"] as? String == "h264")
            #expect(abs(quickProbe.duration - 5) <= 1.8, "5 s asked, \(quickProbe.duration) s written")

            // Episode 1 is recorded from 16 s to 23 s (no padding before, 1 s after).
            let first = try #require(ruled.first { $0["episode"] as? String == "S01E01" })
            let firstID = try #require(first["id"] as? String)
            let pilot = try #require(Self.wait(box, for: firstID, state: "done", seconds: 40), "\(Self.recordings(box)[firstID] ?? [:]) \(box.logText.suffix(1500))")
            let pilotFile = try #require(pilot["file"] as? String)
            #expect(pilotFile == "Evening News/Evening News - S01E01 - Pilot (\(Self.fileTime(t0.addingTimeInterval(16)))).ts", "\(pilotFile)")
            let pilotProbe = try ClipEndToEndTests.probe(folder.appendingPathComponent(pilotFile).path)
            #expect(abs(pilotProbe.duration - 7) <= 1.8, "7 s scheduled, \(pilotProbe.duration) s written")
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(pilotFile.replacingOccurrences(of: ".ts", with: ".json")).path),
                    "the sidecar is beside it")

            // A pattern that does not compile is refused, saying where.
            let bad = try Self.record(["rule", "Evening (News", "--pattern"], port: port)
            #expect(bad.status == 1)
            #expect(bad.output.contains("400") && bad.output.contains("Evening (News"), "\(bad.output)")
            // Bad requests to the API: an unknown channel, a body that is not JSON, an end before the start.
            #expect(box.request("POST", "/api/v1/recordings", body: #"{"channel": "42", "programme": "2026-11-28T20:00:00Z"}"#).status == 404)
            #expect(box.request("POST", "/api/v1/recordings", body: "record please").status == 400)
            let backwards = box.response("POST", "/api/v1/recordings", body: #"{"channel": "1", "start": "2026-11-28T20:00:00Z", "end": "2026-11-28T19:00:00Z"}"#)
            #expect(backwards.status == 400 && backwards.body.contains("is not after start"), "\(backwards.body)")

            // Removing the rule drops the episode it alone asked for; removing the range deletes its file.
            #expect(try Self.record(["remove-rule", "news"], port: port).status == 0)
            let left = Self.recordings(box).values.filter { $0["episode"] as? String == "S01E02" && $0["state"] as? String == "scheduled" }
            #expect(left.isEmpty, "episode 2 is no longer scheduled: \(left)")
            let removed = try Self.record(["remove", rangeID], port: port)
            #expect(removed.status == 0, "\(removed.output)")
            #expect(!FileManager.default.fileExists(atPath: quickFile))
            #expect(Self.recordings(box)[rangeID] == nil)
            let unknown = try Self.record(["remove", rangeID], port: port)
            #expect(unknown.status == 1 && unknown.output.contains("404"), "\(unknown.output)")

            // The events said it all, in order for each recording.
            let said = events.stop().filter { $0.event.hasPrefix("recording-") }.map { "\($0.event) \($0.data["id"] as? String ?? "")" }
            for id in [rangeID, firstID] {
                let mine = said.filter { $0.hasSuffix(" " + id) }.map { String($0.prefix { $0 != " " }) }
                #expect(mine.starts(with: ["recording-started", "recording-stopped"]), "\(id): \(said)")
            }
            #expect(said.contains("recording-deleted \(rangeID)"), "\(said)")
            // `list` prints them for a person.
            let listed = try Self.record(["list"], port: port)
            #expect(listed.status == 0 && listed.output.contains("\(firstID)  done  1  ") && listed.output.contains("Evening News - S01E01 - Pilot"),
                    "\(listed.output)")
        }
    }

    /// The on-screen guide's record keys (here over the API, as the keys send them): the
    /// focused programme is recorded, then its series; a second series press says it is one.
    @Test func theGuidesRecordKeysRecordTheFocusedProgrammeAndItsSeries() async throws {
        try await offPool {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-record-guide-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let now = Date()
            func at(_ s: Double) -> String { Self.xmltvTime(now.addingTimeInterval(s)) }
            let xml = """
                <?xml version="1.0" encoding="UTF-8"?>
                <tv><channel id="news.example"><display-name>News</display-name></channel>
                <programme channel="news.example" start="\(at(-300))" stop="\(at(3300))"><title>Quiz Hour</title><episode-num system="onscreen">S02E07</episode-num></programme>
                <programme channel="news.example" start="\(at(86_100))" stop="\(at(89_700))"><title>Quiz Hour</title><episode-num system="onscreen">S02E08</episode-num></programme>
                </tv>
                """
            try xml.write(to: dir.appendingPathComponent("guide.xml"), atomically: true, encoding: .utf8)
            let yaml = """
                guide: guide.xml
                channels:
                  - {number: 1, name: News, id: news.example, source: "test://ball?size=320x180&fps=25&gop=25"}
                """
            let lineup = dir.appendingPathComponent("lineup.yaml")
            try yaml.write(to: lineup, atomically: true, encoding: .utf8)
            let box = try FlipboxProcess(arguments: [lineup.path], port: freePort(), stateDirectory: dir.appendingPathComponent("state"))
            defer { box.stop() }
            #expect(box.waitForStatus(seconds: 30) { ($0["now"] as? [String: Any])?["title"] as? String == "Quiz Hour" }, "\(box.logText.suffix(1500))")
            #expect(box.json("POST", "/api/v1/guide/grid/record").status == 409, "the guide is not open")
            #expect(box.json("POST", "/api/v1/guide/grid").status == 200)
            let one = box.json("POST", "/api/v1/guide/grid/record")
            #expect(one.status == 200 && (one.object["scheduled"] as? String)?.hasPrefix("Recording Quiz Hour at ") == true, "\(one.object)")
            let series = box.json("POST", "/api/v1/guide/grid/record?series=true")
            #expect(series.status == 200 && (series.object["scheduled"] as? String)?.hasPrefix("Series Quiz Hour: ") == true, "\(series.object)")
            let again = box.json("POST", "/api/v1/guide/grid/record?series=true")
            #expect((again.object["scheduled"] as? String)?.hasPrefix("Quiz Hour is recorded as a series already (rule r-") == true, "\(again.object)")
            let listed = Self.recordings(box).values
            #expect(listed.count == 2 && Set(listed.compactMap { $0["episode"] as? String }) == ["S02E07", "S02E08"], "the one on now and tomorrow's: \(listed)")
            #expect(listed.contains { $0["state"] as? String == "recording" && $0["oneOff"] as? Bool == true }, "the one on now records at once: \(listed)")
        }
    }

    /// kill -9 in the middle of a recording: the next start goes on into the same recording, a
    /// second part in the same file, with one gap of about the time the box was down.
    @Test func aRecordingCutByKillGoesOnAfterTheRestartWithItsGap() async throws {
        try await offPool {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-record-kill-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let lineup = dir.appendingPathComponent("lineup.m3u")
            try "#EXTM3U\n#EXTINF:-1,Ball\ntest://ball?size=320x180&fps=25&gop=25&tone=440&bitrate=300\n"
                .write(to: lineup, atomically: true, encoding: .utf8)
            let folder = dir.appendingPathComponent("recordings"), state = dir.appendingPathComponent("state")
            let arguments = [lineup.path, "--recordings-dir", folder.path]
            let first = try FlipboxProcess(arguments: arguments, port: freePort(), stateDirectory: state)
            #expect(first.waitForStatus(seconds: 30) { ($0["channel"] as? [String: Any]) != nil }, "\(first.logText.suffix(1500))")
            let added = try Self.record(["add", "1", "--from", "now", "--to", "+16s", "--title", "Cut"], port: first.port)
            #expect(added.status == 0, "\(added.output)")
            let id = String(added.output.prefix { $0 != " " })
            let writing = Self.wait(first, for: id, state: "recording", seconds: 15)
            #expect(writing != nil, "\(first.logText.suffix(1500))")
            Thread.sleep(forTimeInterval: 3)
            kill(first.process.processIdentifier, SIGKILL)
            first.process.waitUntilExit()
            let killed = Date()

            let second = try FlipboxProcess(arguments: arguments, port: freePort(), stateDirectory: state)
            defer { second.stop() }
            let done = try #require(Self.wait(second, for: id, state: "partial", seconds: 40) ?? Self.recordings(second)[id],
                                    "\(second.logText.suffix(1500))")
            let parts = done["parts"] as? [[String: Any]] ?? [], gaps = done["gaps"] as? [[String: Any]] ?? []
            #expect(done["state"] as? String == "partial", "a gap makes it partial: \(done)")
            #expect(parts.count == 2, "a second part after the restart: \(parts)")
            #expect(gaps.count == 1, "\(gaps)")
            let gap = gaps.first?["seconds"] as? Double ?? -1
            let resumed = (parts.last?["start"] as? String).flatMap { try? Date($0, strategy: .iso8601) }
            let down = resumed.map { $0.timeIntervalSince(killed) } ?? -1
            #expect(gap > 0 && gap <= down + 2, "the gap (\(gap) s) is about the time the box was down (\(down) s after the kill)")
            #expect((done["error"] as? String)?.contains("gap") == true, "\(done)")
            let probe = try ClipEndToEndTests.probe(folder.appendingPathComponent(try #require(done["file"] as? String)).path)
            #expect(probe.video["codec_name"] as? String == "h264", "one file, both parts: \(probe)")
        }
    }

    /// `2026-11-27 2000` in the box's time zone, as file names carry it.
    static func fileTime(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd HHmm"
        return f.string(from: date)
    }
}
