import Foundation
import Testing
@testable import Recordings

@Suite struct RecordingFileNameTests {
    let programme = ProgrammeData(title: "Drama", subTitle: "The Start", episodeXMLTVNS: "0.1.",
                                  start: at("2026-11-27T20:00:00Z"), stop: at("2026-11-27T21:00:00Z"))

    @Test func namesForPeopleAndMediaServersInTheBoxsZone() {
        #expect(RecordingFileName.path(for: programme, timeZone: utcZone) == "Drama/Drama - S01E02 - The Start (2026-11-27 2000).ts")
        let paris = TimeZone(identifier: "Europe/Paris")!
        #expect(RecordingFileName.path(for: programme, timeZone: paris) == "Drama/Drama - S01E02 - The Start (2026-11-27 2100).ts")
        var bare = programme
        bare.subTitle = nil
        bare.episodeXMLTVNS = nil
        #expect(RecordingFileName.path(for: bare, timeZone: utcZone, fileExtension: "mkv") == "Drama/Drama (2026-11-27 2000).mkv")
        #expect(RecordingFileName.sidecarPath(for: "Drama/Drama (2026-11-27 2000).ts") == "Drama/Drama (2026-11-27 2000).json")
    }

    @Test func collisionsGetANumber() {
        let first = RecordingFileName.path(for: programme, timeZone: utcZone)
        let second = RecordingFileName.path(for: programme, timeZone: utcZone, taken: [first.uppercased()])
        #expect(second == "Drama/Drama - S01E02 - The Start (2026-11-27 2000) (2).ts")
        let third = RecordingFileName.path(for: programme, timeZone: utcZone, taken: [first, second])
        #expect(third.hasSuffix("(2026-11-27 2000) (3).ts"))
    }

    @Test func hostileTitlesAreMadeSafe() {
        #expect(RecordingFileName.sanitised("../../etc/passwd", fallback: "x") == "-..-etc-passwd")
        #expect(RecordingFileName.sanitised("...hidden", fallback: "x") == "hidden")
        #expect(RecordingFileName.sanitised("a\u{0}b\nc\u{202E}d", fallback: "x") == "a b c d")
        #expect(RecordingFileName.sanitised(" \u{7} . ", fallback: "Recording") == "Recording")
        #expect(RecordingFileName.sanitised("What? \"Now\": <yes>", fallback: "x") == "What Now- yes")
        let long = String(repeating: "é", count: 300)
        let cut = RecordingFileName.sanitised(long, fallback: "x")
        #expect(cut.utf8.count <= RecordingFileName.componentBytes && cut.allSatisfy { $0 == "é" })
        var huge = programme
        huge.title = String(repeating: "日本", count: 200)
        huge.subTitle = String(repeating: "x", count: 1000)
        let path = RecordingFileName.path(for: huge, timeZone: utcZone)
        for component in path.split(separator: "/") { #expect(component.utf8.count <= 255) }
        #expect(path.hasSuffix("(2026-11-27 2000).ts"))
    }

    @Test func theSidecarCarriesTheGuideData() throws {
        var r = recording("a", "2026-11-27T20:00:00Z")
        r.programme = programme
        r.programme.description = "It begins."
        let data = try RecordingSidecar(r).encoded()
        let back = try RecordingSidecar.decoded(from: data)
        #expect(back.title == "Drama" && back.season == 1 && back.episode == 2 && back.description == "It begins.")
        #expect(back.start == at("2026-11-27T20:00:00Z") && back.channel == "1")
        #expect(String(decoding: data, as: UTF8.self).contains("\"start\" : \"2026-11-27T20:00:00Z\""))
    }
}
