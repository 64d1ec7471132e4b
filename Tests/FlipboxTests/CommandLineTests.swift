import Foundation
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
        let r = try await onOwnThread { try run(["lineup", "check", FlipboxProcess.repositoryRoot.appendingPathComponent("Channels/demo.yaml").path]) }
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("Flipbox News") && r.out.contains("Loop Channel"))
        #expect(r.out.contains("7 channels"))
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
        let r = try await onOwnThread { try run(["lineup", "check", path]) }
        #expect(r.status == 2)
        #expect(r.err.contains("\(path):4:"), "duplicate number on line 4: \(r.err)")
        #expect(r.err.contains("\(path):6:"), "missing URL on line 6: \(r.err)")
        #expect(r.err.contains("\(path):8:"), "bad scheme on line 8: \(r.err)")
        #expect(r.out.isEmpty)
    }

    @Test func playRefusesABrokenLineupWithoutStarting() async throws {
        let path = try write("channels:\n  - name: x\n    sorce: udp://127.0.0.1:5000\n", as: "typo.yaml")
        let r = try await onOwnThread { try run(["play", path, "--output", "headless", "--no-keys", "--http", "127.0.0.1:0"]) }
        #expect(r.status == 2)
        #expect(r.err.contains("\(path):3"), "\(r.err)")
    }

    @Test func playRefusesAnOpenAPIWithoutAToken() async throws {
        let r = try await onOwnThread {
            try run(["play", FlipboxProcess.repositoryRoot.appendingPathComponent("Channels/demo.yaml").path,
                     "--output", "headless", "--no-keys", "--http", "0.0.0.0:8999"])
        }
        #expect(r.status == 2)
        #expect(r.err.lowercased().contains("token"), "\(r.err)")
        #expect(!r.err.contains("playing"), "refused before starting: \(r.err)")
    }

    @Test func playRejectsMalformedOptions() async throws {
        for args in [["--size", "big"], ["--output", "hdmi"], ["--http", "nowhere"], ["--warm", "some"]] {
            let r = try await onOwnThread { try run(["play", "--no-keys"] + args) }
            #expect(r.status == 64, "\(args): \(r.status) \(r.err)")
            #expect(r.err.contains(args[0]), "\(args): \(r.err)")
        }
    }
}
