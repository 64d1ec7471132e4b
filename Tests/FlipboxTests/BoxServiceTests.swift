import Foundation
import GStreamer
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `flipbox play` as a systemd service and a box: the notify protocol spoken to a real `AF_UNIX`
/// datagram socket, keys from an evdev device (a FIFO carrying kernel records), the unit and the
/// installer.
@Suite(.serialized) struct BoxServiceTests {
    func makeLineup() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-box-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let yaml = """
            channels:
              - number: 1
                name: Red One
                source: test://color/ff0000?size=320x180&fps=30&gop=30
              - number: 2
                name: Green Two
                source: test://color/00ff00?size=320x180&fps=30&gop=30
            """
        let file = dir.appendingPathComponent("lineup.yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test func speaksSystemdNotifyReadyWatchdogAndStopping() async throws {
        try await offPool { try self.notifyProtocol() }
    }

    func notifyProtocol() throws {
        let listener = try NotifyListener()
        defer { listener.stop() }
        let lineup = try makeLineup()
        let port = freePort()
        // WATCHDOG_USEC 400 ms: pings every 200 ms.
        let box = try FlipboxProcess(arguments: [lineup.path, "--size", "320x180"], port: port,
                                     environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "400000"])
        defer { box.stop() }
        #expect(listener.wait(for: "READY=1", seconds: 30), "READY=1 arrives; log:\n\(box.logText)")
        // READY is sent once the first flip has its result: the status already shows it completed.
        let status = box.json("GET", "/api/v1/status").object
        let lastFlip = status["lastFlip"] as? [String: Any]
        #expect(lastFlip?["outcome"] as? String == "completed", "the first flip completed before READY=1: \(status)")
        #expect(listener.lines("STATUS=playing 1 Red One").count >= 1)
        #expect(listener.lines("READY=1").count == 1)

        let pingsAtReady = listener.lines("WATCHDOG=1").count
        Thread.sleep(forTimeInterval: 2)
        let pings = listener.lines("WATCHDOG=1").count - pingsAtReady
        #expect((6...14).contains(pings), "about 10 pings in 2 s at 200 ms, got \(pings)")

        // A flip updates the status line.
        #expect(box.request("POST", "/api/v1/tune/2").status == 200)
        #expect(listener.wait(for: "STATUS=playing 2 Green Two", seconds: 10))

