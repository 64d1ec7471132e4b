import Foundation
import GStreamer
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `flipbox doctor` run as a person runs it: one line per check with the fix, exit status 0 when
/// the box can play and 1 when it cannot. (In the guest, `make vm-test` runs it against a real
/// display, keyboard and installed service.)
@Suite struct DoctorTests {
    func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-doctor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    func write(_ text: String, to url: URL) throws { try text.write(to: url, atomically: true, encoding: .utf8) }

    /// Runs `flipbox doctor`; the display devices are an empty directory unless the test names
    /// some, so a CI machine with a GPU (or a DRM device it cannot open) gives the same lines.
    func doctor(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        var environment = environment
        if environment["FLIPBOX_DRI_DIR"] == nil {
            let none = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-doctor-no-dri-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: none, withIntermediateDirectories: true)
            environment["FLIPBOX_DRI_DIR"] = none.path
        }
        return try FlipboxProcess.runToEnd(["doctor"] + arguments, environment: environment)
    }

    func line(_ output: String, _ prefix: String) -> String? {
        output.split(separator: "\n").map(String.init).first { $0.hasPrefix(prefix) }
    }

    @Test func aPlayableBoxExitsZeroWithALinePerCheck() throws {
        let dir = try temporaryDirectory()
        let lineup = dir.appendingPathComponent("lineup.yaml")
        try write("channels:\n  - number: 1\n    name: One\n    source: test://smpte\n", to: lineup)
        let port = freeLoopbackPort()
        let result = try doctor(["--", lineup.path, "--output", "headless", "--state-dir", dir.path, "--no-keys", "--http", "127.0.0.1:\(port)"])
        #expect(result.status == 0, "\(result.output)")
        #expect(line(result.output, "ok    lineup    \(lineup.path): 1 channels") != nil, "\(result.output)")
        #expect(line(result.output, "ok    gstreamer 1.22") != nil || line(result.output, "ok    gstreamer 1.") != nil)
        #expect(line(result.output, "ok    state     \(dir.path): the last channel is remembered there") != nil)
        #expect(line(result.output, "ok    recording \(dir.path)/recordings (made at the first recording), ") != nil, "\(result.output)")
        #expect(line(result.output, "ok    api       http://127.0.0.1:\(port)/ (this box only)") != nil)
        #expect(result.output.hasSuffix("doctor: this box can play (1 note)\n"), "the note is the missing key input: \(result.output)")
    }

    @Test func thePoolsOfRationedStreamsAreListedWithTheirLimitsAndWhereTheyCameFrom() throws {
        let dir = try temporaryDirectory()
        let lineup = dir.appendingPathComponent("lineup.yaml")
        try write("""
            pools:
              - {name: HDHomeRun, match: "http://192.168.1.20:5004/", streams: 4}
            channels:
              - {number: 1, name: One, source: "http://192.168.1.20:5004/auto/v1"}
              - {number: 2, name: Two, source: "http://192.168.1.20:5004/auto/v2"}
              - {number: 3, name: Three, source: "http://provider.example/live/3.ts"}
              - {number: 4, name: Four, source: "http://other.example:8080/4.ts"}
              - {number: 5, name: Five, source: "udp://@239.0.0.1:1234"}
            """, to: lineup)
        try write(#"{"provider.example:80": {"streams": 2, "evidence": "ended the oldest"}}"#,
                  to: dir.appendingPathComponent("learned-limits.json"))
        let port = freeLoopbackPort()
        let result = try doctor(["--", lineup.path, "--output", "headless", "--state-dir", dir.path, "--no-keys",
                                 "--http", "127.0.0.1:\(port)", "--max-streams", "other.example=1"])
        #expect(line(result.output, "ok    pools     HDHomeRun: 2 channels, 4 streams at once (lineup)") != nil, "\(result.output)")
        #expect(line(result.output, "ok    pools     provider.example:80: 1 channels, 2 streams at once (learned: the source ended the oldest)") != nil, "\(result.output)")
        #expect(line(result.output, "ok    pools     other.example:8080: 1 channels, 1 streams at once (command line)") != nil, "\(result.output)")
        #expect(!result.output.contains("239.0.0.1"), "multicast is in no pool")
    }

    /// A recordings directory that cannot be written: a problem when it was asked for (play
    /// stops), a note when it is the default (the box plays without recordings).
    @Test func anUnwritableRecordingsDirectoryIsSaidWithTheFix() throws {
        let dir = try temporaryDirectory()
        let lineup = dir.appendingPathComponent("lineup.yaml")
        try write("channels:\n  - number: 1\n    name: One\n    source: test://smpte\n", to: lineup)
        let file = dir.appendingPathComponent("not-a-directory")
        try write("x", to: file)
        let common = ["--", lineup.path, "--output", "headless", "--no-keys", "--http", "127.0.0.1:\(freeLoopbackPort())"]
        let asked = try doctor(common + ["--state-dir", dir.path, "--recordings-dir", file.path + "/recordings"])
        #expect(asked.status == 1, "\(asked.output)")
        #expect(line(asked.output, "FAIL  recording \(file.path)/recordings cannot be made (\(file.path) is not a writable directory): play stops") != nil, "\(asked.output)")
        // The lineup's recordings-dir, relative to the lineup's directory.
        let set = dir.appendingPathComponent("set.yaml")
        try write("settings: {recordings-dir: not-a-directory/recordings}\nchannels:\n  - number: 1\n    name: One\n    source: test://smpte\n", to: set)
        let fromLineup = try doctor(["--", set.path] + common.dropFirst(2) + ["--state-dir", dir.path])
        #expect(line(fromLineup.output, "FAIL  recording \(file.path)/recordings cannot be made (\(file.path) is not a writable directory): play stops") != nil,
                "\(fromLineup.output)")
        let byDefault = try doctor(common + ["--state-dir", file.path])
        #expect(line(byDefault.output, "NOTE  recording \(file.path)/recordings cannot be made (\(file.path) is not a writable directory): the box plays without recordings") != nil,
                "\(byDefault.output)")
    }

    @Test func problemsSayWhereAndWhatToDoAndTheExitStatusIsOne() throws {
        let dir = try temporaryDirectory()
        let lineup = dir.appendingPathComponent("lineup.yaml")
        try write("channels:\n  - number: 1\n    name: One\n    source: test://smpte\n  - number: 1\n    name: Again\n    source: test://ball\n", to: lineup)
        let keymap = dir.appendingPathComponent("keys.conf")
        try write("# remote\nKEY_NOPE: info\n", to: keymap)
        let noDisplays = dir.appendingPathComponent("dri")
        try FileManager.default.createDirectory(at: noDisplays, withIntermediateDirectories: true)
        let result = try doctor(["--", lineup.path, "--output", "kms", "--http", "0.0.0.0:8642", "--keymap", keymap.path, "--no-keys"],
                                environment: ["FLIPBOX_DRI_DIR": noDisplays.path])
        #expect(result.status == 1, "\(result.output)")
        let lineupLine = line(result.output, "FAIL  lineup    1 error, e.g. \(lineup.path):5:")
        #expect(lineupLine?.contains("(fix: flipbox lineup check \(lineup.path) lists every problem with its line)") == true, "\(result.output)")
        #expect(line(result.output, "FAIL  output    kms: no display device in \(noDisplays.path)") != nil, "\(result.output)")
        #expect(line(result.output, "FAIL  api       ")?.contains("set a token") == true, "\(result.output)")
        #expect(result.output.hasSuffix("doctor: this box cannot play: 3 problems\n"), "\(result.output)")

        // A bad key map entry is said with its FILE:LINE; play skips it and plays on, so it is a note.
        try write("channels:\n  - number: 1\n    name: One\n    source: test://smpte\n", to: lineup)
        let keys = try doctor(["--", lineup.path, "--output", "headless", "--keymap", keymap.path, "--input", "evdev:\(noDisplays.path)",
                               "--state-dir", dir.path, "--http", "127.0.0.1:\(freeLoopbackPort())"])
        #expect(keys.status == 0, "\(keys.output)")
        let keymapLine = line(keys.output, "NOTE  keymap    \(keymap.path):2: 'KEY_NOPE' is not a Linux key code name")
        #expect(keymapLine?.contains("; this entry is skipped, the others apply (fix: use a Linux key code name") == true, "\(keys.output)")
        #expect(line(keys.output, "NOTE  input     no input device in \(noDisplays.path)") != nil, "\(keys.output)")
        let missing = try doctor(["--", lineup.path, "--output", "headless", "--keymap", dir.appendingPathComponent("none.conf").path,
                                  "--input", "evdev:\(noDisplays.path)", "--state-dir", dir.path, "--http", "127.0.0.1:\(freeLoopbackPort())"])
        #expect(line(missing.output, "NOTE  keymap    --keymap \(dir.path)/none.conf: there is no such file; the default key map applies") != nil, "\(missing.output)")
    }

    /// Dolby passthrough to an analog output would play as noise: the doctor says so and names
    /// the digital devices; to an HDMI device it is fine.
    @Test func passthroughWantsAnHDMIOrSPDIFDevice() throws {
        let dir = try temporaryDirectory()
        let lineup = dir.appendingPathComponent("lineup.yaml")
        try write("channels:\n  - number: 1\n    name: One\n    source: test://smpte\nsettings:\n  audio-passthrough: ac3, eac3\n", to: lineup)
        let pcm = dir.appendingPathComponent("pcm")
        try write("00-00: ALC887-VD Analog : ALC887-VD Analog : playback 1 : capture 1\n00-03: HDMI 0 : HDMI 0 : playback 1\n", to: pcm)
        func sound(_ device: String) throws -> String? {
            let result = try doctor(["--", lineup.path, "--output", "kms", "--audio-device", device, "--state-dir", dir.path, "--no-keys",
                                     "--http", "127.0.0.1:\(freeLoopbackPort())"], environment: ["FLIPBOX_ASOUND_PCM": pcm.path])
            return line(result.output, "ok    sound") ?? line(result.output, "NOTE  sound")
        }
        #expect(try sound("hw:0,0") == "NOTE  sound     on hw:0,0 ALC887-VD Analog, with Dolby sound passed through: an analog output plays it as noise (fix: give --audio-device the HDMI or S/PDIF device (hw:0,3 HDMI 0), or turn passthrough off)")
        #expect(try sound("HDMI") == "ok    sound     on hw:0,3 HDMI 0, Dolby sound passed through as AC-3 for the receiver to decode")
    }

    /// The API's address is tried: bound and released at once. One that play cannot listen on is
    /// a note: the box plays without the API and tries again (PlayAPIAddressTests).
    @Test func theAPIAddressIsTriedPortInUseAndAddressNotHere() throws {
        let dir = try temporaryDirectory()
        let lineup = dir.appendingPathComponent("lineup.yaml")
        try write("channels:\n  - number: 1\n    name: One\n    source: test://smpte\n", to: lineup)
        let base = ["--", lineup.path, "--output", "headless", "--state-dir", dir.path, "--no-keys"]

        // Another program listens on the port.
        let listener = try ListeningSocket()
        defer { listener.close() }
        let taken = try doctor(base + ["--http", "127.0.0.1:\(listener.port)"])
        #expect(taken.status == 0, "\(taken.output)")
        #expect(line(taken.output, "NOTE  api       127.0.0.1:\(listener.port) is in use by another program: flipbox could not listen there; the box plays without the API, trying again until it can (fix: `ss -ltnp 'sport = :\(listener.port)'` shows which; stop it, or choose another port with --http HOST:PORT)") != nil,
                "\(taken.output)")
        // The wildcard address takes the port on loopback too.
        let everywhere = try doctor(base + ["--http", "0.0.0.0:\(listener.port)", "--token", "secret"])
        #expect(line(everywhere.output, "NOTE  api       0.0.0.0:\(listener.port) is in use by another program") != nil, "\(everywhere.output)")

        // 192.0.2.1 is TEST-NET-1 (RFC 5737): never a machine's own address.
        let elsewhere = try doctor(base + ["--http", "192.0.2.1:8642", "--token", "secret"])
        #expect(elsewhere.status == 0, "\(elsewhere.output)")
        #expect(line(elsewhere.output, "NOTE  api       192.0.2.1 is not an address of this machine: flipbox could not listen on it; the box plays without the API, trying again until it can (fix: listen on one of its addresses") != nil,
                "\(elsewhere.output)")

        // Released at once: the port is free again after doctor tried it.
        let port = freeLoopbackPort()
        let free = try doctor(base + ["--http", "127.0.0.1:\(port)"])
        #expect(line(free.output, "ok    api       http://127.0.0.1:\(port)/ (this box only)") != nil, "\(free.output)")
        let again = try ListeningSocket(port: port)
        again.close()
    }

    /// A port held by a running Flipbox: the service's own when doctor checks the service, a
    /// clash when it checks another command line.
    @Test func aPortHeldByARunningFlipbox() async throws {
        try await offPool { try self.heldByFlipbox() }
    }

    func heldByFlipbox() throws {
        let dir = try temporaryDirectory()
        let lineup = dir.appendingPathComponent("lineup.yaml")
        try write("channels:\n  - number: 1\n    name: One\n    source: test://color/ff0000?size=160x90\n", to: lineup)
        let port = freeLoopbackPort()
        let box = try FlipboxProcess(arguments: [lineup.path, "--size", "320x180"], port: port)
        defer { box.stop() }
        try #require(box.waitForStatus(seconds: 30) { $0["channel"] is [String: Any] }, "the box started; log:\n\(box.logText)")

        let second = try doctor(["--", lineup.path, "--output", "headless", "--state-dir", dir.path, "--no-keys", "--http", "127.0.0.1:\(port)"])
        #expect(second.status == 0, "\(second.output)")
        #expect(line(second.output, "NOTE  api       127.0.0.1:\(port) is in use by a Flipbox already running: this one could not listen there; the box plays without the API, trying again until it can (fix: stop that one") != nil,
                "\(second.output)")

        let unit = dir.appendingPathComponent("flipbox.service")
        try write("""
            [Service]
            ExecStart=/usr/local/bin/flipbox play \(lineup.path) --output headless --no-keys --state-dir \(dir.path) --http 127.0.0.1:\(port)
            """, to: unit)
        let service = try doctor(["--unit", unit.path])
        #expect(line(service.output, "ok    api       http://127.0.0.1:\(port)/ (this box only); a Flipbox answers there now (the service itself, when it runs)") != nil,
                "\(service.output)")
    }

    @Test func theServicesCommandLineIsReadFromItsUnitAndEnvironmentFile() throws {
        let dir = try temporaryDirectory()
        let lineup = dir.appendingPathComponent("box.yaml")
        try write("channels:\n  - number: 7\n    name: Seven\n    source: test://smpte\n", to: lineup)
        let env = dir.appendingPathComponent("flipbox.env")
        try write("# settings\nFLIPBOX_LINEUP=\(lineup.path)\nFLIPBOX_OPTIONS=--output headless --http 127.0.0.1:9911\n", to: env)
        let unit = dir.appendingPathComponent("flipbox.service")
        try write("""
            [Service]
            Environment=FLIPBOX_LINEUP=/nonexistent.yaml
            Environment=FLIPBOX_OPTIONS=
            EnvironmentFile=-\(env.path)
            ExecStart=/usr/local/bin/flipbox play $FLIPBOX_LINEUP --input evdev:\(dir.path) --state-dir \(dir.path) $FLIPBOX_OPTIONS
            """, to: unit)
        let result = try doctor(["--unit", unit.path])
        #expect(line(result.output, "ok    service   \(unit.path): flipbox play \(lineup.path) --input evdev:\(dir.path) --state-dir \(dir.path) --output headless --http 127.0.0.1:9911") != nil,
                "\(result.output)")
        #expect(line(result.output, "ok    lineup    \(lineup.path): 1 channels") != nil, "\(result.output)")
        #expect(line(result.output, "ok    api       http://127.0.0.1:9911/") != nil, "\(result.output)")
        // This machine has no flipbox user unless the box is installed here: said either way.
        #expect(line(result.output, "FAIL  service   the unit runs as the user flipbox") != nil || line(result.output, "ok    service   the user flipbox") != nil
                || line(result.output, "NOTE  service   the user flipbox") != nil, "\(result.output)")
    }
}
