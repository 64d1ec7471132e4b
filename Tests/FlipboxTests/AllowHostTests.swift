import Foundation
import TestSupport
import Testing

/// `flipbox play --allow-host NAME` lets the control API answer to those names without a token;
/// other names get 403, and so do names the lineup's `allow-hosts` lists (a lineup sets no policy,
/// issue 32: a provider's header reopened the API to DNS rebinding from its domain); a bad name
/// stops the box at start.
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

    @Test func theOptionAllowsNamesTheLineupDoesNot() async throws {
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
        for host in ["tv.lan:\(box.port)", "192.168.7.7", "localhost:\(box.port)"] {
            #expect(status(host: host).status == 200, "Host: \(host)")
        }
        for host in ["evil.example", "flipbox.home", "tv.example"] {
            let refused = status(host: "\(host):\(box.port)")
            #expect(refused.status == 403, "Host: \(host)")
            #expect(refused.body.contains("--allow-host \(host)"), "\(refused.body)")
        }
        #expect(box.logText.contains("settings.allow-hosts is ignored"), "the lineup's setting is warned about: \(box.logText.suffix(800))")
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
