import Foundation
import Testing
@testable import Lineup

@Suite struct M3UParserTests {
    @Test func headerGuideURLsAndSettings() throws {
        let report = checkM3U("""
            #EXTM3U url-tvg="http://a/guide.xml,http://b/guide.xml" x-tvg-url="http://c/g.xml.gz" refresh="3600" empty=""
            #EXTINF:-1,One
            http://example.com/one.ts
            """)
        let lineup = try report.get()
        #expect(lineup.guideURLs == ["http://a/guide.xml", "http://b/guide.xml", "http://c/g.xml.gz"])
        #expect(lineup.settings.written == ["refresh": "3600"])
        #expect(lineup.settingOrigin("refresh", path: "tv.m3u") == "tv.m3u:1: settings.refresh")
    }

    @Test func unquotedHeaderValueMayHoldCommas() throws {
        let lineup = try LineupLoader.parse(text: "#EXTM3U url-tvg=http://a/x.xml,http://b/y.xml\nhttp://h/s.ts", format: .m3u)
        #expect(lineup.guideURLs == ["http://a/x.xml", "http://b/y.xml"])
    }

    @Test func extinfAttributes() throws {
        let report = checkM3U("""
            #EXTM3U
            #EXTINF:-1 tvg-id="das.erste" tvg-name="Das Erste HD" tvg-logo="https://x.example/ard.png" tvg-chno="7" group-title="News,Public" tvg-language="German" tvg-country="DE" catchup="default" catchup-days="7" catchup-source="?utc={utc}",Das Erste, HD
            https://example.com/ard.m3u8
            """)
        let channel = try #require(try report.get().channels.first)
        #expect(channel.name == "Das Erste, HD")
        #expect(channel.id == "das.erste")
        #expect(channel.guideID == "das.erste")
        #expect(channel.number == ChannelNumber(7))
        #expect(channel.group == "News,Public")
        #expect(channel.language == "German")
        #expect(channel.country == "DE")
        #expect(channel.logo == .remote(URL(string: "https://x.example/ard.png")!))
        #expect(channel.sources == ["https://example.com/ard.m3u8"])
        #expect(channel.attributes["catchup"] == "default")
        #expect(channel.attributes["catchup-days"] == "7")
        #expect(channel.attributes["catchup-source"] == "?utc={utc}")
        #expect(channel.attributes["tvg-name"] == "Das Erste HD")
        #expect(channel.location == SourceLocation(file: "/lineups/test.m3u", line: 2))
        #expect(report.diagnostics.isEmpty)
    }

    @Test func emptyAttributesCountAsAbsent() throws {
        let lineup = try LineupLoader.parse(text: """
            #EXTINF:-1 tvg-id="" tvg-name="" tvg-logo="" tvg-chno="" group-title="",Plain
            http://example.com/a.ts
            """, format: .m3u)
        let channel = try #require(lineup.channels.first)
        #expect(channel.id == "plain")
        #expect(channel.guideID == nil)
        #expect(channel.logo == nil)
        #expect(channel.group == nil)
        #expect(channel.number == ChannelNumber(1))
        #expect(channel.attributes.isEmpty)
    }

    @Test func nameFallsBackToTvgNameThenHost() throws {
        let lineup = try LineupLoader.parse(text: """
            #EXTINF:-1 tvg-name="From TVG",
            http://a.example/1.ts
            #EXTINF:-1 tvg-id="x",
            http://b.example:8080/2.ts
            http://c.example/bare.ts
            """, format: .m3u)
        #expect(lineup.channels.map(\.name) == ["From TVG", "b.example", "c.example"])
    }

