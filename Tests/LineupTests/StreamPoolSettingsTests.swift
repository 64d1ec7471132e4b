import Foundation
import Testing
@testable import Lineup

/// Pools of rationed streams as a lineup names them: YAML `pools:` and `max-streams`, the M3U
/// header's `max-streams`.
@Suite struct StreamPoolSettingsTests {
    @Test func yamlPoolsAreReadWithTheirLines() throws {
        let report = checkYAML("""
            settings:
              max-streams: 3
            pools:
              - name: HDHomeRun
                match: http://192.168.1.20:5004/
                streams: 4
              - {name: My IPTV, match: "http://provider.example/"}
            channels:
              - {number: 1, name: One, source: "http://192.168.1.20:5004/auto/v1"}
            """)
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics)")
        let lineup = try report.get()
        #expect(lineup.pools == [
            StreamPoolDeclaration(name: "HDHomeRun", match: "http://192.168.1.20:5004/", streams: 4, line: 4),
            StreamPoolDeclaration(name: "My IPTV", match: "http://provider.example/", streams: nil, line: 7),
        ])
        #expect(lineup.settings.maxStreams == 3)
    }

    @Test func theM3UHeaderGivesEveryHostItsLimit() throws {
        let lineup = try checkM3U("""
            #EXTM3U max-streams="2"
            #EXTINF:-1 tvg-id="a",A
            http://provider.example/live/u/p/1.ts
            """).get()
        #expect(lineup.settings.maxStreams == 2)
        #expect(lineup.pools.isEmpty)
    }

    @Test func aBadPoolIsAnErrorOnItsLine() {
        let report = checkYAML("""
            pools:
              - name: Good
                match: http://192.168.1.19/
              - name: Tuner
                match: 192.168.1.20
                streams: 4
              - name: Tuner2
                match: http://192.168.1.21/
                streams: 0
              - match: http://192.168.1.22/
              - name: Good
                match: http://192.168.1.23/
              - name: Extra
                match: http://192.168.1.24/
                tuners: 2
              - just text
            settings:
              max-streams: 99999
            channels:
              - {number: 1, name: One, source: "test://smpte"}
            """, file: "box.yaml")
        #expect(report.errorLines == [
            "4: pool 'Tuner' needs a `match`: the start of its source URLs, such as http://192.168.1.20:5004/",
            "9: pools.streams must be a number of streams from 1 to 1024, not '0'",
            "10: a pool needs a `name`",
            "11: pool 'Good' is named twice",
            "15: unknown pool key 'tuners' (known keys: name, match, streams, bandwidth)",
            "16: each pool is a mapping with name, match and streams; found \"just text\"",
            "18: settings.max-streams '99999' is not a number of streams from 1 to 1024",
        ], "\(report.errorLines)")
        #expect(report.lineup == nil)
    }
}
