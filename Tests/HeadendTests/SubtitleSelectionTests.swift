import GStreamer
@testable import Headend
import Testing

/// Which subtitles show and what a request picks: pure rules shared with the audio tracks.
@Suite struct SubtitleSelectionTests {
    static let tracks = [SubtitleTrack(index: 0, kind: .dvb, language: "deu"),
                         SubtitleTrack(index: 1, kind: .dvb, language: "eng"),
                         SubtitleTrack.closedCaptions]

    @Test func offUnlessChosenOrInAPreferredLanguage() {
        let t = Self.tracks
        #expect(SubtitleSelection.choose(t, remembered: nil, preferred: []) == nil)
        #expect(SubtitleSelection.choose(t, remembered: nil, preferred: ["fra", "eng"]) == 1)
        #expect(SubtitleSelection.choose(t, remembered: .off, preferred: ["eng"]) == nil)
        #expect(SubtitleSelection.choose(t, remembered: .track(.language("deu")), preferred: ["eng"]) == 0)
        #expect(SubtitleSelection.choose(t, remembered: .track(.track(SubtitleTrack.captionsIndex)), preferred: []) == SubtitleTrack.captionsIndex)
        // A remembered track the channel does not have falls back to the preferences.
        #expect(SubtitleSelection.choose(t, remembered: .track(.language("spa")), preferred: ["eng"]) == 1)
        #expect(SubtitleSelection.choose([], remembered: nil, preferred: ["deu"]) == nil)
    }

    @Test func nextGoesThroughTheTracksThenOff() {
        let t = Self.tracks
        #expect(SubtitleSelection.next(t, after: nil) == 0)
        #expect(SubtitleSelection.next(t, after: 0) == 1)
        #expect(SubtitleSelection.next(t, after: 1) == SubtitleTrack.captionsIndex)
        #expect(SubtitleSelection.next(t, after: SubtitleTrack.captionsIndex) == nil)
        #expect(SubtitleSelection.next([], after: nil) == nil)
    }

    @Test func requestsReadOffCaptionsNumbersAndLanguages() throws {
        #expect(SubtitleRequest("off") == .off)
        #expect(SubtitleRequest("None") == .off)
        #expect(SubtitleRequest("cc") == .captions)
        #expect(SubtitleRequest("CC1") == .captions)
        #expect(SubtitleRequest("next") == .pick(.next))
        #expect(SubtitleRequest("2") == .pick(.track(1)))
        #expect(SubtitleRequest("German") == .pick(.language("deu")))
        #expect(SubtitleRequest("0") == nil)
        #expect(SubtitleRequest("klingon subtitles") == nil)

        let t = Self.tracks
        #expect(try TrackSelection.target(.language("eng"), among: t, current: nil, channel: "1", kind: "subtitle track", speech: "subtitles")?.index == 1)
        #expect(try TrackSelection.target(.track(2), among: t, current: nil, channel: "1", kind: "subtitle track", speech: "subtitles")?.index == SubtitleTrack.captionsIndex)
        let missing = #expect(throws: TrackSelectionError.self) {
            try TrackSelection.target(.language("fra"), among: t, current: nil, channel: "1", kind: "subtitle track", speech: "subtitles")
        }
        #expect(missing?.code == .noSuchTrack && missing?.message == "channel 1 has no subtitles in French (fra); it has deu, eng", "\(String(describing: missing))")
        let beyond = #expect(throws: TrackSelectionError.self) {
            try TrackSelection.target(.track(5), among: t, current: nil, channel: "1", kind: "subtitle track", speech: "subtitles")
        }
        #expect(beyond?.message == "channel 1 has 3 subtitle tracks; there is no track 6")
    }
}
