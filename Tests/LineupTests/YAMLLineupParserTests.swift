import Foundation
import Testing
@testable import Lineup

@Suite struct YAMLLineupParserTests {
    @Test func aGroupOfSettingsReadsAsDottedNames() throws {
        let report = checkYAML("""
            settings:
              warm: all
              parental:
                VCHIP: TV-PG
                unrated: lock
            channels:
              - {number: 1, name: One, source: "test://smpte"}
            """)
        #expect(try report.get().settings.written == ["warm": "all", "parental.VCHIP": "TV-PG", "parental.unrated": "lock"])
        // Errors about a setting's value name the line it was written on.
        #expect(try report.get().settingOrigin("parental.unrated", path: "box.yaml") == "box.yaml:5: settings.parental.unrated")
        #expect(try report.get().settingOrigin("warm", path: "box.yaml") == "box.yaml:2: settings.warm")
        #expect(try report.get().settingOrigin("absent", path: "box.yaml") == "box.yaml: settings.absent")
        let bad = checkYAML("""
            settings:
              parental:
                bad: [1, 2]
            channels:
              - {number: 1, name: One, source: "test://smpte"}
            """)
        #expect(bad.errorLines == ["3: setting 'parental.bad' must be a single value; found a list"])
    }

    @Test func fullChannel() throws {
        let report = checkYAML("""
            settings:
              warm: all
              banner-seconds: 3
            guide: http://example/guide.xml
            channels:
              - number: 1
                name: Red Test
                id: red
                source: test://color/ff0000?tone=440
                logo: https://logos.example/red.png
                group: Test
                rating: TV-G
                guide: red.example
                interstitial: default
                favourite: true
                hidden: false
                radio: false
                language: en
                country: US
                options: {buffer-ms: 500, deinterlace: yes}
            """)
        let lineup = try report.get()
        #expect(report.diagnostics.isEmpty)
        #expect(lineup.settings.written == ["warm": "all", "banner-seconds": "3"])
        #expect(lineup.guideURLs == ["http://example/guide.xml"])
        let channel = try #require(lineup.channels.first)
        #expect(channel.number == ChannelNumber(1))
        #expect(channel.name == "Red Test")
        #expect(channel.id == "red")
        #expect(channel.sources == ["test://color/ff0000?tone=440"])
        #expect(channel.logo == .remote(URL(string: "https://logos.example/red.png")!))
        #expect(channel.group == "Test")
        #expect(channel.contentRating == "TV-G")
        #expect(channel.guideID == "red.example")
        #expect(channel.interstitial == "default")
        #expect(channel.isFavourite)
        #expect(!channel.isHidden)
        #expect(!channel.isRadio)
        #expect(channel.language == "en")
        #expect(channel.country == "US")
        #expect(channel.options == [
            ChannelOption(kind: .native, key: "buffer-ms", value: "500"),
            ChannelOption(kind: .native, key: "deinterlace", value: "yes"),
        ])
        #expect(channel.location.line == 6)
    }

    @Test func numbersSourcesListAndGuideList() throws {
        let lineup = try LineupLoader.parse(text: """
            guide:
              - http://a/guide.xml
              - http://b/guide.xml
            channels:
              - {name: Sub, number: 9.1, sources: [udp://@239.0.0.1:1234, "http://backup.example/s.ts", test://smpte]}
              - {name: Next, source: test://ball}
              - {name: Quoted, number: "12", source: test://snow}
            """, format: .yaml)
        #expect(lineup.guideURLs == ["http://a/guide.xml", "http://b/guide.xml"])
        #expect(lineup.channels.map(\.number.description) == ["9.1", "10", "12"])
        #expect(lineup.channels[0].sources.count == 3)
        #expect(lineup.channels.map(\.id) == ["sub", "next", "quoted"])
    }

    @Test func unknownKeysAreErrorsWithTheirLine() {
        let report = checkYAML("""
            channels:
              - name: A
                source: test://smpte
                favourit: true
                colour: red
            sttings: {}
            """)
        #expect(report.errorLines == [
            "4: unknown channel key 'favourit'; did you mean 'favourite'?",
            "5: unknown channel key 'colour' (known keys: number, name, id, source, sources, logo, group, rating, guide, interstitial, favourite, favorite, hidden, radio, options, language, country, breaks, linear-breaks, multicast, catchup, catchup-days)",
            "6: unknown top-level key 'sttings'; did you mean 'settings'?",
        ])
    }

    @Test func syntaxErrorReportsYamsLine() {
        let report = checkYAML("channels:\n  - name: A\n    source: test://smpte\n  - name: [unclosed\n")
        #expect(report.lineup == nil)
        #expect(report.errors.count == 1)
        #expect(report.errors.first?.message.hasPrefix("YAML syntax error: ") == true)
        #expect((4...5).contains(report.errors.first?.line ?? 0))
    }

    @Test func duplicateKeyIsAnError() {
        let report = checkYAML("channels:\n  - name: A\n    name: B\n    source: test://smpte\n")
        #expect(report.errors.count == 1)
        #expect(report.errors.first?.message.contains("'name'") == true)
    }

    @Test func wrongTypes() {
        let report = checkYAML("""
            settings: [a, b]
            channels:
              - name: [A]
                source: {url: x}
                favourite: maybe
                number: [1]
                options: [a]
                sources: test://smpte
              - just a string
            """)
        #expect(report.errorLines == [
            "1: `settings` must be a mapping of names to values; found a list",
            "3: `name` must be text; found a list",
            "3: a channel has either `source:` or `sources:`, not both",
            "4: `source` must be text; found a mapping",
            "5: `favourite` must be true or false; found \"maybe\"",
            "6: `number` must be a number such as 7 or \"9.1\"; found a list",
            "7: `options` must be a mapping of option names to values; found a list",
            "8: `sources` must be a list of URLs (primary first, then backups); found \"test://smpte\"",
            "9: each channel must be a mapping (name:, source:, ...); found \"just a string\"",
        ])
    }

    @Test func missingNameAndSource() {
        let report = checkYAML("channels:\n  - id: lonely\n  - name: ''\n    source: ''\n")
        #expect(report.errorLines == [
            "2: channel has no `name`",
            "2: channel 'lonely' has no `source` (or `sources` list)",
            "3: `name` is empty",
            "4: the source URL is empty",
        ])
    }

    @Test func explicitDuplicateIDsAreErrors() {
        let report = checkYAML("""
            channels:
              - {name: A, id: same, source: test://smpte}
              - {name: B, id: same, source: test://ball}
            """)
        #expect(report.errorLines == ["3: duplicate channel id 'same' (also on line 2)"])
    }

    @Test func derivedIDsAvoidExplicitOnes() throws {
        let lineup = try LineupLoader.parse(text: """
            channels:
              - {name: Red, source: test://smpte}
              - {name: Other, id: red, source: test://ball}
            """, format: .yaml)
        #expect(lineup.channels.map(\.id) == ["red-2", "red"])
    }

    @Test func topLevelMustBeAMappingWithChannels() {
        #expect(checkYAML("- a\n- b\n").errorLines == [
            "1: a YAML lineup is a mapping with a `channels:` list at the top; found a list",
        ])
        #expect(checkYAML("settings: {a: b}\n").errorLines == ["1: the lineup has no `channels:` list (nor a source: `lineup: URL`, `lineup: hdhomerun://auto`, `xtream:`, `tvheadend:`)"])
        #expect(checkYAML("channels: 3\n").errorLines == [
            "1: `channels` must be a list of channels (items starting with `- `); found \"3\"",
        ])
        #expect(checkYAML("channels:\n").errorLines == ["0: the lineup has no channels"])
        #expect(checkYAML("").errorLines == ["0: the lineup has no channels"])
    }

    @Test func testURLErrorsCarryTheLine() {
        let report = checkYAML("channels:\n  - name: A\n    source: test://color/red\n")
        #expect(report.errorLines == [
            "3: test source 'test://color/red': the colour must be 6 hex digits (rrggbb), got 'red'",
        ])
    }

    @Test func booleansMayBeQuotedOrYesNo() throws {
        let lineup = try LineupLoader.parse(text: """
            channels:
              - {name: A, source: test://smpte, favourite: "true", hidden: yes, radio: Off}
            """, format: .yaml)
        let channel = try #require(lineup.channels.first)
        #expect(channel.isFavourite && channel.isHidden && !channel.isRadio)
    }

    @Test func anchorsAndAliasesWork() throws {
        let lineup = try LineupLoader.parse(text: """
            channels:
              - {name: A, source: &shared test://smpte, group: &g Demo}
              - {name: B, source: *shared, group: *g}
            """, format: .yaml)
        #expect(lineup.channels.map(\.group) == ["Demo", "Demo"])
    }
}

