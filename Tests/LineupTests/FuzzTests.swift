import Foundation
import TestSupport
import Testing
@testable import Lineup

/// Feeds garbage and damaged lineups to the loader: it must never trap, and it
/// must return either a lineup or at least one error, never both or neither.
@Suite struct FuzzTests {
    typealias SeededRandom = SplitMix

    private func expectConsistent(_ report: LineupReport, _ what: @autoclosure () -> String) {
        let ok = (report.lineup != nil) == report.errors.isEmpty
        #expect(ok, "inconsistent report for \(what()): \(report.diagnostics)")
        #expect(report.diagnostics.allSatisfy { $0.line >= 0 })
    }

    private func corpus() throws -> [(String, Data)] {
        try [
            Fixtures.path("iptv-org-weather.m3u"),
            Fixtures.path("iptv-org-de-excerpt.m3u"),
            Fixtures.example("demo.yaml"),
            Fixtures.example("iptv.m3u"),
        ].map { ($0, try Data(contentsOf: URL(fileURLWithPath: $0))) }
    }

    @Test func randomBytes() {
        var random = SeededRandom(seed: 42)
        for round in 0..<300 {
            let count = Int.random(in: 0...600, using: &random)
            let bytes = Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &random) })
            for format in [LineupFormat.m3u, .yaml, nil] {
                expectConsistent(LineupLoader.check(data: bytes, file: "random.bin", format: format), "round \(round)")
            }
        }
    }

    @Test func randomPrintableText() {
        let alphabet = Array("#EXTINF:-1 tvg-id=\"x\",\n\r:-[]{}&?=/@.%'|>*!test://udp://http://\t abc019é中")
        var random = SeededRandom(seed: 7)
        for round in 0..<400 {
            let count = Int.random(in: 0...300, using: &random)
            let text = String((0..<count).compactMap { _ in alphabet.randomElement(using: &random) })
            for format in [LineupFormat.m3u, .yaml, nil] {
                expectConsistent(LineupLoader.check(text: text, file: "random.txt", format: format), "round \(round): \(text)")
            }
        }
    }

    @Test func truncatedCorpus() throws {
        for (name, data) in try corpus() {
            let format = LineupFormat(path: name)
            for length in stride(from: 0, through: data.count, by: 3) {
                expectConsistent(
                    LineupLoader.check(data: data.prefix(length), file: name, format: format),
                    "\(name) cut at \(length)")
            }
        }
    }

    @Test func mutatedCorpus() throws {
        let specials = Array("\"',=#:\n-[]{}&?/@ \t\u{0}".utf8) + [0xC3, 0xFF]
        var random = SeededRandom(seed: 2024)
        for (name, data) in try corpus() {
            let format = LineupFormat(path: name)
            for round in 0..<150 {
                var bytes = [UInt8](data)
                for _ in 0..<Int.random(in: 1...6, using: &random) where !bytes.isEmpty {
                    let at = Int.random(in: 0..<bytes.count, using: &random)
                    let byte = specials.randomElement(using: &random) ?? 0
                    switch Int.random(in: 0...2, using: &random) {
                    case 0: bytes[at] = byte
                    case 1: bytes.insert(byte, at: at)
                    default: bytes.remove(at: at)
                    }
                }
                expectConsistent(LineupLoader.check(data: Data(bytes), file: name, format: format), "\(name) round \(round)")
            }
        }
    }

    @Test func pathologicalInputs() {
        let cases: [(String, LineupFormat?)] = [
            (String(repeating: "[", count: 5000), .yaml),
            (String(repeating: "- ", count: 3000) + "x", .yaml),
            ("channels:\n" + String(repeating: "  - {name: A, source: test://smpte}\n", count: 2000), .yaml),
            ("a: &a [*a]", .yaml),
            ("a: *missing", .yaml),
            ("!!binary ====", .yaml),
            ("%YAML 9.9\n---\na: b", .yaml),
            (String(repeating: "#EXTINF:-1 a=\"", count: 2000), .m3u),
            ("#EXTINF:" + String(repeating: "=", count: 10000), .m3u),
            ("#EXTINF:-1 tvg-chno=\"99999999999999999999999\",A\nhttp://x/a", .m3u),
            ("#EXTINF:-1 tvg-chno=\"9.99999999999999999999\",A\nhttp://x/a", .m3u),
            ("\u{FEFF}", nil),
            ("\r\r\r\n\n", nil),
            ("test://", .m3u),
            ("://", .m3u),
            ("udp://[::1", .m3u),
            ("http://[zz]:99999999999/x", .m3u),
        ]
        for (text, format) in cases {
            expectConsistent(LineupLoader.check(text: text, file: "edge", format: format), String(text.prefix(40)))
        }
    }
}
