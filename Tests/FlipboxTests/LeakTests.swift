import Foundation
import TestSupport
import Testing

/// A box must survive an evening of flipping: every flip, snapshot and thumbnail gives back the
/// pipelines, sockets and memory it took. Runs the real binary under the usual limit of 1,024
/// open files (before the fix, each flip kept its decoder pipeline and six sockets, and the API
/// stopped answering after about 165 flips).
@Suite(.serialized) struct LeakTests {
    static let flips = 500

    func makeLineup(udpPort: Int) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-leak-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let logo = try writeLogo(dir, name: "yellow", color: "#ffff00")
        let yaml = """
            settings:
              banner-seconds: 1
            channels:
              - number: 1
                name: Red
                source: test://color/ff0000?size=160x90&fps=15&gop=15&tone=440
                logo: \(logo)
              - number: 2
                name: Green
                source: test://color/00ff00?size=160x90&fps=15&gop=15
              - number: 3
                name: UDP
                source: udp://127.0.0.1:\(udpPort)
              - number: 4
                name: Grey
                source: test://color/808080?size=160x90&fps=15&gop=15&tone=660
            """
        let file = dir.appendingPathComponent("lineup.yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    struct Resources: CustomStringConvertible {
        var pipelines: Int
        var openFiles: Int
        var fileLimit: Int
        var residentBytes: Int
        var description: String { "\(pipelines) pipelines, \(openFiles) open files (limit \(fileLimit)), \(residentBytes >> 20) MB resident" }
    }

    func resources(_ box: FlipboxProcess) throws -> Resources {
        let status = box.json("GET", "/api/v1/status")
        try #require(status.status == 200, "the box stopped answering /status: \(box.logText.suffix(800))")
        let r = try #require(status.object["resources"] as? [String: Any])
        return Resources(pipelines: r["pipelines"] as? Int ?? -1, openFiles: r["openFiles"] as? Int ?? -1,
                         fileLimit: r["fileLimit"] as? Int ?? -1, residentBytes: r["residentBytes"] as? Int ?? -1)
    }

