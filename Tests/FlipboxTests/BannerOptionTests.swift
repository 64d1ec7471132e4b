import Foundation
import TestSupport
import Testing

/// `--banner-seconds` and the lineup's `banner-seconds` on bad input: a clear message, exit status 2.
@Suite struct BannerOptionTests {
    func run(_ arguments: [String]) throws -> (status: Int32, err: String) {
        let p = Process()
        p.executableURL = FlipboxProcess.executable
        p.arguments = arguments
        let err = Pipe()
        p.standardOutput = FileHandle.nullDevice
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: e, as: UTF8.self))
    }

    @Test func aNegativeBannerTimeIsRefused() async throws {
        let r = try await offPool { try run(["play", "--output", "headless", "--banner-seconds=-1", "--no-keys",
                                                 FlipboxProcess.repositoryRoot.appendingPathComponent("Channels/demo.yaml").path]) }
        #expect(r.status == 64 || r.status == 2, "status \(r.status)")
        #expect(r.err.contains("--banner-seconds must be from 0"), "\(r.err)")
    }

    @Test func aLineupBannerTimeThatIsNoNumberIsRefused() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-banner-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("lineup.yaml")
        try """
            settings:
              banner-seconds: soon
            channels:
              - name: Red
                source: test://color/ff0000?size=160x90
            """.write(to: file, atomically: true, encoding: .utf8)
        let r = try await offPool { try run(["play", "--output", "headless", "--no-keys", file.path]) }
        #expect(r.status == 64 || r.status == 2, "status \(r.status)")
        #expect(r.err.contains("settings.banner-seconds 'soon' is not a number of seconds"), "\(r.err)")
    }
}