    @Test func toleratesCRLFBOMBlankLinesUnknownDirectivesAndNoHeader() throws {
        let text = "\u{FEFF}#EXTINF:-1 tvg-id=one group-title=News,One\r\n\r\n#PLAYLIST:Mine\r\n# a comment\r\n#EXT-X-SOMETHING:1\r\nhttp://example.com/one.ts\r\n\r\n#EXTINF:0,Two\rhttp://example.com/two.ts\r\n"
        let report = LineupLoader.check(data: Data(text.utf8), file: "crlf.m3u", format: nil)
        let lineup = try report.get()
        #expect(lineup.channels.map(\.name) == ["One", "Two"])
        #expect(lineup.channels[0].id == "one")
        #expect(lineup.channels[0].group == "News")
        #expect(lineup.channels[0].sources == ["http://example.com/one.ts"])
        #expect(lineup.channels[1].location.line == 8)
        #expect(report.diagnostics.isEmpty)
    }

    @Test func optionsBelongToTheFollowingChannel() throws {
        let lineup = try LineupLoader.parse(text: """
            #EXTM3U
            #KODIPROP:inputstream=inputstream.adaptive
            #EXTINF:-1,One
            #EXTVLCOPT:http-user-agent=Mozilla/5.0 (X11)
            #EXTVLCOPT:http-referrer=https://ref.example/a=b
            #EXTVLCOPT:no-video
            http://example.com/one.ts
            #EXTINF:-1,Two
            http://example.com/two.ts
            """, format: .m3u)
        #expect(lineup.channels[0].options == [
            ChannelOption(kind: .kodi, key: "inputstream", value: "inputstream.adaptive"),
            ChannelOption(kind: .vlc, key: "http-user-agent", value: "Mozilla/5.0 (X11)"),
            ChannelOption(kind: .vlc, key: "http-referrer", value: "https://ref.example/a=b"),
            ChannelOption(kind: .vlc, key: "no-video", value: ""),
        ])
        #expect(lineup.channels[1].options.isEmpty)
    }

    @Test func extgrpIsTheGroupWhenGroupTitleIsAbsent() throws {
        let lineup = try LineupLoader.parse(text: """
            #EXTINF:-1,One
            #EXTGRP:Sports
            http://example.com/1.ts
            #EXTINF:-1 group-title="News",Two
            #EXTGRP:Sports
            http://example.com/2.ts
            """, format: .m3u)
        #expect(lineup.channels.map(\.group) == ["Sports", "News"])
    }

    @Test func radioAndUnquotedAndSingleQuotedValues() throws {
        let lineup = try LineupLoader.parse(text: """
            #EXTINF:-1 radio="true" tvg-id=radio.one tvg-chno='12',Radio One
            http://example.com/r1.mp3
            #EXTINF:-1 radio="false",Not Radio
            http://example.com/tv.ts
            """, format: .m3u)
        #expect(lineup.channels[0].isRadio)
        #expect(lineup.channels[0].id == "radio.one")
        #expect(lineup.channels[0].number == ChannelNumber(12))
        #expect(!lineup.channels[1].isRadio)
    }

    @Test func duplicateIDsGetSuffixes() throws {
        let lineup = try LineupLoader.parse(text: """
            #EXTINF:-1 tvg-id="x",A
            http://example.com/1.ts
            #EXTINF:-1 tvg-id="x",B
            http://example.com/2.ts
            #EXTINF:-1 tvg-id="x",C
            http://example.com/3.ts
            #EXTINF:-1,x-2
            http://example.com/4.ts
            """, format: .m3u)
        #expect(lineup.channels.map(\.id) == ["x", "x-2", "x-3", "x-2-2"])
        #expect(lineup.channels.map(\.guideID) == ["x", "x", "x", nil])
    }

    @Test func missingURLAtEndOfFile() {
        let report = checkM3U("#EXTM3U\n#EXTINF:-1,One\nhttp://example.com/1.ts\n#EXTINF:-1,Two\n\n")
        #expect(report.lineup == nil)
        #expect(report.errorLines == ["4: #EXTINF has no URL after it (the file ends first)"])
    }

    @Test func extinfFollowedByExtinf() {
        let report = checkM3U("#EXTINF:-1,One\n#EXTINF:-1,Two\nhttp://example.com/2.ts\n")
        #expect(report.errorLines == ["1: #EXTINF has no URL: line 2 starts another #EXTINF"])
    }

    @Test func badSchemesAndURLs() {
        let report = checkM3U("""
            #EXTINF:-1,A
            rtmp://example.com/live
            #EXTINF:-1,B
            example
            #EXTINF:-1,C
            http://exa mple.com/x.ts
            #EXTINF:-1,D
            udp://239.0.0.1
            #EXTINF:-1,E
            http:///nohost.ts
            """)
        #expect(report.errors.map(\.line) == [2, 4, 6, 8, 10])
        #expect(report.errors[0].message.contains("unsupported source scheme 'rtmp'"))
        #expect(report.errors[1].message.contains("has no scheme"))
        #expect(report.errors[2].message.contains("not a valid URL"))
        #expect(report.errors[3].message.contains("has no port"))
        #expect(report.errors[4].message.contains("has no host"))
    }

    @Test func malformedQuotes() {
        let report = checkM3U("#EXTINF:-1 tvg-id=\"one group-title=\"News\",One\nhttp://example.com/1.ts\n#EXTINF:-1 tvg-name=\"Two,Two\nhttp://example.com/2.ts")
        #expect(report.errors.map(\.line) == [3])
        #expect(report.errors.first?.message == "malformed #EXTINF: attribute 'tvg-name' has an opening \" but no closing \"")
    }

    @Test func badChannelNumber() {
        let report = checkM3U("#EXTINF:-1 tvg-chno=\"seven\",A\nhttp://example.com/1.ts\n#EXTINF:-1 tvg-chno=\"-3\",B\nhttp://example.com/2.ts")
        #expect(report.errorLines == [
            "1: tvg-chno \"seven\" is not a channel number (write e.g. 7 or 9.1)",
            "3: tvg-chno \"-3\" is not a channel number (write e.g. 7 or 9.1)",
        ])
    }

    @Test func duplicateNumbersNameBothLines() {
        let report = checkM3U("""
            #EXTINF:-1 tvg-chno="5",Five
            http://example.com/5.ts
            #EXTINF:-1 tvg-chno="5",Also Five
            http://example.com/5b.ts
            """)
        #expect(report.errorLines == ["3: duplicate channel number 5: 'Also Five' on line 3 and 'Five' on line 1"])
    }

    @Test func duplicateNamesWarn() throws {
        let report = checkM3U("#EXTINF:-1,Same\nhttp://example.com/1.ts\n#EXTINF:-1,Same\nhttp://example.com/2.ts")
        _ = try report.get()
        #expect(report.warningLines == ["3: duplicate channel name 'Same' (also on line 1)"])
    }

    @Test func filePathSourcesResolveAgainstTheLineup() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("media/loop.ts", "x")
        let path = try directory.write("list.m3u", "#EXTINF:-1,Loop\nmedia/loop.ts\n#EXTINF:-1,Gone\n/nowhere/gone.ts\n")
        let report = LineupLoader.check(path: path)
        let lineup = try report.get()
        #expect(lineup.channels[0].sources == [URL(fileURLWithPath: directory.file("media/loop.ts")).absoluteString])
        #expect(lineup.channels[1].sources == ["file:///nowhere/gone.ts"])
        #expect(report.warningLines == ["4: source file not found: /nowhere/gone.ts"])
    }

    /// A channel name with a terminal escape is cleaned before it reaches a terminal or a log.
    @Test func controlCharactersInNamesAreLeftOutWithAWarning() throws {
        let text = "#EXTM3U\n#EXTINF:-1 group-title=\"News\u{07}\",\u{1B}[2J\u{1B}]0;owned\u{07}Evil\u{9B}31m\nhttp://h/s.ts\n"
        let report = LineupLoader.check(data: Data(text.utf8), file: "escape.m3u", format: nil)
        let channel = try #require(report.lineup?.channels.first)
        #expect(channel.name == "[2J]0;ownedEvil31m")
        #expect(channel.group == "News")
        #expect(!channel.name.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(report.diagnostics.contains { $0.message.contains("control characters") && $0.line == 2 })
    }
}
