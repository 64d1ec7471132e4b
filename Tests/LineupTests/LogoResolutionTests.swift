import Foundation
import Testing
@testable import Lineup

@Suite struct LogoResolutionTests {
    @Test func relativeAbsoluteRemoteAndFileURLs() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("logos/a.png", "")
        try LogoImageTests.onePixelPNG.write(to: URL(fileURLWithPath: directory.file("logos/a.png")))
        try directory.write("b.svg", "<svg/>")
        let lineupPath = try directory.write("sub/lineup.yaml", """
            channels:
              - {name: A, source: test://smpte, logo: ../logos/a.png}
              - {name: B, source: test://smpte, logo: \(directory.file("b.svg"))}
              - {name: C, source: test://smpte, logo: "https://img.example/c.png?size=big"}
              - {name: D, source: test://smpte, logo: "file://\(directory.file("b.svg"))"}
              - {name: E, source: test://smpte, logo: missing.png}
              - {name: F, source: test://smpte, logo: "ftp://img.example/f.png"}
              - {name: G, source: test://smpte, logo: ""}
            """)
        let report = LineupLoader.check(path: lineupPath)
        let lineup = try report.get()
        #expect(lineup.channels.map(\.logo) == [
            .file(directory.file("logos/a.png")),
            .file(directory.file("b.svg")),
            .remote(URL(string: "https://img.example/c.png?size=big")!),
            .file(directory.file("b.svg")),
            .file(directory.file("sub/missing.png")),
            nil,
            nil,
        ])
        #expect(report.warningLines == [
            "6: logo file not found: \(directory.file("sub/missing.png"))",
            "7: channel F: logo 'ftp://img.example/f.png' has an unsupported scheme (use http://, https://, file:// or a path); the channel has no logo",
        ])
    }

    /// A lineup that names the process's environment, a link to it, or any file that is no
    /// picture as a logo: the channel loads without it, and the lineup is told which and why
    /// (issue 32: the head-end served `/proc/self/environ`, the token in it, at `/logos/`).
    @Test func systemFilesAndFilesThatAreNoPicturesAreNoLogos() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("settings.png", "FLIPBOX_TOKEN=s3cret")
        try FileManager.default.createSymbolicLink(atPath: directory.file("env.png"), withDestinationPath: "/proc/self/environ")
        let lineupPath = try directory.write("lineup.m3u", """
            #EXTM3U
            #EXTINF:-1 tvg-logo="/proc/self/environ",Environ
            test://smpte
            #EXTINF:-1 tvg-logo="env.png",Linked
            test://smpte
            #EXTINF:-1 tvg-logo="settings.png",Text
            test://smpte
            """)
        let report = LineupLoader.check(path: lineupPath)
        let lineup = try report.get()
        #expect(lineup.channels.map(\.logo) == [nil, nil, nil], "every channel loads, without its logo")
        let lines = report.warningLines
        #expect(lines.count == 3, "\(lines)")
        #expect(lines.first?.hasPrefix("2: channel Environ: logo /proc/self/environ: refused: it is under /proc") == true, "\(lines)")
        #expect(lines.dropFirst().first?.hasPrefix("4: channel Linked: logo \(directory.file("env.png")): refused: it is under /proc") == true, "\(lines)")
        #expect(lines.last?.hasPrefix("6: channel Text: logo \(directory.file("settings.png")): refused: it is not a picture") == true, "\(lines)")
    }

    @Test func absolutePathNormalisation() {
        #expect(LogoResolution.absolutePath("a/./b/../c.png", baseDirectory: "/base/dir") == "/base/dir/a/c.png")
        #expect(LogoResolution.absolutePath("/x/../../y.png", baseDirectory: "/ignored") == "/y.png")
        #expect(LogoResolution.absolutePath("logo.png", baseDirectory: "/") == "/logo.png")
    }
}
