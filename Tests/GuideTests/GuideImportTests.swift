import Foundation
import Lineup
import Testing
@testable import Guide

@Suite struct GuideImportTests {
    let channels: [(Int, String, String?)] = [(1, "Newsroom", "news.example"), (2, "Film and Co", nil), (3, "Kinowelt +1", nil)]

    @Test func importsEveryFieldWithOffsetsHonoured() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let guide = try Guide(stateDirectory: dir.path, lineup: lineup(channels, guides: [Fixtures.path("small.xml")]))
        let summary = try await guide.refresh()
        #expect(summary.channels == 3)
        #expect(summary.skipped == 2)
        #expect(summary.skipReasons.contains { $0.contains("line 51") && $0.contains("\"tomorrow\" is not an XMLTV time") })
        #expect(FileManager.default.fileExists(atPath: dir.file("guide.sqlite")))

        let (now, next) = guide.nowNext(channelID: "newsroom", at: utc("2026-11-22T19:30:00Z"))
        let news = try #require(now)
        #expect(news.title == "Evening News")           // the first title, whatever its language
        #expect(news.start == utc("2026-11-22T19:00:00Z"))
        #expect(news.stop == utc("2026-11-22T20:00:00Z"))
        #expect(news.subTitle == "Monday")
        #expect(news.description == "The day's news & weather.")
        #expect(news.categories == ["News", "Weather"])
        #expect(news.episodeXMLTVNS == "2 . 9 . 0/1")
        #expect(news.episodeOnScreen == "S03E10")
        #expect(news.icon == "http://img.example/news.jpg")
        #expect(news.ratings == [Rating(system: "MPAA", value: "PG"), Rating(system: "FSK", value: "6")])
        #expect(news.starRating == "3/5")
        #expect(next?.title == "Talk")
        #expect(next?.start == utc("2026-11-22T20:00:00Z"))     // 15:00 -0500
    }

    /// A description far longer than any screen shows is cut at the limit (at a character,
    /// never inside one), ends in "…", and the rest is neither held nor stored.
    @Test func anEnormousDescriptionIsCutAtTheLimit() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        // 'é' is two bytes: with one ASCII letter first, the limit falls inside an 'é'.
        let long = "x" + String(repeating: "é", count: 3 * XMLTVParser.textLimit)
        let short = "A night train across the Alps."
        let file = dir.file("long.xml")
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <tv>
              <channel id="news.example"><display-name>Newsroom</display-name></channel>
              <programme channel="news.example" start="20261122190000 +0000" stop="20261122200000 +0000"><title>Long</title><desc>\(long)</desc></programme>
              <programme channel="news.example" start="20261122200000 +0000" stop="20261122210000 +0000"><title>Short</title><desc>\(short)</desc></programme>
            </tv>
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let guide = try Guide(stateDirectory: dir.path, lineup: lineup(channels, guides: [file]))
        try await guide.refresh()
        let (now, next) = guide.nowNext(channelID: "newsroom", at: utc("2026-11-22T19:30:00Z"))
        let description = try #require(now?.description)
        #expect(description.hasSuffix("é…"))
        #expect(description.utf8.count == XMLTVParser.textLimit - 1 + "…".utf8.count, "8191 bytes (x and 4095 é) then the ellipsis")
        #expect(description.dropLast() == long.utf8.prefix(XMLTVParser.textLimit - 1).map { $0 }.withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) })
        #expect(next?.description == short, "the next text is whole again")
    }

    /// The reader takes its input in whatever pieces it comes: 7 bytes at a time, a text split
    /// by a comment, an entity, CDATA and a character across two pieces read as one whole text.
    @Test func aGuideReadSevenBytesAtATimeGivesTheSameProgrammes() throws {
        final class Trickle: ByteSource {
            var bytes: [UInt8]
            var at = 0
            init(_ text: String) { bytes = Array(text.utf8) }
            func read(into buffer: UnsafeMutableRawBufferPointer) throws(GuideError) -> Int {
                let count = min(7, buffer.count, bytes.count - at)
                for index in 0..<count { buffer[index] = bytes[at + index] }
                at += count
                return count
            }
        }
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <tv>
              <channel id="news.example"><display-name>Newsroom</display-name><icon src="http://x/a.png"/></channel>
              <programme channel="news.example" start="20261122190000 +0000" stop="20261122200000 +0000">
                <title lang="en">Fish &amp; Chips</title>
                <desc>Über <!-- a note --> a <![CDATA[<b>bold</b>]]> café</desc>
                <rating system="MPAA"><value>PG</value></rating>
              </programme>
              <programme channel="news.example" start="not a time"><title>Broken</title></programme>
            </tv>
            """
        var channels: [GuideChannel] = []
        var programmes: [XMLTVProgramme] = []
        let parser = XMLTVParser(name: "trickle.xml", onChannel: { channels.append($0) }, onProgramme: { programmes.append($0) })
        let outcome = try parser.parse(Trickle(xml))
        #expect(channels.map(\.id) == ["news.example"])
        #expect(channels.first?.displayNames == ["Newsroom"])
        #expect(channels.first?.icon == "http://x/a.png")
        #expect(programmes.map(\.title) == ["Fish & Chips"])
        #expect(programmes.first?.description == "Über  a <b>bold</b> café")
        #expect(programmes.first?.ratings == [Rating(system: "MPAA", value: "PG")])
        #expect(outcome.skipped == 1)
        #expect(outcome.skipReasons == ["line 9: start \"not a time\" is not an XMLTV time (YYYYMMDDhhmmss +hhmm)"])
    }

    /// The parser's own trim takes off what Foundation's `whitespacesAndNewlines` does, Unicode's
    /// spaces included, and gives a text with none back as it is.
    @Test func textsAreTrimmedAsFoundationTrimsThem() {
        for text in ["", "   ", "News", "  News  ", "\n\t News at ten \r\n", "\u{00A0}Café\u{3000}", "\u{2028}a b\u{2029}", "é\u{0301} "] {
            #expect(XMLTVParser.trimmed(text) == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(text.debugDescription)")
        }
    }

    /// Broken XML after good programmes: those before it are handed over, then the error names the line.
    @Test func brokenXMLNamesItsLineAfterTheProgrammesBeforeIt() throws {
        final class Whole: ByteSource {
            var bytes: [UInt8]
            init(_ text: String) { bytes = Array(text.utf8) }
            func read(into buffer: UnsafeMutableRawBufferPointer) throws(GuideError) -> Int {
                let count = min(buffer.count, bytes.count)
                for index in 0..<count { buffer[index] = bytes[index] }
                bytes.removeFirst(count)
                return count
            }
        }
        let xml = "<tv>\n<programme channel=\"a\" start=\"20261122190000 +0000\"><title>One</title></programme>\n<programme channel=\"a\" start=\"20261122200000 +0000\"><title>Two</titel></programme>\n</tv>\n"
        var titles: [String] = []
        let parser = XMLTVParser(name: "broken.xml", onChannel: { _ in }, onProgramme: { titles.append($0.title) })
        let error = #expect(throws: GuideError.self) { try parser.parse(Whole(xml)) }
        #expect(titles == ["One"])
        #expect(error?.description.hasPrefix("broken.xml:3: the XML is broken: ") == true, "\(String(describing: error))")
    }

    @Test func missingStopGapAndOverlap() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let guide = try Guide(stateDirectory: dir.path, lineup: lineup(channels, guides: [Fixtures.path("small.xml")]))
        try await guide.refresh()

        // No stop: Talk ends where Sports starts.
        let talk = guide.nowNext(channelID: "newsroom", at: utc("2026-11-22T20:59:59Z"))
        #expect(talk.now?.title == "Talk")
        #expect(talk.now?.stop == utc("2026-11-22T21:00:00Z"))
        // A gap: nothing now, Late News next.
        let gap = guide.nowNext(channelID: "newsroom", at: utc("2026-11-22T21:45:00Z"))
        #expect(gap.now == nil)
        #expect(gap.next?.title == "Late News")
        // No offset: UTC.
        #expect(guide.nowNext(channelID: "newsroom", at: utc("2026-11-22T22:00:00Z")).now?.title == "Late News")
        // The last programme ends at its stop; after it there is nothing.
        let after = guide.nowNext(channelID: "newsroom", at: utc("2026-11-23T01:00:00Z"))
        #expect(after.now == nil && after.next == nil)

        // Overlap: the film is cut when the special starts; after the special, nothing (its old end is gone).
        #expect(guide.nowNext(channelID: "film-and-co", at: utc("2026-11-22T20:29:00Z")).now?.title == "Long Film")
        let special = guide.nowNext(channelID: "film-and-co", at: utc("2026-11-22T20:30:00Z"))
        #expect(special.now?.title == "Special")
        #expect(guide.nowNext(channelID: "film-and-co", at: utc("2026-11-22T21:30:00Z")).now == nil)

        let range = try guide.programmes(channelIDs: ["newsroom", "film-and-co", "kinowelt-+1"],
                                         from: utc("2026-11-22T19:30:00Z"), to: utc("2026-11-22T21:15:00Z"))
        #expect(range["newsroom"]?.map(\.title) == ["Evening News", "Talk", "Sports"])
        #expect(range["film-and-co"]?.map(\.title) == ["Long Film", "Special"])
        #expect(range["film-and-co"]?.first?.stop == utc("2026-11-22T20:30:00Z"))
        #expect(range["kinowelt-+1"]?.map(\.title) == ["Kurzfilm"])
    }

    @Test func matchesByIdThenByName() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let guide = try Guide(stateDirectory: dir.path, lineup: lineup(channels + [(4, "Unknown", nil), (5, "Kinowelt", nil)],
                                                                         guides: [Fixtures.path("small.xml")]))
        try await guide.refresh()
        let match = guide.match
        #expect(match.entries["newsroom"] == GuideMatch.Entry(guideChannel: "news.example", method: .id))
        #expect(match.entries["film-and-co"] == GuideMatch.Entry(guideChannel: "film.example", method: .name))   // "Film & Co"
        #expect(match.entries["kinowelt-+1"] == GuideMatch.Entry(guideChannel: "Kino.de", method: .name))      // "Kinowélt +1 HD"
        #expect(match.unmatched(in: guide.lineup).map(\.name) == ["Unknown", "Kinowelt"])     // a +1 guide is not the base channel
    }

    @Test func theXMLTVProjectsTestFile() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let guide = try Guide(stateDirectory: dir.path, lineup: lineup([(1, "3SAT", "3sat.de"), (2, "Das Erste", nil)],
                                                                         guides: [Fixtures.path("xmltv-test.xml")]))
        let summary = try await guide.refresh()
        #expect(summary.programmes == 1 && summary.channels == 2)
        let now = try #require(guide.nowNext(channelID: "3sat", at: utc("2000-06-03T16:40:00Z")).now)
        #expect(now.title == "blah")
        #expect(now.description == "Blah Blah Blah.")
        #expect(now.start == utc("2000-06-03T16:33:00Z"))
        #expect(now.stop == utc("2000-06-03T17:33:00Z"))    // no stop and no next: an hour
        #expect(now.ratings == [Rating(system: "MPAA", value: "PG")])
        #expect(now.starRating == "3/3")
        #expect(now.icon == nil)                            // stars.png belongs to the star rating
        #expect(now.episodeXMLTVNS == "2 . 9 . 0/1")
        #expect(guide.match.entries["das-erste"]?.guideChannel == "das-erste.de")   // its second display name
    }

    @Test func aDSTCrossingDay() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let guide = try Guide(stateDirectory: dir.path, lineup: lineup([(1, "Berlin", nil)], guides: [Fixtures.path("dst.xml")]))
        try await guide.refresh()
        // 02:30 CEST is 00:30 UTC, 02:30 CET is 01:30 UTC: the repeated local hour is two programmes.
        let first = guide.nowNext(channelID: "berlin", at: utc("2026-10-25T00:45:00Z"))
        #expect(first.now?.title == "First 02:30")
        #expect(first.now.map { $0.stop.timeIntervalSince($0.start) } == 3600)
        #expect(first.next?.title == "Second 02:30")
        #expect(first.next?.start == utc("2026-10-25T01:30:00Z"))
        #expect(guide.nowNext(channelID: "berlin", at: utc("2026-10-25T02:59:00Z")).now?.title == "Second 02:30")
    }

    @Test func aRestartHasTheGuideAtOnce() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let line = lineup(channels, guides: [Fixtures.path("small.xml")])
        do {
            let guide = try Guide(stateDirectory: dir.path, lineup: line)
            #expect(guide.needsRefresh())
            try await guide.refresh()
        }
        let reopened = try Guide(stateDirectory: dir.path, lineup: line)
        #expect(!reopened.needsRefresh(now: Date()))
        #expect(reopened.needsRefresh(now: Date().addingTimeInterval(13 * 3600)))
        #expect(reopened.nowNext(channelID: "newsroom", at: utc("2026-11-22T19:30:00Z")).now?.title == "Evening News")
        let other = try Guide(stateDirectory: dir.path, lineup: lineup(channels, guides: [Fixtures.path("dst.xml")]))
        #expect(other.needsRefresh())    // other sources
    }

    @Test func severalGuidesAreMerged() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let guide = try Guide(stateDirectory: dir.path, lineup: lineup(channels + [(4, "Berlin", nil)],
                                                                         guides: [Fixtures.path("small.xml"), Fixtures.path("dst.xml")]))
        let summary = try await guide.refresh()
        #expect(summary.channels == 4)
        #expect(guide.nowNext(channelID: "berlin", at: utc("2026-10-25T00:45:00Z")).now?.title == "First 02:30")
        #expect(guide.nowNext(channelID: "newsroom", at: utc("2026-11-22T19:30:00Z")).now?.title == "Evening News")
    }

    @Test func declaredEncodingIsRead() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let guide = try Guide(stateDirectory: dir.path, lineup: lineup(channels, guides: [Fixtures.path("replacement.xml")]))
        try await guide.refresh()
        #expect(guide.nowNext(channelID: "newsroom", at: utc("2026-11-22T19:30:00Z")).now?.title == "Nachrichten für alle")
    }
}
