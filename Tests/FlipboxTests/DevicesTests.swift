import Foundation
import Testing

/// `flipbox devices` as a person runs it: every kind of device play can use, with the names its
/// options take; here its LIRC line against a real listening socket, a socket nobody answers on,
/// and none at all.
@Suite struct DevicesTests {
    func devices(lirc socket: String) throws -> String {
        let none = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-devices-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: none, withIntermediateDirectories: true)
        let result = try FlipboxProcess.runToEnd(["devices", "--input-directory", none.path, "--lirc-socket", socket],
                                                 environment: ["FLIPBOX_DRI_DIR": none.path])
        #expect(result.status == 0, "\(result.output)")
        return result.output
    }

    func line(after heading: String, in output: String) -> String? {
        let lines = output.split(separator: "\n").map(String.init)
        guard let i = lines.firstIndex(where: { $0.hasPrefix(heading) }), i + 1 < lines.count else { return nil }
        return lines[i + 1]
    }

    @Test func listsLircdWhenItAnswersAndSaysWhyWhenItDoesNot() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-lirc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let socket = dir.appendingPathComponent("lircd").path

        let missing = try devices(lirc: socket)
        #expect(line(after: "LIRC (--input lirc[:SOCKET]):", in: missing) == "  none: no lircd socket at \(socket) (install and start lircd for IR remotes)",
                "\(missing)")
        #expect(missing.contains("Inputs (") && missing.contains("HDMI-CEC (--input cec):"), "\(missing)")
        // This machine has no CEC adapter: the real libcec looked and says so.
        #expect(line(after: "HDMI-CEC (--input cec):", in: missing) == "  none: no adapter (the TV's remote does not reach the box)", "\(missing)")

        // A listening Unix socket, as lircd's: accepted.
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["python3", "-c", """
            import socket, sys, time
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(sys.argv[1]); s.listen(8)
            print("ready", flush=True)
            time.sleep(60)
            """, socket]
        let ready = Pipe()
        server.standardOutput = ready
        try server.run()
        // SIGKILL: the test process hands its children SIGTERM blocked.
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }
        _ = ready.fileHandleForReading.availableData
        let answering = try devices(lirc: socket)
        #expect(line(after: "LIRC (--input lirc[:SOCKET]):", in: answering) == "  lircd at \(socket): answering (its remotes can drive the box)",
                "\(answering)")

        // The socket file left behind by a lircd that stopped: named, with the reason.
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
        let stale = try devices(lirc: socket)
        let said = line(after: "LIRC (--input lirc[:SOCKET]):", in: stale) ?? ""
        #expect(said.hasPrefix("  lircd's socket \(socket) does not answer: "), "\(stale)")
    }
}
