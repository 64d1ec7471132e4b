import Testing
@testable import Recordings

@Suite struct EpisodeNumberTests {
    @Test func xmltvNSIsZeroBased() {
        #expect(EpisodeNumber(xmltvNS: "0.1.") == EpisodeNumber(season: 1, episode: 2))
        #expect(EpisodeNumber(xmltvNS: "2 . 9 . 0/1") == EpisodeNumber(season: 3, episode: 10))
        #expect(EpisodeNumber(xmltvNS: "1/4.3/10.") == EpisodeNumber(season: 2, episode: 4), "totals ignored")
        #expect(EpisodeNumber(xmltvNS: ".4.") == EpisodeNumber(season: nil, episode: 5), "season unknown")
        #expect(EpisodeNumber(xmltvNS: "0..") == EpisodeNumber(season: 1, episode: nil), "episode unknown")
    }

    @Test func garbageIsNoNumber() {
        for text in ["", "..", "a.b.", "99999999999999999999999.1.", "-1.2.", "1.2.3.4", "0x10.1.", "99999.1."] {
            #expect(EpisodeNumber(xmltvNS: text) == nil, "\(text)")
        }
        for text in ["", "S", "SxE", "S01E", "S999999999E1", "Episode 3", "S01E02 extra"] {
            #expect(EpisodeNumber(onScreen: text) == nil, "\(text)")
        }
    }

    @Test func onScreenForms() {
        #expect(EpisodeNumber(onScreen: "S01E02") == EpisodeNumber(season: 1, episode: 2))
        #expect(EpisodeNumber(onScreen: "s3 e10") == EpisodeNumber(season: 3, episode: 10))
        #expect(EpisodeNumber(onScreen: "E7") == EpisodeNumber(season: nil, episode: 7))
        #expect(EpisodeNumber(onScreen: "2x05") == EpisodeNumber(season: 2, episode: 5))
    }

    @Test func xmltvNSComesFirstAndLabelsLeaveOutTheUnknown() {
        #expect(EpisodeNumber(xmltvNS: "0.1.", onScreen: "S09E09")?.label == "S01E02")
        #expect(EpisodeNumber(xmltvNS: "garbage", onScreen: "S09E09")?.label == "S09E09")
        #expect(EpisodeNumber(season: nil, episode: 12).label == "E12")
        #expect(EpisodeNumber(season: 4, episode: nil).label == "S04")
        #expect(EpisodeNumber(xmltvNS: nil, onScreen: nil) == nil)
    }
}
