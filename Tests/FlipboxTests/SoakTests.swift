import Foundation
import Testing

/// `flipbox soak`, short form: hostile channels on loopback (discontinuities, deaths, stalls,
/// garbage, bit flips, codec and resolution changes) and two minutes of every kind of request to
/// a real `flipbox play` child under 1,024 open files. `make soak` runs the long form.
@Suite(.serialized) struct SoakTests {
    @Test func twoMinutesOfHostileChannelsAndRequestsLeaveThePlayerWhole() throws {
        let p = Process()
        p.executableURL = FlipboxProcess.executable
        let udp = 30000 + Int.random(in: 0..<40) * 100
        p.arguments = ["soak", "--duration", "120s", "--warmup", "30", "--channels", "8", "--json",
                       "--port", "\(udp)", "--http-port", "\(freePort())"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any],
                                  "no JSON report: \(String(decoding: data, as: UTF8.self))")
        #expect(report["crashes"] as? Int == 0, "crashes; player log \(report["player_log"] ?? "")")
        #expect(report["unanswered"] as? Int == 0, "requests without an answer within 10 s")
        // Pipelines, open files and resident memory are read and reported, not judged here: in
        // two minutes they have not settled (docs/reliability.md lists what the runs so far
        // showed); `make soak` judges them over 10,000 requests.
        #expect(report["after_warmup"] is [String: Any] && report["end"] is [String: Any],
                "no resource readings: \(report["after_warmup"] ?? "") \(report["end"] ?? "")")
        // The open files by kind, read from the player's /proc: the eight sources' UDP sockets and
        // the API's listening socket are among them.
        let kinds = report["open_files_by_kind"] as? [[String: Any]] ?? []
        #expect(kinds.contains { $0["kind"] as? String == "udp" && ($0["end"] as? Int ?? 0) >= 8 }, "\(kinds)")
        #expect(kinds.contains { $0["kind"] as? String == "tcp listen" && ($0["end"] as? Int ?? 0) == 1 }, "\(kinds)")
        // The display was watched, and no channel whose source flowed froze: a frozen picture
        // (the defect of a codec change on the channel on screen) is seconds long; a loop's lost
        // keyframe costs one GOP (1 s). The bound leaves room for a loaded machine.
        let display = try #require(report["display"] as? [String: Any], "no display figures")
        #expect((display["frames_shown"] as? Int ?? 0) > 1000, "the display's record was not read: \(display)")
        #expect((display["longest_still_s"] as? Double ?? .infinity) < 5, "a picture froze on a flowing channel: \(display)")
        #expect((report["requests"] as? Int ?? 0) > 100, "only \(report["requests"] ?? 0) requests in a minute")
        let recovery = report["recovery_s"] as? [String: Any]
        #expect((recovery?["count"] as? Int ?? 0) > 0, "no returning source recovered: \(recovery ?? [:])")
    }
}