    /// What the box's open files are, by kind (`socket`, `anon_inode:[eventfd]`, `pipe`, a path
    /// with its digits dropped), counted: what grew is named when open files grow.
    func openFileKinds(_ box: FlipboxProcess) -> [String: Int] {
        let directory = "/proc/\(box.process.processIdentifier)/fd"
        var kinds: [String: Int] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + name) else { continue }
            let kind = target.hasPrefix("socket:") ? socketKind(inode: String(target.dropFirst(8).dropLast()))
                : target.hasPrefix("pipe:") ? "pipe" : String(target.filter { !$0.isNumber })
            kinds[kind, default: 0] += 1
        }
        return kinds
    }

    /// A socket's kind by its inode: unix, udp, or tcp with its state (from /proc/net).
    func socketKind(inode: String) -> String {
        let states = ["01": "established", "06": "time-wait", "07": "close", "08": "close-wait", "0A": "listen", "0B": "closing"]
        for (table, name) in [("tcp", "tcp"), ("tcp6", "tcp"), ("udp", "udp"), ("udp6", "udp")] {
            let text = (try? String(contentsOfFile: "/proc/net/\(table)", encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9, fields[9] == inode else { continue }
                return name == "tcp" ? "tcp \(states[String(fields[3])] ?? String(fields[3]))" : name
            }
        }
        let netlink = (try? String(contentsOfFile: "/proc/net/netlink", encoding: .utf8)) ?? ""
        if netlink.split(separator: "\n").contains(where: { $0.split(separator: " ").count > 9 && $0.split(separator: " ")[9] == inode }) { return "netlink" }
        let unix = (try? String(contentsOfFile: "/proc/net/unix", encoding: .utf8)) ?? ""
        return unix.split(separator: "\n").contains { $0.split(separator: " ").count > 6 && $0.split(separator: " ")[6] == inode } ? "unix" : "socket"
    }

    /// Waits until the pipeline count settles (a spare decoder is built 250 ms after a flip).
    func settled(_ box: FlipboxProcess) throws -> Resources {
        var last = try resources(box)
        for _ in 0..<20 {
            Thread.sleep(forTimeInterval: 0.5)
            let now = try resources(box)
            if now.pipelines == last.pipelines && now.openFiles == last.openFiles { return now }
            last = now
        }
        return last
    }

    @Test func fiveHundredFlipsGiveBackEveryPipelineAndSocket() async throws {
        try await offPool { try self.flipFiveHundredTimes() }
    }

    func flipFiveHundredTimes() throws {
        let udpPort = freePort()
        let sender = try UDPTestStream(port: udpPort, rgb: 0x0000FF)
        defer { sender.stop() }
        let box = try FlipboxProcess(arguments: [try makeLineup(udpPort: udpPort).path, "--size", "320x180"],
                                     port: freePort(), fileLimit: 1024)
        defer { box.stop() }
        #expect(box.waitForStatus(seconds: 30) { ($0["lastFlip"] as? [String: Any])?["outcome"] as? String == "completed" },
                "the box never tuned its first channel: \(box.logText.suffix(800))")

        // Warm up: every channel shown once, every kind of request made once.
        let warmUp = ["/api/v1/flip/next", "/api/v1/flip/next", "/api/v1/flip/next", "/api/v1/flip/next", "/api/v1/recall"]
        #expect(box.statuses("POST", warmUp).allSatisfy { $0 == 200 })
        _ = box.statuses("GET", ["/api/v1/snapshot.png?width=100", "/api/v1/channels/2/thumbnail.jpg?width=100"])
        let before = try settled(box)
        let kindsBefore = openFileKinds(box)
        #expect(before.fileLimit == 1024)

        // 500 flips of every kind, with snapshots and thumbnails of changing sizes among them.
        var answered = 0, failed: [Int] = []
        let kinds = ["/api/v1/flip/next", "/api/v1/flip/previous", "/api/v1/tune/3", "/api/v1/recall", "/api/v1/tune/4"]
        for batch in 0..<(Self.flips / 50) {
            let paths = (0..<50).map { kinds[($0 + batch) % kinds.count] }
            let statuses = box.statuses("POST", paths)
            answered += statuses.count
            failed += statuses.filter { $0 != 200 }
            let width = 64 + batch * 8
            let pictures = box.statuses("GET", ["/api/v1/snapshot.png?width=\(width)", "/api/v1/channels/\(1 + batch % 4)/thumbnail.jpg?width=\(width)"])
            #expect(pictures.allSatisfy { $0 == 200 }, "batch \(batch): pictures answered \(pictures)")
        }
        #expect(answered == Self.flips, "\(answered) of \(Self.flips) flips answered")
        #expect(failed.isEmpty, "flips not 200: \(failed.prefix(10))")

        let after = try settled(box)
        #expect(box.process.isRunning, "the box died: \(box.logText.suffix(800))")
        #expect(after.pipelines <= before.pipelines, "pipelines grew: \(before) -> \(after)")
        let kindsAfter = openFileKinds(box)
        let grew = kindsAfter.filter { $0.value > kindsBefore[$0.key, default: 0] }
            .map { "\($0.key): \(kindsBefore[$0.key, default: 0]) -> \($0.value)" }.sorted()
        // A leak of one file per flip would be hundreds here. Sockets that no /proc/net table lists
        // come and go by about ten between two readings of an idle box (8-11 before, 15-20 after
        // in the runs that failed a bound of 8; the build of f3e5f3e too, 1 run in 4): allowed.
        #expect(after.openFiles <= before.openFiles + 16, "open files grew: \(before) -> \(after); grew: \(grew)")
        #expect(after.residentBytes < before.residentBytes + 64 << 20, "memory grew: \(before) -> \(after)")
        #expect(!box.logText.contains("CRITICAL"), "GStreamer complained: \(box.logText.suffix(800))")
    }

    /// 300 channels with `warm: all` under a 1,024-file limit: the box starts, answers, warms
    /// what the limit leaves room for and says why the rest are cold (it used to die at start
    /// with "Too many open files").
    @Test func manyChannelsFitTheOpenFileLimit() async throws {
        try await offPool {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-many-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let base = 20000 + Int.random(in: 0..<20000)
            let channels = (0..<300).map { "  - number: \($0 + 1)\n    name: U\($0 + 1)\n    source: udp://127.0.0.1:\(base + $0)" }
            let file = dir.appendingPathComponent("lineup.yaml")
            try ("settings:\n  warm: all\nchannels:\n" + channels.joined(separator: "\n")).write(to: file, atomically: true, encoding: .utf8)
            let box = try FlipboxProcess(arguments: [file.path], port: freePort(), fileLimit: 1024)
            defer { box.stop() }
            #expect(box.waitForStatus(seconds: 30) { _ in true }, "the box never answered: \(box.logText.suffix(800))")
            Thread.sleep(forTimeInterval: 2)
            let list = box.json("GET", "/api/v1/channels")
            #expect(list.status == 200)
            let entries = list.object["channels"] as? [[String: Any]] ?? []
            #expect(entries.count == 300)
            let parked = entries.filter { ($0["reason"] as? String)?.contains("limit on open files") == true }
            #expect(parked.count >= 200, "\(parked.count) channels held cold for the file limit")
            let status = try self.resources(box)
            #expect(status.openFiles < 1000, "\(status)")
            #expect(box.process.isRunning)
            #expect(!box.logText.contains("Too many open files"), "\(box.logText.suffix(800))")
        }
    }
}
