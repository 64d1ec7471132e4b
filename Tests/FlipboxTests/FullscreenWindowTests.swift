import Foundation
import GStreamer
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `--output window --fullscreen` on a real X server (Xvfb): the window covers the screen, the
/// picture reaches every edge, and the pointer shows no cursor over it; and on a real Wayland
/// compositor (weston, headless), where waylandsink's surface covers the output.
@Suite(.serialized) struct FullscreenWindowTests {
    /// An Xvfb server on a display of its own; killed by `stop()`.
    final class VirtualScreen: @unchecked Sendable {
        let process = Process()
        let display: String

        init(width: Int, height: Int) throws {
            // A display number no other X server holds (its lock file).
            var number = Int.random(in: 200...900)
            while FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock") { number = Int.random(in: 200...900) }
            display = ":\(number)"
            process.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
            process.arguments = [display, "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(30)
            while !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") {
                guard Date() < deadline, process.isRunning else { throw POSIXError(.ENOENT) }
                Thread.sleep(forTimeInterval: 0.05)
            }
            Thread.sleep(forTimeInterval: 0.3) // the socket exists just before the server accepts
        }

        /// Runs an X client on this display; its standard output.
        func run(_ executable: String, _ arguments: [String]) -> String {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = [executable] + arguments
            p.environment = ProcessInfo.processInfo.environment.merging(["DISPLAY": display]) { $1 }
            let out = Pipe()
            p.standardOutput = out
            p.standardError = FileHandle.nullDevice
            guard (try? p.run()) != nil else { return "" }
            let data = out.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }

        /// The whole screen as the X server has it (`import -window root`, ImageMagick).
        func screenshot() throws -> BGRAImage {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-root-\(UUID().uuidString).png")
            defer { try? FileManager.default.removeItem(at: file) }
            _ = run("import", ["-window", "root", file.path])
            return try ImageCodec.decode(bytes: [UInt8](Data(contentsOf: file)))
        }

        /// How many pixels of the cursor the pointer shows now are not transparent (XFixes'
        /// GetCursorImage, through Python's ctypes); nil when it cannot be asked.
        func visibleCursorPixels() -> Int? {
            let script = """
                import ctypes, sys
                x11 = ctypes.CDLL("libX11.so.6")
                fixes = ctypes.CDLL("libXfixes.so.3")
                class CursorImage(ctypes.Structure):
                    _fields_ = [("x", ctypes.c_short), ("y", ctypes.c_short), ("width", ctypes.c_ushort),
                                ("height", ctypes.c_ushort), ("xhot", ctypes.c_ushort), ("yhot", ctypes.c_ushort),
                                ("cursor_serial", ctypes.c_ulong), ("pixels", ctypes.POINTER(ctypes.c_ulong)),
                                ("atom", ctypes.c_ulong), ("name", ctypes.c_char_p)]
                x11.XOpenDisplay.restype = ctypes.c_void_p
                x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
                fixes.XFixesGetCursorImage.restype = ctypes.POINTER(CursorImage)
                fixes.XFixesGetCursorImage.argtypes = [ctypes.c_void_p]
                display = x11.XOpenDisplay(None)
                image = fixes.XFixesGetCursorImage(display).contents
                print(sum(1 for i in range(image.width * image.height) if (image.pixels[i] >> 24) & 0xff))
                """
            return Int(run("python3", ["-c", script]).trimmingCharacters(in: .whitespacesAndNewlines))
        }

