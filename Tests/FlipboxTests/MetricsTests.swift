import Foundation
import TestSupport
import Testing

/// `/metrics` of a real box, read by Prometheus's own Python parser (`prometheus_client`, from
/// deploy/install-deps.sh): flip counts move with flips, pipelines stay flat.
@Suite(.serialized) struct MetricsTests {
    /// Samples keyed `name{"label": "value", ...}` (labels as sorted JSON), as the parser reads them.
    static func parse(_ text: [UInt8]) throws -> [String: Double] {
        let script = """
            import sys, json
            from prometheus_client.parser import text_string_to_metric_families
            out = {}
            for family in text_string_to_metric_families(sys.stdin.read()):
                for s in family.samples:
                    out[s.name + (json.dumps(s.labels, sort_keys=True) if s.labels else "")] = s.value
            print(json.dumps(out))
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", script]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = errors
        try p.run()
        input.fileHandleForWriting.write(Data(text))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let problem = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        try #require(p.terminationStatus == 0, "the Prometheus parser refused /metrics: \(problem)")
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Double])
    }

    static func sum(_ samples: [String: Double], _ name: String) -> Double {
        samples.filter { $0.key == name || $0.key.hasPrefix(name + "{") }.values.reduce(0, +)
    }

    func makeLineup() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-metrics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let yaml = """
            settings:
              banner-seconds: 0
            channels:
              - number: 1
                name: Red
                source: test://color/ff0000?size=160x90&fps=15&gop=15
              - number: 2
                name: Green
                source: test://color/00ff00?size=160x90&fps=15&gop=15
              - number: 3
                name: Blue
                source: test://color/0000ff?size=160x90&fps=15&gop=15
            """
        let file = dir.appendingPathComponent("lineup.yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test func flipCountsMoveWithFlipsAndPipelinesStayFlat() async throws {
        try await offPool { try self.scrapeWhileFlipping() }
    }

    func scrapeWhileFlipping() throws {
        let box = try FlipboxProcess(arguments: [try makeLineup().path, "--size", "320x180"], port: freePort())
        defer { box.stop() }
        #expect(box.waitForStatus(seconds: 30) { ($0["lastFlip"] as? [String: Any])?["outcome"] as? String == "completed" },
                "the box never tuned its first channel: \(box.logText.suffix(800))")
        // Every channel shown once, so each has its decoder history; then let the spare settle.
        #expect(box.statuses("POST", ["/api/v1/flip/next", "/api/v1/flip/next", "/api/v1/flip/next"]).allSatisfy { $0 == 200 })
        Thread.sleep(forTimeInterval: 1.5)

        let scrape = box.request("GET", "/metrics")
        try #require(scrape.status == 200, "GET /metrics: \(scrape.status)")
        let before = try Self.parse(scrape.body)
        let flipsBefore = Self.sum(before, "flipbox_flips_total")
        #expect(flipsBefore >= 4, "the first tune and three flips: \(before.filter { $0.key.contains("flips") })")
        #expect(before[#"flipbox_channels{"state": "hot"}"#] == 1, "\(before.filter { $0.key.contains("channels") })")
        let pipelinesBefore = try #require(before["flipbox_pipelines"])
        #expect((before["flipbox_open_files"] ?? 0) > 0)
        #expect((before["flipbox_resident_memory_bytes"] ?? 0) > Double(1 << 20))

        let flips = 20
        let statuses = box.statuses("POST", (0..<flips).map { $0 % 2 == 0 ? "/api/v1/flip/next" : "/api/v1/flip/previous" })
        #expect(statuses.filter { $0 == 200 }.count == flips, "\(statuses)")
        Thread.sleep(forTimeInterval: 1.5)

        let after = try Self.parse(box.request("GET", "/metrics").body)
        #expect(Self.sum(after, "flipbox_flips_total") == flipsBefore + Double(flips))
        let warm = #"{"outcome": "completed", "path": "warm"}"#
        #expect((after["flipbox_flip_duration_seconds_count" + warm] ?? 0) >= (before["flipbox_flip_duration_seconds_count" + warm] ?? 0) + Double(flips) - 2,
                "warm flips recorded in the histogram")
        #expect((after["flipbox_pipelines"] ?? .infinity) <= pipelinesBefore, "pipelines grew: \(pipelinesBefore) -> \(after["flipbox_pipelines"] ?? -1)")
        let answered = after.filter { $0.key.hasPrefix("flipbox_http_requests_total") && $0.key.contains(#""route": "/api/v1/flip/next""#) }
        #expect(answered.values.reduce(0, +) >= Double(flips / 2 + 3), "\(answered)")
    }

    /// The display watch on a real box: a moving channel makes no still picture, a solid colour
    /// is one that grows until a flip ends it; /metrics names every source and the decoders.
    @Test func theOutputRecordTellsAStillPictureFromAMovingOneAndMetricsNameEverySource() async throws {
        try await offPool { try self.stillPictures() }
    }

    func stillPictures() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-stills-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let lineup = dir.appendingPathComponent("lineup.yaml")
        try """
            settings:
              banner-seconds: 0
            channels:
              - number: 1
                name: Ball
                source: test://ball?size=160x90&fps=25&gop=25
              - number: 2
                name: Red
                source: test://color/ff0000?size=160x90&fps=25&gop=25
            """.write(to: lineup, atomically: true, encoding: .utf8)
        let box = try FlipboxProcess(arguments: [lineup.path, "--size", "320x180"], port: freePort())
        defer { box.stop() }
        #expect(box.waitForStatus(seconds: 30) { ($0["lastFlip"] as? [String: Any])?["outcome"] as? String == "completed" },
                "the box never tuned its first channel: \(box.logText.suffix(800))")
        func output() throws -> [String: Any] {
            let answer = box.request("GET", "/api/v1/output")
            try #require(answer.status == 200, "GET /api/v1/output: \(answer.status)")
            return try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
        }
        func stills(_ body: [String: Any], channel: String) -> [[String: Any]] {
            (body["stills"] as? [[String: Any]] ?? []).filter { $0["channel"] as? String == channel }
        }
        Thread.sleep(forTimeInterval: 2)
        let moving = try output()
        #expect((moving["framesShown"] as? Int ?? 0) > 20, "\(moving)")
        #expect(stills(moving, channel: "1").isEmpty, "the ball moves every frame: \(moving)")

        #expect(box.statuses("POST", ["/api/v1/tune/2"]) == [200])
        Thread.sleep(forTimeInterval: 2)
        let red = try output()
        let growing = stills(red, channel: "2")
        #expect(growing.count == 1 && growing.first?["ongoing"] as? Bool == true && (growing.first?["seconds"] as? Double ?? 0) >= 1.5,
                "a solid colour is one unchanging picture: \(red)")

        #expect(box.statuses("POST", ["/api/v1/tune/1"]) == [200])
        Thread.sleep(forTimeInterval: 1)
        let back = try output()
        let ended = stills(back, channel: "2")
        #expect(ended.count == 1 && ended.first?["ongoing"] as? Bool == false, "the flip ended the run: \(back)")
        #expect((back["longestStillSeconds"] as? Double ?? 0) >= 1.5)

        let metrics = try Self.parse(box.request("GET", "/metrics").body)
        #expect((metrics["flipbox_output_frames_shown_total"] ?? 0) >= Double(back["framesShown"] as? Int ?? 1) - 50,
                "frames shown: \(metrics["flipbox_output_frames_shown_total"] ?? -1) vs \(back["framesShown"] ?? -1)")
        #expect((metrics["flipbox_output_longest_still_picture_seconds"] ?? 0) >= 1.5)
        for channel in ["1", "2"] {
            for name in ["flipbox_source_stalls_total", "flipbox_source_reconnects_total", "flipbox_source_failovers_total"] {
                #expect(metrics[name + #"{"channel": "\#(channel)"}"#] == 0, "\(name) of channel \(channel): \(metrics.filter { $0.key.hasPrefix(name) })")
            }
            #expect((metrics[#"flipbox_warm_cache_bytes{"channel": "\#(channel)"}"#] ?? 0) > 0, "channel \(channel) is warm with a cache")
        }
        #expect(metrics[#"flipbox_decoders{"role": "bound"}"#] == 1, "\(metrics.filter { $0.key.hasPrefix("flipbox_decoders") })")
    }
}