        box.process.terminate() // SIGTERM, as systemctl stop sends
        #expect(listener.wait(for: "STOPPING=1", seconds: 10), "STOPPING=1 on SIGTERM")
        let deadline = Date().addingTimeInterval(10)
        while box.process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        guard !box.process.isRunning else {
            Issue.record("the box did not stop within 10 s of SIGTERM; its threads:\n\(threads(of: box.process.processIdentifier))\nlog:\n\(box.logText)")
            return
        }
        #expect(box.process.terminationStatus == 0, "a graceful stop exits 0; log:\n\(box.logText)")
    }

    @Test func anEvdevKeyFlipsTheRealBox() async throws {
        try await offPool { try self.evdevFlip() }
    }

    func evdevFlip() throws {
        try GStreamer.initialize() // for decoding the snapshot
        let lineup = try makeLineup()
        let devices = lineup.deletingLastPathComponent().appendingPathComponent("input")
        try FileManager.default.createDirectory(at: devices, withIntermediateDirectories: true)
        let port = freePort()
        let box = try FlipboxProcess(arguments: [lineup.path, "--size", "320x180", "--input", "evdev:\(devices.path)"], port: port)
        defer { box.stop() }
        #expect(box.waitForStatus(seconds: 30) { ($0["channel"] as? [String: Any])?["number"] as? String == "1" })
        // A remote plugged in after start: KEY_CHANNELUP pressed and released.
        let fifo = devices.appendingPathComponent("event4").path
        #expect(mkfifo(fifo, 0o600) == 0)
        var fd: Int32 = -1
        let deadline = Date().addingTimeInterval(10)
        while fd < 0 && Date() < deadline {
            fd = open(fifo, O_WRONLY | O_NONBLOCK)
            if fd < 0 { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(fd >= 0, "the box opened the device; log:\n\(box.logText)")
        for value: Int32 in [1, 0] {
            var record = [UInt8](repeating: 0, count: 16)
            record += withUnsafeBytes(of: UInt16(1).littleEndian, Array.init) // EV_KEY
            record += withUnsafeBytes(of: UInt16(0x192).littleEndian, Array.init) // KEY_CHANNELUP
            record += withUnsafeBytes(of: value.littleEndian, Array.init)
            _ = record.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        }
        #expect(box.waitForStatus(seconds: 15) { ($0["channel"] as? [String: Any])?["number"] as? String == "2" },
                "KEY_CHANNELUP flipped to channel 2; log:\n\(box.logText)")
        let img = try box.snapshot()
        #expect(img.looks(0, 255, 0, atX: 160, y: 120), "green on screen, is \(img.describe(atX: 160, y: 120))")
        close(fd)
        #expect(box.logText.contains("input: event4 (\(fifo))"))
    }

    @Test func installsIntoAPrefixIdempotentlyAndTheUnitVerifies() async throws {
        try await offPool { try self.install() }
    }

    func run(_ executable: String, _ arguments: [String]) -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        do { try p.run() } catch { return (-1, "\(error)") }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func install() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-install-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let script = FlipboxProcess.repositoryRoot.appendingPathComponent("deploy/install.sh").path
        let args = ["--prefix", root.path, "--binary", FlipboxProcess.executable.path]
        let first = run(script, args)
        #expect(first.status == 0, "\(first.output)")
        let fm = FileManager.default
        for path in ["usr/local/bin/flipbox", "etc/systemd/system/flipbox.service", "etc/flipbox/flipbox.env",
                     "etc/flipbox/keymap.conf", "etc/flipbox/lineup.yaml", "usr/local/share/flipbox/Channels/demo.yaml",
                     "usr/local/share/flipbox/Interstitials/no-signal.svg"] {
            #expect(fm.fileExists(atPath: root.appendingPathComponent(path).path), "\(path) installed")
        }
        // The service plays /etc/flipbox/lineup.yaml: the unit's default and the first flipbox.env say so.
        #expect(unitHas("Environment=FLIPBOX_LINEUP=/etc/flipbox/lineup.yaml\n"))
        let env = try String(contentsOf: root.appendingPathComponent("etc/flipbox/flipbox.env"), encoding: .utf8)
        #expect(env.contains("\nFLIPBOX_LINEUP=/etc/flipbox/lineup.yaml\n"), "\(env)")
        // The first lineup is the demo's, its logos and file at the installed assets: it plays from /etc/flipbox.
        let lineup = root.appendingPathComponent("etc/flipbox/lineup.yaml")
        let seeded = try String(contentsOf: lineup, encoding: .utf8)
        #expect(seeded.contains("    logo: /usr/local/share/flipbox/Channels/logos/news.svg\n"), "\(seeded)")
        #expect(seeded.contains("    source: /usr/local/share/flipbox/Channels/media/loop.mp4\n"), "\(seeded)")
        let assets = root.appendingPathComponent("usr/local/share/flipbox").path
        let moved = root.appendingPathComponent("seeded-lineup.yaml")
        try seeded.replacingOccurrences(of: "/usr/local/share/flipbox", with: assets).write(to: moved, atomically: true, encoding: .utf8)
        let seededCheck = run(root.appendingPathComponent("usr/local/bin/flipbox").path, ["lineup", "check", moved.path])
        #expect(seededCheck.status == 0 && seededCheck.output.contains("7 channels"), "\(seededCheck.output)")
        #expect(!seededCheck.output.contains("logo file not found"), "every logo is found at the installed assets: \(seededCheck.output)")

        // The owner's configuration survives a second run.
        let keymap = root.appendingPathComponent("etc/flipbox/keymap.conf")
        try "KEY_F1: info\n".write(to: keymap, atomically: true, encoding: .utf8)
        let owners = "channels:\n  - number: 1\n    name: Mine\n    source: test://smpte\n"
        try owners.write(to: lineup, atomically: true, encoding: .utf8)
        let second = run(script, args)
        #expect(second.status == 0, "\(second.output)")
        #expect(try String(contentsOf: keymap, encoding: .utf8) == "KEY_F1: info\n")
        #expect(try String(contentsOf: lineup, encoding: .utf8) == owners, "the owner's lineup is never overwritten")
        #expect(!second.output.contains("wrote"), "\(second.output)")
        // The installed binary reads the installed demo lineup.
        let check = run(root.appendingPathComponent("usr/local/bin/flipbox").path,
                        ["lineup", "check", root.appendingPathComponent("usr/local/share/flipbox/Channels/demo.yaml").path])
        #expect(check.status == 0, "\(check.output)")

        // systemd's own check of the unit (ExecStart pointed at a binary that exists here).
        if fm.isExecutableFile(atPath: "/usr/bin/systemd-analyze") {
            let unit = try String(contentsOf: root.appendingPathComponent("etc/systemd/system/flipbox.service"), encoding: .utf8)
            let copy = root.appendingPathComponent("flipbox.service")
            try unit.replacingOccurrences(of: "/usr/local/bin/flipbox", with: root.appendingPathComponent("usr/local/bin/flipbox").path)
                .write(to: copy, atomically: true, encoding: .utf8)
            let verify = run("/usr/bin/systemd-analyze", ["verify", copy.path])
            #expect(verify.status == 0 && verify.output.isEmpty, "systemd-analyze verify: \(verify.output)")
        }
        #expect(unitHas("Type=notify") && unitHas("WatchdogSec=") && unitHas("StateDirectory=flipbox"))
        #expect(unitHas("\nSupplementaryGroups=video render input audio\n"), "the display, the GPU's render nodes, remotes and sound")

        let removed = run(script, ["--prefix", root.path, "--uninstall"])
        #expect(removed.status == 0, "\(removed.output)")
        #expect(!fm.fileExists(atPath: root.appendingPathComponent("usr/local/bin/flipbox").path))
        #expect(fm.fileExists(atPath: keymap.path) && fm.fileExists(atPath: lineup.path), "uninstall keeps the configuration")
        #expect(!fm.fileExists(atPath: root.appendingPathComponent("etc/systemd/system/flipbox.service").path))
        #expect(!fm.fileExists(atPath: root.appendingPathComponent("usr/local/share/flipbox").path))
        #expect(removed.output.contains("kept the configuration in \(root.path)/etc/flipbox"), "\(removed.output)")
    }

    func unitHas(_ text: String) -> Bool {
        let unit = (try? String(contentsOf: FlipboxProcess.repositoryRoot.appendingPathComponent("deploy/flipbox.service"), encoding: .utf8)) ?? ""
        return unit.contains(text)
    }
}
