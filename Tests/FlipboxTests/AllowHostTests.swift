import Foundation
import TestSupport
import Testing

/// `flipbox play --allow-host NAME` and the lineup's `allow-hosts` let the control API answer to
/// those names without a token; other names get 403, a bad name stops the box at start.
@Suite struct AllowHostTests {
    func lineup(allowHosts: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-allow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("lineup.yaml")
        try """
            settings:
              allow-hosts: \(allowHosts)
            channels:
              - number: 1
                name: Red
                source: test://color/ff0000?size=160x90&fps=15&gop=15
            """.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test func optionAndLineupSettingAllowNamesOthersAreRefused() async throws {
        try await offPool { try self.checkNames() }
    }

    func checkNames() throws {
        let box = try FlipboxProcess(arguments: [try lineup(allowHosts: "flipbox.home, tv.example").path, "--size", "320x180",
                                                 "--allow-host", "tv.lan", "--allow-host", "192.168.7.7"], port: freePort())
        defer { box.stop() }
        #expect(box.waitForStatus(seconds: 30) { _ in true }, "the box never answered: \(box.logText.suffix(800))")
        func status(host: String) -> (status: Int, body: String) {
            let r = curl(["-s", "-m", "10", "-H", "Host: \(host)", "-o", "-", "-w", "\n%{http_code}", "http://127.0.0.1:\(box.port)/api/v1/status"])
            return (r.status, String(decoding: r.body, as: UTF8.self))
        }
        for host in ["tv.lan:\(box.port)", "192.168.7.7", "flipbox.home", "tv.example:80", "localhost:\(box.port)"] {
            #expect(status(host: host).status == 200, "Host: \(host)")
        }
        let refused = status(host: "evil.example:\(box.port)")
        #expect(refused.status == 403)
        #expect(refused.body.contains("--allow-host evil.example"), "\(refused.body)")
    }

    @Test func aBadNameStopsTheBoxWithAMessage() async throws {
        let path = try lineup(allowHosts: "tv.lan").path
        let r = try await offPool {
            try CommandLineTests().run(["play", path, "--output", "headless", "--no-keys", "--http", "127.0.0.1:0",
                                        "--allow-host", "http://tv.lan:8642/"])
        }
        #expect(r.status == 2)
        #expect(r.err.contains("'http://tv.lan:8642/' is not a host name to allow"), "\(r.err)")
    }
}
