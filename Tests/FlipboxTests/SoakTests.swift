import Foundation
import Testing
import TestSupport

/// `flipbox-lab soak` (`flipbox soak`), short form: hostile channels on loopback
/// (discontinuities, deaths, stalls, garbage, bit flips, codec, PID and resolution changes, a
/// trickling and resetting HTTP server, a slow and dropping HLS server) and two minutes of every
/// kind of request to a real `flipbox play` child under 1,024 open files. `make soak` runs the
/// long form.
@Suite(.serialized) struct SoakTests {
    @Test func twoMinutesOfHostileChannelsAndRequestsLeaveThePlayerWhole() throws {
        let udp = 30000 + Int.random(in: 0..<40) * 100
        let data = try standardOutput(of: FlipboxProcess.lab, ["soak", "--duration", "120s", "--warmup", "30", "--channels", "8", "--json",
                                                               "--port", "\(udp)", "--http-port", "\(freePort())"])
        let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any],
                                  "no JSON report: \(String(decoding: data, as: UTF8.self))")
        #expect(report["crashes"] as? Int == 0, "crashes; player log \(report["player_log"] ?? "")")
        #expect(report["unanswered"] as? Int == 0, "requests without an answer within 10 s")
        // Pipelines, open files and resident memory are read and reported, not judged here: in
        // two minutes they have not settled (docs/reliability.md lists what the runs so far
        // showed); `make soak` judges them over 10,000 requests.
        #expect(report["after_warmup"] is [String: Any] && report["end"] is [String: Any],
                "no resource readings: \(report["after_warmup"] ?? "") \(report["end"] ?? "")")
        // The open files by kind, read from the player's /proc: the six UDP sources' sockets and
        // the API's listening socket are among them.
        let kinds = report["open_files_by_kind"] as? [[String: Any]] ?? []
        #expect(kinds.contains { $0["kind"] as? String == "udp" && ($0["end"] as? Int ?? 0) >= 6 }, "\(kinds)")
        #expect(kinds.contains { $0["kind"] as? String == "tcp listen" && ($0["end"] as? Int ?? 0) == 1 }, "\(kinds)")
        // The display was watched, and no channel whose source flowed froze: a frozen picture
        // (the defect of a codec change on the channel on screen) is seconds long; a loop's lost
        // keyframe costs one GOP (1 s). The bound leaves room for a loaded machine.
        let display = try #require(report["display"] as? [String: Any], "no display figures")
        #expect((display["frames_shown"] as? Int ?? 0) > 1000, "the display's record was not read: \(display)")
        #expect((display["longest_still_s"] as? Double ?? .infinity) < 5, "a picture froze on a flowing channel: \(display)")
        #expect((report["requests"] as? Int ?? 0) > 100, "only \(report["requests"] ?? 0) requests in a minute")
        // Every kind of channel misbehaved, and the HTTP and HLS servers served the player.
        let events = report["events"] as? [String: Int] ?? [:]
        for kind in ["death", "stall", "garbage", "codec-change", "pid-change", "resolution-change",
                     "http-trickle", "http-reset", "hls-slow", "hls-drop"] {
            #expect(events[kind] != nil, "no count of \(kind) in \(events)")
        }
        #expect((events["pid-change"] ?? 0) > 0, "no PID change: \(events)")
        #expect((events["http-trickle"] ?? 0) + (events["http-reset"] ?? 0) > 0, "the HTTP server never misbehaved: \(events)")
        #expect((events["hls-slow"] ?? 0) + (events["hls-drop"] ?? 0) > 0, "the HLS server never misbehaved: \(events)")
        let servers = report["servers"] as? [String: [String: Int]] ?? [:]
        #expect((servers["http"]?["connections"] ?? 0) > 0, "the player never connected to the HTTP channel: \(servers)")
        #expect((servers["hls"]?["playlists"] ?? 0) > 0 && (servers["hls"]?["segments"] ?? 0) > 0,
                "the player fetched no HLS playlist or segment: \(servers)")
        let recovery = report["recovery_s"] as? [String: Any]
        #expect((recovery?["count"] as? Int ?? 0) > 0, "no returning source recovered: \(recovery ?? [:])")
        // Which channel took longest to come back: the channel that dies is among them.
        let byChannel = recovery?["max_by_channel"] as? [String: Any] ?? [:]
        #expect(byChannel.keys.contains { $0.hasSuffix(" dies") }, "\(byChannel)")
        // Memory once a minute, with the C heap held (mostly resident: mmapped blocks not yet
        // touched count in the heap, not in what is resident).
        let memory = report["memory_by_minute"] as? [[String: Any]] ?? []
        #expect(!memory.isEmpty, "no memory readings by minute")
        for point in memory {
            let heap = point["heapInUseMB"] as? Double ?? 0, resident = point["residentMB"] as? Double ?? 0
            #expect(heap > 1 && heap < 2 * resident, "heap \(heap) MB held, \(resident) MB resident: \(point)")
        }
    }
}
