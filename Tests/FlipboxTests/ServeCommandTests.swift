import Foundation
import GStreamer
import TestSupport
import Testing

/// `flipbox serve` as a real process: refused on the network without an allow-list, found by
/// `hdhomerun_config`'s broadcast on a LAN made of two network namespaces, serving allowed
/// clients and the token only, and played by a second Flipbox through its `/lineup.m3u`.
@Suite(.serialized) struct ServeCommandTests {
    /// A `flipbox serve` process; its log is kept for failure messages.
    final class HeadendProcess: @unchecked Sendable {
        let process = Process()
        let log: URL

        /// `namespace`: run inside that network namespace (`ip netns exec`).
        init(arguments: [String], namespace: String? = nil) throws {
            log = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-serve-\(UUID().uuidString).log")
            FileManager.default.createFile(atPath: log.path, contents: nil)
            if let namespace {
                process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
                process.arguments = ["netns", "exec", namespace, FlipboxProcess.executable.path, "serve"] + arguments
            } else {
                process.executableURL = FlipboxProcess.executable
                process.arguments = ["serve"] + arguments
            }
            let handle = try FileHandle(forWritingTo: log)
            process.standardOutput = handle
            process.standardError = handle
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

        func waitForLog(_ text: String, seconds: Double) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if logText.contains(text) { return true }
                if !process.isRunning { return false }
                Thread.sleep(forTimeInterval: 0.1)
            }
            return false
        }