        func stop() {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    @Test func theWindowCoversTheScreenWithThePictureAndNoCursor() async throws {
        try await offPool { try self.fullscreen() }
    }

    func fullscreen() throws {
        try GStreamer.initialize() // for decoding the screenshots
        let screen = try VirtualScreen(width: 640, height: 360)
        defer { screen.stop() }
        let before = screen.visibleCursorPixels()
        #expect((before ?? 0) > 0, "the X server's own cursor shows before Flipbox starts: \(String(describing: before))")

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-fullscreen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let lineup = dir.appendingPathComponent("lineup.yaml")
        try "channels:\n  - number: 1\n    name: Red\n    source: test://color/ff0000?size=320x180&fps=30&gop=30\n"
            .write(to: lineup, atomically: true, encoding: .utf8)
        // No --fullscreen: with no terminal (as a box runs it) full screen is the default.
        // No --size: a full-screen window takes the screen's.
        let box = try FlipboxProcess(arguments: [lineup.path], port: freePort(),
                                     environment: ["DISPLAY": screen.display], output: "window")
        defer { box.stop() }
        #expect(box.waitForStatus(seconds: 30) { ($0["channel"] as? [String: Any])?["number"] as? String == "1" }, "log:\n\(box.logText)")
        #expect(box.logText.contains("display: full-screen window at 640x360"), "log:\n\(box.logText)")

        let info = screen.run("xwininfo", ["-name", "Flipbox"])
        #expect(info.contains("Absolute upper-left X:  0") && info.contains("Absolute upper-left Y:  0"), "\(info)")
        #expect(info.contains("Width: 640") && info.contains("Height: 360"), "\(info)")
        #expect(info.contains("Map State: IsViewable"), "\(info)")

        // The picture reaches every edge of the screen.
        var shot = try screen.screenshot()
        let deadline = Date().addingTimeInterval(15)
        let points = [(4, 4), (636, 4), (4, 356), (636, 356), (320, 180)]
        while !points.allSatisfy({ shot.looks(255, 0, 0, atX: $0.0, y: $0.1) }) && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.2)
            shot = try screen.screenshot()
        }
        let size = (shot.width, shot.height)
        #expect(size == (640, 360))
        for (x, y) in points {
            #expect(shot.looks(255, 0, 0, atX: x, y: y), "red at \(x),\(y), is \(shot.describe(atX: x, y: y))")
        }
        #expect(screen.visibleCursorPixels() == 0, "no cursor over the full-screen window")
        box.stop()

        // --no-fullscreen: a window of the output's size, the rest of the screen not covered.
        let windowed = try FlipboxProcess(arguments: [lineup.path, "--no-fullscreen", "--size", "320x180"], port: freePort(),
                                          environment: ["DISPLAY": screen.display], output: "window")
        defer { windowed.stop() }
        #expect(windowed.waitForStatus(seconds: 30) { ($0["channel"] as? [String: Any])?["number"] as? String == "1" }, "log:\n\(windowed.logText)")
        shot = try screen.screenshot()
        let end = Date().addingTimeInterval(15)
        while !shot.looks(255, 0, 0, atX: 160, y: 90) && Date() < end {
            Thread.sleep(forTimeInterval: 0.2)
            shot = try screen.screenshot()
        }
        #expect(shot.looks(255, 0, 0, atX: 160, y: 90), "the window's picture, is \(shot.describe(atX: 160, y: 90))")
        #expect(!shot.looks(255, 0, 0, atX: 636, y: 356), "the screen beyond the window is not covered")
        #expect(screen.run("xwininfo", ["-name", "Flipbox"]).isEmpty, "no full-screen window")
        #expect((screen.visibleCursorPixels() ?? 0) > 0, "the cursor shows")
    }

    /// A Wayland compositor of its own: weston's headless backend drawing with pixman (so a
    /// screenshot has pixels), desktop shell, debug protocols on for `weston-screenshooter`.
    final class WaylandScreen: @unchecked Sendable {
        let process = Process()
        let runtime: URL
        let socket = "flipbox-\(UUID().uuidString.prefix(8))"

