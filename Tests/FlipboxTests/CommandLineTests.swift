import Foundation
import TestSupport
import Testing

/// The `flipbox` command line on bad input: clear messages naming what and where, exit status 2.
@Suite struct CommandLineTests {
    func run(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = FlipboxProcess.executable
        p.arguments = arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    func write(_ text: String, as name: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent(name)
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    @Test func lineupCheckPrintsTheTable() async throws {
        let r = try await offPool { try run(["lineup", "check", FlipboxProcess.repositoryRoot.appendingPathComponent("Channels/demo.yaml").path]) }
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("Flipbox News") && r.out.contains("Loop Channel"))
        #expect(r.out.contains("7 channels"))
    }

    @Test func lineupCheckListsChannelsWithNoGuideMatch() async throws {
        let lineup = try write("""
            #EXTM3U url-tvg="guide.xml"
            #EXTINF:-1 tvg-chno="1" tvg-id="one.example",One
            test://snow
            #EXTINF:-1 tvg-chno="2",Two HD
            test://snow
            #EXTINF:-1 tvg-chno="3" tvg-id="gone.example",Studio Feed
            test://snow
            #EXTINF:-1 tvg-chno="9.1",Unknown Feed
            test://snow
            """, as: "guided.m3u")
        let dir = (lineup as NSString).deletingLastPathComponent
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <tv>
              <channel id="one.example"><display-name>Channel One</display-name></channel>
              <channel id="two.example"><display-name>Two</display-name></channel>
              <programme channel="one.example" start="20261122190000 +0000" stop="20261122200000 +0000"><title>News</title></programme>
              <programme channel="two.example" start="20261122190000 +0000" stop="20261122200000 +0000"><title>Film</title></programme>
            </tv>
            """.write(toFile: (dir as NSString).appendingPathComponent("guide.xml"), atomically: true, encoding: .utf8)
        let state = (dir as NSString).appendingPathComponent("state")
        let r = try await offPool { try run(["lineup", "check", lineup, "--state-dir", state]) }
        #expect(r.status == 0, "\(r.err)")
        // 1 by its tvg-id, 2 by its name ('Two HD' is 'Two'); 3 and 9.1 have no match, each named at its line.
        let warnings = r.err.split(separator: "\n").filter { $0.contains("no guide match") }
        #expect(warnings == [
            "\(lineup):6: warning: channel 3 'Studio Feed' has no guide match (no guide channel with id 'gone.example' or a name like 'Studio Feed')",
            "\(lineup):8: warning: channel 9.1 'Unknown Feed' has no guide match (no guide channel with a name like 'Unknown Feed')",
        ], "\(r.err)")
        #expect(r.out.contains("guide: 2 of 4 channels matched"), "\(r.out)")

        // --no-guide reads no guide and says nothing about it.
        let plain = try await offPool { try run(["lineup", "check", lineup, "--state-dir", state, "--no-guide"]) }
        #expect(plain.status == 0)
        #expect(!plain.err.contains("guide match") && !plain.out.contains("channels matched"), "\(plain.out)\(plain.err)")
    }

    @Test func lineupCheckReportsEveryProblemWithItsLine() async throws {
        let path = try write("""
            #EXTM3U
            #EXTINF:-1 tvg-chno="1",One
            udp://127.0.0.1:5000
            #EXTINF:-1 tvg-chno="1",Duplicate number
            udp://127.0.0.1:5001
            #EXTINF:-1 tvg-chno="2",No address
            #EXTINF:-1 tvg-chno="3",Bad scheme
            gopher://example.com/x
            """, as: "bad.m3u")
        let r = try await offPool { try run(["lineup", "check", path]) }
        #expect(r.status == 2)
        #expect(r.err.contains("\(path):4:"), "duplicate number on line 4: \(r.err)")
        #expect(r.err.contains("\(path):6:"), "missing URL on line 6: \(r.err)")
        #expect(r.err.contains("\(path):8:"), "bad scheme on line 8: \(r.err)")
        #expect(r.out.isEmpty)
    }

    @Test func playRefusesABrokenLineupWithoutStarting() async throws {
        let path = try write("channels:\n  - name: x\n    sorce: udp://127.0.0.1:5000\n", as: "typo.yaml")
        let r = try await offPool { try run(["play", path, "--output", "headless", "--no-keys", "--http", "127.0.0.1:0"]) }
        #expect(r.status == 2)
        #expect(r.err.contains("\(path):3"), "\(r.err)")
    }

    @Test func playRefusesAnOpenAPIWithoutAToken() async throws {
        let r = try await offPool {
            try run(["play", FlipboxProcess.repositoryRoot.appendingPathComponent("Channels/demo.yaml").path,
                     "--output", "headless", "--no-keys", "--http", "0.0.0.0:8999"])
        }
        #expect(r.status == 2)
        #expect(r.err.lowercased().contains("token"), "\(r.err)")
        #expect(!r.err.contains("playing"), "refused before starting: \(r.err)")
    }

    @Test func playRejectsMalformedOptions() async throws {
        for args in [["--size", "big"], ["--output", "hdmi"], ["--http", "nowhere"], ["--warm", "some"]] {
            let r = try await offPool { try run(["play", "--no-keys"] + args) }
            #expect(r.status == 64, "\(args): \(r.status) \(r.err)")
            #expect(r.err.contains(args[0]), "\(args): \(r.err)")
        }
    }

    /// `play` and `bench` read `--size` and `--fps` in one place, with the same words.
    @Test func playAndBenchReadThePictureTheSameWay() async throws {
        let cases: [([String], String)] = [
            (["--size", "321x180"], "--size must be WIDTHxHEIGHT with even numbers from 64x64 to 7680x4320, e.g. 1280x720, not '321x180'"),
            (["--size", "8000x4000"], "not '8000x4000'"),
            (["--fps", "0"], "--fps must be 1 to 120, not 0"),
        ]
        for command in [["play", "--no-keys", "--output", "headless"], ["bench", "--flips", "1"]] {
            for (args, message) in cases {
                let r = try await offPool { try run(command + args) }
                #expect(r.status == 64, "\(command[0]) \(args): \(r.status) \(r.err)")
                #expect(r.err.contains(message), "\(command[0]) \(args): \(r.err)")
            }
        }
    }

    /// `flipbox bench`, `soak` and `replay` run the flipbox-lab beside flipbox (`--help`
    /// included), and say where they looked when it is not there.
    @Test func labCommandsRunTheLabBesideFlipbox() async throws {
        let help = try await offPool { try run(["bench", "--help"]) }
        #expect(help.status == 0, "\(help.err)")
        #expect(help.out.contains("USAGE: flipbox-lab bench") && help.out.contains("--pool-streams"), "\(help.out)")

        // A flipbox alone in a directory: a hard link (/proc/self/exe names the link), else a copy.
        let dir = FlipboxProcess.repositoryRoot.appendingPathComponent(".build/flipbox-alone-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let alone = dir.appendingPathComponent("flipbox")
        do {
            try FileManager.default.linkItem(at: FlipboxProcess.executable, to: alone)
        } catch {
            try FileManager.default.copyItem(at: FlipboxProcess.executable, to: alone)
        }
        let expected = dir.resolvingSymlinksInPath().appendingPathComponent("flipbox-lab").path
        for command in ["bench", "soak", "replay"] {
            let r = try await offPool { try FlipboxProcess.runToEnd(program: alone, [command, "--flips", "1"]) }
            #expect(r.status == 127, "\(command): \(r.status) \(r.output)")
            #expect(r.output.contains("flipbox \(command): flipbox-lab is not installed next to flipbox: no executable at \(expected)"),
                    "\(command): \(r.output)")
        }
    }

    @Test func badParentalSettingsSayWhichAndWhy() async throws {
        let demo = FlipboxProcess.repositoryRoot.appendingPathComponent("Channels/demo.yaml").path
        let cases: [([String], String)] = [
            (["--parental", "FSK=PG"], "'PG' is not a FSK rating"),
            (["--parental", "Foo=1"], "unknown rating system 'Foo'"),
            (["--parental", "unrated=maybe"], "unrated must be allow or lock"),
            (["--locked-flip", "jump"], "--locked-flip must be skip or card"),
            (["--up-next-seconds=-5"], "--up-next-seconds must be a number of seconds"),
        ]
        for (args, message) in cases {
            let r = try await offPool { try run(["play", demo, "--no-keys", "--output", "headless"] + args) }
            #expect(r.status == 64, "\(args): \(r.status) \(r.err)")
            #expect(r.err.contains(message), "\(args): \(r.err)")
        }
        let yaml = try write("settings:\n  parental:\n    VCHIP: TV-XX\nchannels:\n  - {number: 1, name: One, source: \"test://smpte\"}\n", as: "lineup.yaml")
        let r = try await offPool { try run(["play", yaml, "--no-keys", "--output", "headless"]) }
        #expect(r.status == 64 && r.err.contains("settings.parental.VCHIP: 'TV-XX' is not a VCHIP rating"), "\(r.status) \(r.err)")
    }

    @Test func badTimeshiftOptionsAndSettingsSayWhichAndWhy() async throws {
        let demo = FlipboxProcess.repositoryRoot.appendingPathComponent("Channels/demo.yaml").path
        let cases: [([String], String)] = [
            (["--timeshift-warm", "60s"], "--timeshift-warm 60s needs timeshift on (--timeshift, or timeshift: in the lineup's settings)"),
            (["--timeshift", "30m", "--timeshift-warm", "20m"], "--timeshift-warm must be between 1.0 seconds and 600.0 seconds, not '20m'"),
        ]
        for (args, message) in cases {
            let r = try await offPool { try run(["play", demo, "--no-keys", "--output", "headless"] + args) }
            #expect(r.status == 64, "\(args): \(r.status) \(r.err)")
            #expect(r.err.contains(message), "\(args): \(r.err)")
        }
        let yaml = try write("settings:\n  timeshift:\n    minutes: 30\n    warm-secs: 60\nchannels:\n  - {number: 1, name: One, source: \"test://smpte\"}\n", as: "lineup.yaml")
        let r = try await offPool { try run(["play", yaml, "--no-keys", "--output", "headless"]) }
        #expect(r.status == 2 && r.err.contains("\(yaml):4: settings.timeshift has no 'warm-secs' (it takes minutes, warm-seconds, memory)"),
                "\(r.status) \(r.err)")
    }

    @Test func pinSetRefusesWhatIsNotFourToEightDigits() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-pin-cli-\(UUID().uuidString)").path
        let r = try await offPool { try run(["pin", "set", "--state-dir", dir]) }  // standard input is empty
        #expect(r.status == 2 && r.err.contains("no PIN given"), "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/pin.json"))
    }
}