        func stop() {
            guard process.isRunning else { return }
            process.interrupt()
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    static func lineup() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let yaml = """
            settings:
              hdhomerun-tuners: 2
            channels:
              - number: 1
                name: Red One
                source: test://color/ff0000?size=320x180&fps=30&gop=30&tone=440
              - number: 2
                name: Green Two
                source: test://color/00ff00?size=320x180&fps=30&gop=30&tone=880
            """
        let file = dir.appendingPathComponent("lineup.yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// Runs a command; returns its exit status and everything it printed.
    @discardableResult
    static func sh(_ arguments: [String]) -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = arguments
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        p.standardInput = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return (-1, "cannot run \(arguments[0])") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func servingOnTheNetworkWithoutAnAllowListIsRefused() throws {
        let headend = try HeadendProcess(arguments: [try Self.lineup().path, "--serve-listen", "0.0.0.0:\(freePort())"])
        headend.process.waitUntilExit()
        #expect(headend.process.terminationStatus == 2)
        #expect(headend.logText.contains("--serve-allow"), "the message says how to allow a network: \(headend.logText)")
    }

    /// The real `flipbox serve`: the lineup's `locked` and `parental` settings apply to what it
    /// serves (the token passes them), forwarded addresses count only from the declared proxy,
    /// and a malformed proxy is refused at start.
    @Test func theServeCommandAppliesTheLineupsLocksAndItsDeclaredProxy() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let lineup = dir.appendingPathComponent("lineup.yaml")
        try """
            settings:
              locked: 2
              parental: {VCHIP: TV-PG}
            channels:
              - {number: 1, name: Kids, source: "test://color/00ff00?size=160x90&fps=15&gop=15"}
              - {number: 2, name: Locked Two, source: "test://color/0000ff?size=160x90&fps=15&gop=15"}
              - {number: 3, name: Late Film, rating: TV-MA, source: "test://color/ff0000?size=160x90&fps=15&gop=15"}
            """.write(to: lineup, atomically: true, encoding: .utf8)
        let port = freePort()
        let headend = try HeadendProcess(arguments: [lineup.path, "--serve-listen", "127.0.0.1:\(port)", "--no-hdhomerun", "--token", "serve-cmd-token",
                                                     "--serve-trusted-proxy", "127.0.0.1", "--serve-allow", "192.168.1.0/24"])
        defer { headend.stop() }
        #expect(headend.waitForLog("head-end serving", seconds: 30), "\(headend.logText)")
        func get(_ path: String, _ headers: [String] = []) -> (status: String, body: String) {
            let r = Self.sh(["curl", "-s", "--max-time", "3", "-w", "\n%{http_code}"] + headers.flatMap { ["-H", $0] } + ["http://127.0.0.1:\(port)\(path)"])
            let lines = r.output.split(separator: "\n", omittingEmptySubsequences: false)
            return (String(lines.last ?? ""), lines.dropLast().joined(separator: "\n"))
        }
        let locked = get("/stream/2.ts")
        #expect(locked.status == "403" && locked.body.contains(#""reason":"This channel is locked""#), "\(locked)")
        let rated = get("/hls/3/index.m3u8")
        #expect(rated.status == "403" && rated.body.contains("Rated TV-MA, over VCHIP TV-PG"), "\(rated)")
        let owner = Self.sh(["curl", "-s", "-o", "/dev/null", "--max-time", "3", "-w", "%{http_code}", "http://127.0.0.1:\(port)/stream/2.ts?token=serve-cmd-token"])
        #expect(owner.output == "200", "the token passes the lock: \(owner.output)")
        #expect(get("/lineup.json", ["X-Forwarded-For: 192.168.1.7"]).status == "200")
        let outside = get("/lineup.json", ["X-Forwarded-For: 10.0.0.9"])
        #expect(outside.status == "403" && outside.body.contains("10.0.0.9 may not watch"), "\(outside)")

        let bad = try HeadendProcess(arguments: [lineup.path, "--serve-listen", "127.0.0.1:\(freePort())", "--serve-trusted-proxy", "nginx.lan"])
        bad.process.waitUntilExit()
        #expect(bad.process.terminationStatus != 0 && bad.logText.contains("--serve-trusted-proxy 'nginx.lan' is not an address"), "\(bad.logText)")
    }

    /// Two network namespaces joined by a veth pair (nothing leaves the machine): the head-end
    /// in one, its clients in the other at an allowed and a refused address.
    @Test(.enabled(if: getuid() == 0, "needs root for ip netns"))
    func aLANHeadEndIsFoundByBroadcastAndServesOnlyWhomItAllows() throws {
        let tag = String(UInt32.random(in: 0...0xFFFFF), radix: 16)
        let (server, clients) = ("fbs\(tag)", "fbc\(tag)")
        let subnet = "10.\(Int.random(in: 100...250)).\(Int.random(in: 1...250))"
        defer {
            Self.sh(["ip", "netns", "del", server])
            Self.sh(["ip", "netns", "del", clients])
        }
        for command in [
            ["ip", "netns", "add", server], ["ip", "netns", "add", clients],
            ["ip", "link", "add", "fva\(tag)", "netns", server, "type", "veth", "peer", "name", "fvb\(tag)", "netns", clients],
            ["ip", "-n", server, "addr", "add", "\(subnet).1/24", "dev", "fva\(tag)"],
            ["ip", "-n", clients, "addr", "add", "\(subnet).2/24", "dev", "fvb\(tag)"],
            ["ip", "-n", clients, "addr", "add", "\(subnet).3/24", "dev", "fvb\(tag)"],
            ["ip", "-n", server, "link", "set", "fva\(tag)", "up"], ["ip", "-n", clients, "link", "set", "fvb\(tag)", "up"],
            ["ip", "-n", server, "link", "set", "lo", "up"], ["ip", "-n", clients, "link", "set", "lo", "up"],
        ] {
            let r = Self.sh(command)
            try #require(r.status == 0, "\(command.joined(separator: " ")): \(r.output)")
        }
        let headend = try HeadendProcess(arguments: [
            try Self.lineup().path, "--serve-listen", "\(subnet).1:5004", "--serve-allow", "\(subnet).2/32", "--token", "s3cret",
            "--multicast", "239.77.1.0/24:5000", "--multicast-interface", "\(subnet).1",
        ], namespace: server)
        defer { headend.stop() }
        try #require(headend.waitForLog("HDHomeRun discovery and control listening", seconds: 30), "\(headend.logText)")
        Thread.sleep(forTimeInterval: 1.5)
        func inClients(_ arguments: [String]) -> (status: Int32, output: String) {
            Self.sh(["ip", "netns", "exec", clients] + arguments)
        }

        let base = "http://\(subnet).1:5004"
        let discover = inClients(["hdhomerun_config", "discover"])
        #expect(discover.output.contains("found at \(subnet).1"), "a broadcast discover finds the head-end: \(discover.output)\n\(headend.logText)")
        // A second Flipbox on the LAN finds it the same way, and takes its lineup and tuner count.
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-hdhr-\(tag)").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let found = inClients([FlipboxProcess.executable.path, "lineup", "check", "hdhomerun://auto", "--no-guide", "--state-dir", state])
        #expect(found.status == 0 && found.output.contains("\(base)/auto/v2")
                && found.output.contains("pool HDHomeRun ") && found.output.contains(": 2 streams (told by the source), sources starting \(base)/auto/"),
                "hdhomerun://auto: \(found.output)")
        let doctor = inClients([FlipboxProcess.executable.path, "doctor", "hdhomerun://auto", "--state-dir", state])
        #expect(doctor.output.contains("lineup    hdhomerun://auto: ") && doctor.output.contains(" channels"), "doctor reads it as play does: \(doctor.output)")
        let devices = inClients([FlipboxProcess.executable.path, "devices"])
        #expect(devices.output.contains("at \(subnet).1: 2 tuners, \(base)"), "flipbox devices lists it: \(devices.output)")
        let model = inClients(["hdhomerun_config", "\(subnet).1", "get", "/sys/model"])
        #expect(model.status == 0 && model.output.contains("hdhomeruntc_atsc"), "\(model.output)")

        let lineup = inClients(["curl", "-s", "--interface", "\(subnet).2", "\(base)/lineup.json"])
        #expect(lineup.output.contains("\"URL\":\"\(base)/auto/v1\""), "lineup.json points at the LAN address: \(lineup.output)")
        let probe = inClients(["ffprobe", "-v", "error", "-of", "csv", "-show_entries", "stream=codec_name", "\(base)/auto/v2"])
        #expect(probe.output.contains("h264") && probe.output.contains("aac"), "an allowed client plays: \(probe.output)")

        let refused = inClients(["curl", "-s", "--interface", "\(subnet).3", "-w", "\n%{http_code}", "\(base)/lineup.json"])
        #expect(refused.output.hasSuffix("403") && refused.output.contains("--serve-allow"), "another address is refused: \(refused.output)")
        let withToken = inClients(["curl", "-s", "--interface", "\(subnet).3", "-o", "/dev/null", "-w", "%{http_code}",
                                   "\(base)/lineup.json?token=s3cret"])
        #expect(withToken.output == "200", "the token lets it in: \(withToken.output)")
        // Multicast: channel 2 is sent to the block's second address, received across the veth.
        let multicast = inClients(["ffprobe", "-v", "error", "-of", "csv", "-show_entries", "stream=codec_name,width",
                                   "udp://239.77.1.2:5000?localaddr=\(subnet).2&timeout=10000000"])
        #expect(multicast.output.contains("h264,320") && multicast.output.contains("aac"), "channel 2 by multicast: \(multicast.output)\n\(headend.logText)")

        let control = inClients(["curl", "-s", "--interface", "\(subnet).2", "-o", "/dev/null", "-w", "%{http_code}",
                                 "\(base)/api/v1/status"])
        #expect(control.output == "404", "no control route on the serving address: \(control.output)")
    }

