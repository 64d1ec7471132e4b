@testable import FlipboxCore
import Testing

/// `PlayoutLateness`: the sound's median lateness less the picture's, and what it keeps.
@Suite struct PlayoutLatenessTests {
    @Test func theSoundBehindItsPictureIsTheDifferenceOfTheMedians() throws {
        var played = PlayoutLateness()
        #expect(played.soundBehindPicture == nil, "nothing left the decoder")
        // Pictures 1-5 ms late, one 300 ms late (a decoder built for the flip); sound 80-84 ms.
        for ms in [1, 2, 3, 300, 4, 5] { played.note(Int64(ms) * 1_000_000, video: true) }
        #expect(played.soundBehindPicture == nil, "no sound yet")
        for ms in [80, 81, 82, 83, 84] { played.note(Int64(ms) * 1_000_000, video: false) }
        #expect(played.video == [1, 2, 3, 300, 4, 5])
        let behind = try #require(played.soundBehindPicture)
        #expect(abs(behind - (82 - 4)) < 0.001, "medians: 82 ms of sound, 4 ms of pictures (the upper middle of six): \(behind)")
    }

    @Test func onlyTheFirstAreKept() {
        var played = PlayoutLateness()
        for i in 0..<(PlayoutLateness.kept + 10) { played.note(Int64(i) * 1_000_000, video: false) }
        #expect(played.audio.count == PlayoutLateness.kept)
        #expect(played.audio.last == Double(PlayoutLateness.kept - 1))
    }
}
