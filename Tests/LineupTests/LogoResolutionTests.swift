import Foundation
import Testing
@testable import Lineup

@Suite struct LogoResolutionTests {
    @Test func relativeAbsoluteRemoteAndFileURLs() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("logos/a.png", "png")
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
            "7: logo 'ftp://img.example/f.png' has an unsupported scheme (use http://, https://, file:// or a path); the channel has no logo",
        ])
    }

    @Test func absolutePathNormalisation() {
        #expect(LogoResolution.absolutePath("a/./b/../c.png", baseDirectory: "/base/dir") == "/base/dir/a/c.png")
        #expect(LogoResolution.absolutePath("/x/../../y.png", baseDirectory: "/ignored") == "/y.png")
        #expect(LogoResolution.absolutePath("logo.png", baseDirectory: "/") == "/logo.png")
    }
}