    /// `flipbox play --serve`: the box plays and serves the same warm ingest.
    /// Tokens from files of mode 0600: the control token opens the API, the served streams'
    /// token does not; a token file others may read and a token on the command line are said.
    @Test func tokensComeFromFilesAndTheServedStreamsHaveTheirOwn() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-tokens-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (control, stream) = ("ctl-\(UUID().uuidString.prefix(18))", "srv-\(UUID().uuidString.prefix(18))")
        let controlFile = dir.appendingPathComponent("control.token"), streamFile = dir.appendingPathComponent("serve.token")
        try Data("\(control)\n".utf8).write(to: controlFile)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: controlFile.path)
        try Data(stream.utf8).write(to: streamFile)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: streamFile.path)

        let port = freePort()
        let box = try FlipboxProcess(arguments: [try Self.lineup().path, "--token-file", controlFile.path, "--serve",
                                                 "--serve-listen", "127.0.0.1:\(freePort())", "--no-hdhomerun", "--serve-token-file", streamFile.path],
                                     port: port)
        defer { box.stop() }
        func status(_ token: String?) -> Int {
            curl(["-s", "-o", "/dev/null", "-w", "\n%{http_code}", "-m", "5"] + (token.map { ["-H", "Authorization: Bearer \($0)"] } ?? [])
                 + ["http://127.0.0.1:\(port)/api/v1/status"]).status
        }
        let deadline = Date().addingTimeInterval(40)
        while status(control) != 200 && Date() < deadline { Thread.sleep(forTimeInterval: 0.2) }
        #expect(status(control) == 200, "the control token from its file opens the API:\n\(box.logText)")
        #expect(status(nil) == 401)
        #expect(status(stream) == 401, "the served streams' token is no control token")
        #expect(box.logText.contains("serve.token can be read by others (mode 644)"), "\(box.logText)")
        #expect(!box.logText.contains(control) && !box.logText.contains(stream), "no token in the log")

        let told = try FlipboxProcess.runToEnd(["doctor", try Self.lineup().path, "--token", "0123456789abcdef0123"])
        #expect(told.output.contains("--token on the command line can be read by every user of this machine (ps)"), "\(told.output)")
        let empty = dir.appendingPathComponent("empty.token")
        try Data("\n".utf8).write(to: empty)
        let refused = try FlipboxProcess.runToEnd(["play", try Self.lineup().path, "--output", "headless", "--no-keys", "--token-file", empty.path])
        #expect(refused.status != 0 && refused.output.contains("a token is 1 to 256 printable characters"), "\(refused.output)")
    }

    /// Opens `count` connections to `port` on loopback that send nothing, waits `seconds`, and
    /// returns what each was answered: an HTTP status, or `open` (still held, nothing said).
    static func idleConnections(port: Int, count: Int, seconds: Double) -> [String] {
        let script = """
            import socket, sys, time
            port, n, wait = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
            socks = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(n)]
            time.sleep(wait)
            out = []
            for s in socks:
                s.setblocking(False)
                try:
                    data = s.recv(200).decode(errors="replace")
                    out.append(data.split(" ")[1] if data.startswith("HTTP/") else "closed")
                except BlockingIOError:
                    out.append("open")
            print(" ".join(out))
            """
        return sh(["python3", "-c", script, "\(port)", "\(count)", "\(seconds)"]).output
            .split(whereSeparator: \.isWhitespace).map(String.init)
    }

    /// The connection caps of both HTTP servers come from the command line: the head-end's
    /// total, per-address cap and header time, the control API's total; a value out of range
    /// stops the box naming the option.
    @Test func theConnectionCapsAreTheCommandLines() throws {
        let lineup = try Self.lineup().path
        for (arguments, told) in [(["serve", lineup, "--serve-max-connections", "0"], "--serve-max-connections must be from 1 to 1000000, not 0"),
                                  (["serve", lineup, "--serve-max-connections", "5", "--serve-max-per-address", "9"],
                                   "--serve-max-per-address must be from 1 to the connection limit (5), not 9"),
                                  (["serve", lineup, "--serve-header-timeout", "0"], "--serve-header-timeout must be from 1 to 300 seconds"),
                                  (["play", lineup, "--output", "headless", "--no-keys", "--http-max-connections=-3"],
                                   "--http-max-connections must be from 1 to 1000000, not -3")] {
            let r = try FlipboxProcess.runToEnd(arguments)
            #expect(r.status == 64 || r.status == 2, "\(arguments): exit \(r.status)")
            #expect(r.output.contains(told), "\(arguments): \(r.output)")
        }

        let servePort = freePort(), port = freePort()
        let box = try FlipboxProcess(arguments: [lineup, "--serve", "--serve-listen", "127.0.0.1:\(servePort)", "--no-hdhomerun",
                                                 "--serve-max-connections", "2", "--serve-header-timeout", "2",
                                                 "--http-max-connections", "2"], port: port)
        defer { box.stop() }
        #expect(box.waitForStatus(seconds: 40) { _ in true }, "the box never answered: \(box.logText.suffix(800))")
        Thread.sleep(forTimeInterval: 0.5)  // the status poll's connection is let go

        let served = Self.idleConnections(port: servePort, count: 4, seconds: 3.5).sorted()
        #expect(served == ["408", "408", "503", "503"], "2 held and cut at the 2 s header time, 2 refused: \(served)")
        let control = Self.idleConnections(port: port, count: 4, seconds: 1.5)
        #expect(control.filter { $0 == "503" }.count >= 2 && control.filter { $0 == "open" }.count <= 2,
                "at most 2 held by the control API (its header time is 10 s), the others refused: \(control)")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(curl(["-s", "-o", "/dev/null", "-w", "\n%{http_code}", "-m", "5", "http://127.0.0.1:\(port)/api/v1/status"]).status == 200,
                "the API answers again once the idle connections are gone")
    }

    @Test func aPlayingBoxAlsoServes() async throws {
        try await offPool {
            let servePort = freePort()
            let box = try FlipboxProcess(arguments: [try Self.lineup().path, "--serve", "--serve-listen", "127.0.0.1:\(servePort)", "--no-hdhomerun"],
                                         port: freePort())
            defer { box.stop() }
            let started = box.waitForStatus(seconds: 40) { ($0["channel"] as? [String: Any])?["number"] as? String == "1" }
            try #require(started, "the box plays channel 1:\n\(box.logText)")
            let lineup = Self.sh(["curl", "-s", "http://127.0.0.1:\(servePort)/lineup.json"])
            #expect(lineup.output.contains("\"GuideName\":\"Green Two\""), "\(lineup.output)\n\(box.logText)")
            let probe = Self.sh(["ffprobe", "-v", "error", "-of", "csv", "-show_entries", "stream=codec_name,width",
                                 "http://127.0.0.1:\(servePort)/stream/2.ts"])
            #expect(probe.output.contains("h264,320") && probe.output.contains("aac"), "channel 2 served while 1 plays: \(probe.output)")
            let status = box.json("GET", "/api/v1/status")
            #expect((status.object["channel"] as? [String: Any])?["number"] as? String == "1", "the box still shows channel 1")
        }
    }

    /// `flipbox play --serve` offers its recording service's store at `/recordings.m3u`;
    /// `flipbox serve` the store in its state directory, and says so when there is none (making
    /// none).
    @Test func theRecordingsAreOfferedByPlayAndByServe() async throws {
        try await offPool {
            let state = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-rec-state-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: state) }
            let lineup = try Self.lineup().path
            let playPort = freePort()
            let box = try FlipboxProcess(arguments: [lineup, "--serve", "--serve-listen", "127.0.0.1:\(playPort)", "--no-hdhomerun"],
                                         port: freePort(), stateDirectory: state)
            defer { box.stop() }
            let started = box.waitForStatus(seconds: 40) { ($0["channel"] as? [String: Any])?["number"] as? String == "1" }
            try #require(started, "the box plays channel 1:\n\(box.logText)")
            let played = Self.sh(["curl", "-s", "-w", "%{http_code}", "http://127.0.0.1:\(playPort)/recordings.m3u"])
            #expect(played.output == "#EXTM3U\n200", "the box's (empty) recordings: \(played.output)\n\(box.logText)")
            box.stop()

            let none = state.appendingPathComponent("none")
            for (directory, expected) in [(state, "#EXTM3U\n200"), (none, "this box keeps no recordings")] {
                let port = freePort()
                let headend = try HeadendProcess(arguments: [lineup, "--serve-listen", "127.0.0.1:\(port)", "--no-hdhomerun",
                                                             "--state-dir", directory.path])
                defer { headend.stop() }
                #expect(headend.waitForLog("head-end serving", seconds: 30), "\(headend.logText)")
                let answer = Self.sh(["curl", "-s", "-w", "%{http_code}", "http://127.0.0.1:\(port)/recordings.m3u"])
                #expect(answer.output.contains(expected), "\(directory.lastPathComponent): \(answer.output)")
            }
            #expect(!FileManager.default.fileExists(atPath: none.appendingPathComponent("recordings.sqlite").path))
        }
    }

    /// A box whose lineup is another head-end's `/lineup.m3u` flips through its channels.
    @Test func aSecondFlipboxPlaysTheFirstsLineupExport() async throws {
        try await offPool { try self.playTheExport() }
    }

    func playTheExport() throws {
        try GStreamer.initialize() // for decoding the snapshot
        let servePort = freePort()
        let headend = try HeadendProcess(arguments: [try Self.lineup().path, "--serve-listen", "127.0.0.1:\(servePort)", "--no-hdhomerun"])
        defer { headend.stop() }
        try #require(headend.waitForLog("head-end serving", seconds: 30), "\(headend.logText)")
        let box = try FlipboxProcess(arguments: ["http://127.0.0.1:\(servePort)/lineup.m3u", "--size", "640x360"], port: freePort())
        defer { box.stop() }
        let started = box.waitForStatus(seconds: 40) { ($0["channel"] as? [String: Any])?["number"] as? String == "1" }
        try #require(started, "the second box starts on the first's channel 1:\n\(box.logText)\n\(headend.logText)")
        Thread.sleep(forTimeInterval: 3)
        for (path, number, colour) in [("/api/v1/tune/2", "2", (0.0, 255.0, 0.0)), ("/api/v1/tune/1", "1", (255.0, 0.0, 0.0))] {
            let flip = box.json("POST", path)
            #expect(flip.status == 200, "\(path): \(flip.object)")
            #expect(flip.object["ok"] as? Bool == true, "\(path) completes: \(flip.object)")
            #expect((flip.object["channel"] as? [String: Any])?["number"] as? String == number)
            #expect(flip.object["path"] as? String == "warm", "a warm flip through the head-end: \(flip.object)")
            let image = try box.snapshot()
            #expect(image.looks(colour.0, colour.1, colour.2, atX: 320, y: 200), "channel \(number) shows \(colour): \(image.describe(atX: 320, y: 200))")
        }
    }
}