/// A channel's own multicast group (`multicast: 239.1.1.7:5000`), in YAML and M3U, with errors
/// that name the file and line.
@Suite struct MulticastDestinationTests {
    @Test func aChannelsGroupIsReadFromYAMLAndM3U() throws {
        let yaml = try checkYAML("""
            channels:
              - {number: 1, name: One, source: "test://smpte", multicast: "239.1.1.7:5000"}
              - {number: 2, name: Two, source: "test://smpte"}
            """).get()
        #expect(yaml.channels[0].multicast == (try MulticastDestination(parsing: "239.1.1.7:5000")))
        #expect(yaml.channels[0].multicast?.group == "239.1.1.7" && yaml.channels[0].multicast?.port == 5000)
        #expect(yaml.channels[1].multicast == nil)
        let m3u = try checkM3U("""
            #EXTM3U
            #EXTINF:-1 tvg-chno="3" multicast="239.2.0.1:1234",Three
            test://smpte
            """).get()
        #expect(m3u.channels[0].multicast?.description == "239.2.0.1:1234")
    }

    @Test func badGroupsAreErrorsAtTheirLine() {
        let report = checkYAML("""
            channels:
              - {number: 1, name: One, source: "test://smpte"}
              - number: 2
                name: Two
                source: test://smpte
                multicast: 192.168.1.7:5000
              - {number: 3, name: Three, source: "test://smpte", multicast: "239.1.1.7"}
              - {number: 4, name: Four, source: "test://smpte", multicast: "239.1.300.7:5000"}
            """)
        #expect(report.errorLines == [
            "6: multicast \"192.168.1.7:5000\": 192.168.1.7 is not a multicast group (224.0.0.0 to 239.255.255.255)",
            "7: multicast \"239.1.1.7\" is not a group and port such as 239.1.1.7:5000",
            "8: multicast \"239.1.300.7:5000\": '239.1.300.7' is not an IPv4 address",
        ], "\(report.errorLines)")
        #expect(report.errors.first?.description.hasPrefix("/lineups/test.yaml:6:") == true, "FILE:LINE: \(report.errors.first?.description ?? "")")
        let m3u = checkM3U("""
            #EXTM3U
            #EXTINF:-1 tvg-chno="3" multicast="239.2.0.1:99999",Three
            test://smpte
            """)
        #expect(m3u.errorLines == ["2: multicast \"239.2.0.1:99999\" is not a group and port such as 239.1.1.7:5000"], "\(m3u.errorLines)")
        #expect(throws: LineupValueError(.multicast, "multicast \"239.1.1.7\" is not a group and port such as 239.1.1.7:5000")) {
            try MulticastDestination(parsing: "239.1.1.7")
        }
    }
}
