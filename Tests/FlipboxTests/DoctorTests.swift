import Foundation
import Testing

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
        let result = try doctor(["--", lineup.path, "--output", "headless", "--state-dir", dir.path, "--no-keys"])
        #expect(result.status == 0, "\(result.output)")
        #expect(line(result.output, "ok    lineup    \(lineup.path): 1 channels") != nil, "\(result.output)")
        #expect(line(result.output, "ok    gstreamer 1.22") != nil || line(result.output, "ok    gstreamer 1.") != nil)
        #expect(line(result.output, "ok    state     \(dir.path): the last channel is remembered there") != nil)
        #expect(line(result.output, "ok    api       http://127.0.0.1:8642/ (this box only)") != nil)
        #expect(result.output.hasSuffix("doctor: this box can play (1 note)\n"), "the note is the missing key input: \(result.output)")
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

        // The key map is checked with a lineup that loads.
        try write("channels:\n  - number: 1\n    name: One\n    source: test://smpte\n", to: lineup)
        let keys = try doctor(["--", lineup.path, "--output", "headless", "--keymap", keymap.path, "--input", "evdev:\(noDisplays.path)"])
        #expect(keys.status == 1)
        #expect(line(keys.output, "FAIL  keymap    ")?.contains("\(keymap.path):2: 'KEY_NOPE' is not a Linux key code name") == true, "\(keys.output)")
        #expect(line(keys.output, "NOTE  input     no input device in \(noDisplays.path)") != nil, "\(keys.output)")
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
