import Foundation
import Lineup
import Testing

/// Catch-up attributes as IPTV playlists write them, and the archive URLs they make.
@Suite struct CatchupSourceTests {
    /// 2026-11-27 20:15:00 UTC, a programme of 45 minutes, asked an hour after its start.
    let start = Date(timeIntervalSince1970: 1_795_810_500)
    var end: Date { start.addingTimeInterval(45 * 60) }
    var now: Date { start.addingTimeInterval(3600) }

    func source(_ attributes: [String: String]) throws -> CatchupSource {
        let read = try #require(CatchupSource.read(attributes), "no catch-up in \(attributes)")
        return try read.get()
    }

    @Test func eachModeMakesItsArchiveURL() throws {
        let byTemplate = try source(["catchup": "default", "catchup-source": "http://arc.example/ch1/{Y}/{m}/{d}/{H}{M}{S}.ts?from=${start}&to={utcend}&d={duration:60}&o={offset}&now={lutc}"])
        #expect(try byTemplate.url(channel: "http://live.example/ch1.ts", start: start, end: end, now: now)
                == "http://arc.example/ch1/2026/11/27/201500.ts?from=1795810500&to=1795813200&d=45&o=3600&now=1795814100")
        let formatted = try source(["catchup-source": "http://arc.example/{utc:Y-m-d:H-M}/{end:YmdHMS}"])
        #expect(formatted.mode == .default)
        #expect(try formatted.url(channel: "", start: start, end: end, now: now) == "http://arc.example/2026-11-27:20-15/20261127210000")

        let relative = try source(["catchup": "default", "catchup-source": "?utc={utc}"])
        #expect(try relative.url(channel: "https://example.com/ard.m3u8", start: start, end: end, now: now)
                == "https://example.com/ard.m3u8?utc=1795810500", "a relative template is added to the channel's URL")
        let appended = try source(["catchup": "append", "catchup-source": "?utc={utc}&lutc={lutc}"])
        #expect(try appended.url(channel: "http://live.example/ch1.m3u8", start: start, end: end, now: now)
                == "http://live.example/ch1.m3u8?utc=1795810500&lutc=1795814100")

        let shifted = try source(["catchup": "shift"])
        #expect(try shifted.url(channel: "http://live.example/ch1.m3u8?token=a", start: start, end: end, now: now)
                == "http://live.example/ch1.m3u8?token=a&utc=1795810500&lutc=1795814100")

        let flussonic = try source(["catchup": "fs"])
        #expect(try flussonic.url(channel: "http://fl.example/news/index.m3u8?token=t", start: start, end: end, now: now)
                == "http://fl.example/news/index-1795810500-2700.m3u8?token=t")
        #expect(try flussonic.url(channel: "http://fl.example/news/mpegts", start: start, end: end, now: now)
                == "http://fl.example/news/timeshift_abs-1795810500.ts")

        let xtream = try source(["catchup": "xc", "catchup-days": "7"])
        #expect(try xtream.url(channel: "http://panel.example:8080/live/viewer/pw/123.ts", start: start, end: end, now: now)
                == "http://panel.example:8080/timeshift/viewer/pw/45/2026-11-27:20-15/123.ts")
        #expect(throws: CatchupSource.Problem.self) {
            try xtream.url(channel: "http://panel.example/some/other/path/x.ts", start: start, end: end, now: now)
        }
    }

    @Test func theArchiveReachesBackItsDaysAndTheCorrectionMovesItsDates() throws {
        let week = try source(["catchup": "xc", "catchup-days": "7"])
        #expect(week.covers(start: start, now: now))
        #expect(week.covers(start: start, now: start.addingTimeInterval(7 * 86_400)))
        #expect(!week.covers(start: start, now: start.addingTimeInterval(7 * 86_400 + 1)))
        #expect(!week.covers(start: now.addingTimeInterval(60), now: now), "a programme to come is not in the archive")
        let local = try source(["catchup": "xc", "catchup-correction": "+1"])
        #expect(try local.url(channel: "http://p.example/live/u/p/9.ts", start: start, end: end, now: now)
                == "http://p.example/timeshift/u/p/45/2026-11-27:21-15/9.ts")
    }

    @Test func badAttributesAreSaidAndTheChannelHasNoCatchup() throws {
        let problems: [[String: String]: String] = [
            ["catchup": "rewind"]: "no catch-up mode",
            ["catchup": "default"]: "needs a catchup-source",
            ["catchup-source": "http://a.example/{start}/{foo}"]: "unknown placeholder {foo}",
            ["catchup-source": "http://a.example/{utc"]: "without its '}'",
            ["catchup-source": "http://a.example/{duration:0}"]: "whole number of seconds",
            ["catchup-source": "http://a.example/{utc:Q}"]: "unknown placeholder {utc:Q}",
            ["catchup-source": "ftp://a.example/{utc}"]: "not an http(s) URL",
            ["catchup": "xc", "catchup-days": "99999"]: "from 0 to 365",
            ["catchup": "xc", "catchup-correction": "nan"]: "from -24 to 24",
        ]
        for (attributes, expected) in problems {
            guard case .failure(let problem)? = CatchupSource.read(attributes) else {
                Issue.record("\(attributes) was taken")
                continue
            }
            #expect(problem.description.contains(expected), "\(attributes): \(problem)")
        }
        #expect(CatchupSource.read(["tvg-id": "x"]) == nil)
    }

    @Test func lineupCheckSaysWhereAndTheHeaderGivesDefaults() throws {
        let text = """
            #EXTM3U catchup="shift" catchup-days="3"
            #EXTINF:-1 tvg-chno="1",One
            http://live.example/one.m3u8
            #EXTINF:-1 tvg-chno="2" catchup="default" catchup-source="http://arc.example/{bogus}",Two
            http://live.example/two.m3u8
            #EXTINF:-1 tvg-chno="3" catchup="xc" catchup-days="7",Three
            http://panel.example/live/u/p/3.ts
            """
        let report = LineupLoader.check(text: text, file: "provider.m3u", format: .m3u)
        let lineup = try report.get()
        #expect(report.warnings.contains { "\($0)".hasPrefix("provider.m3u:4:") && "\($0)".contains("unknown placeholder {bogus}") },
                "\(report.diagnostics)")
        #expect(!report.diagnostics.contains { "\($0)".contains("unknown setting") })
        #expect(lineup.channels[0].catchup == CatchupSource(mode: .shift, days: 3), "the header's catch-up is every channel's")
        #expect(lineup.channels[1].catchup == nil)
        #expect(lineup.channels[2].catchup == CatchupSource(mode: .xc, days: 7))
    }
}