        init(width: Int, height: Int) throws {
            runtime = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-wl-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            process.executableURL = URL(fileURLWithPath: "/usr/bin/weston")
            process.arguments = ["--backend=headless-backend.so", "--use-pixman", "--width=\(width)", "--height=\(height)",
                                 "--socket=\(socket)", "--idle-time=0", "--debug"]
            process.environment = ["XDG_RUNTIME_DIR": runtime.path, "PATH": "/usr/bin:/bin"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(30)
            while !FileManager.default.fileExists(atPath: runtime.appendingPathComponent(socket).path) {
                guard Date() < deadline, process.isRunning else { throw POSIXError(.ENOENT) }
                Thread.sleep(forTimeInterval: 0.05)
            }
            Thread.sleep(forTimeInterval: 1) // the shell's background and panel
        }

        /// What a Wayland client needs, and no X display.
        var environment: [String: String] { ["XDG_RUNTIME_DIR": runtime.path, "WAYLAND_DISPLAY": socket, "DISPLAY": ""] }

        /// The output as weston has it (`weston-screenshooter` writes into its working directory).
        func screenshot() throws -> BGRAImage {
            let dir = runtime.appendingPathComponent("shots-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/weston-screenshooter")
            p.environment = environment
            p.currentDirectoryURL = dir
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            p.waitUntilExit()
            guard let file = try FileManager.default.contentsOfDirectory(atPath: dir.path).first(where: { $0.hasSuffix(".png") }) else {
                throw POSIXError(.ENOENT)
            }
            return try ImageCodec.decode(bytes: [UInt8](Data(contentsOf: dir.appendingPathComponent(file))))
        }

        func stop() {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    @Test func onWaylandTheWindowCoversTheOutputWithThePicture() async throws {
        try await offPool { try self.waylandFullscreen() }
    }

    func waylandFullscreen() throws {
        try GStreamer.initialize()
        let screen = try WaylandScreen(width: 640, height: 360)
        defer { screen.stop() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-wayland-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let lineup = dir.appendingPathComponent("lineup.yaml")
        try "channels:\n  - number: 1\n    name: Red\n    source: test://color/ff0000?size=160x90&fps=25&gop=25\n"
            .write(to: lineup, atomically: true, encoding: .utf8)
        func shot(until points: [(Int, Int)], red: Bool) throws -> BGRAImage {
            var image = try screen.screenshot()
            let deadline = Date().addingTimeInterval(15)
            while !points.allSatisfy({ image.looks(255, 0, 0, atX: $0.0, y: $0.1) == red }) && Date() < deadline {
                Thread.sleep(forTimeInterval: 0.3)
                image = try screen.screenshot()
            }
            return image
        }

        // A 320x180 picture, full screen: waylandsink's surface covers the 640x360 output.
        let box = try FlipboxProcess(arguments: [lineup.path, "--fullscreen", "--size", "320x180"], port: freePort(),
                                     environment: screen.environment, output: "window")
        defer { box.stop() }
        #expect(box.waitForStatus(seconds: 30) { ($0["channel"] as? [String: Any])?["number"] as? String == "1" }, "log:\n\(box.logText)")
        let corners = [(4, 4), (636, 4), (4, 356), (636, 356), (320, 180)]
        let full = try shot(until: corners, red: true)
        #expect((full.width, full.height) == (640, 360))
        for (x, y) in corners { #expect(full.looks(255, 0, 0, atX: x, y: y), "red at \(x),\(y), is \(full.describe(atX: x, y: y))") }
        box.stop()

        // --no-fullscreen: a window of 320x180 somewhere on the desktop, the rest not covered.
        let windowed = try FlipboxProcess(arguments: [lineup.path, "--no-fullscreen", "--size", "320x180"], port: freePort(),
                                          environment: screen.environment, output: "window")
        defer { windowed.stop() }
        #expect(windowed.waitForStatus(seconds: 30) { ($0["channel"] as? [String: Any])?["number"] as? String == "1" }, "log:\n\(windowed.logText)")
        let window = try shot(until: [(4, 4), (636, 4)], red: false)
        var red = 0
        for y in stride(from: 0, to: window.height, by: 4) { for x in stride(from: 0, to: window.width, by: 4) where window.looks(255, 0, 0, atX: x, y: y) { red += 1 } }
        let share = Double(red) / Double((window.width / 4) * (window.height / 4))
        #expect(share > 0.15 && share < 0.35, "a quarter of the output is the window's red: \(share)")
    }
}
