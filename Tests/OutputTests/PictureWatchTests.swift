import Foundation
import Output
import Testing

/// The display watch with made-up times: gaps at the sink and runs of one unchanging picture.
@Suite struct PictureWatchTests {
    let t0 = ContinuousClock.now
    let wall0 = Date(timeIntervalSince1970: 1_800_000_000)
    func at(_ ms: Int) -> ContinuousClock.Instant { t0 + .milliseconds(ms) }
    func wall(_ ms: Int) -> Date { wall0.addingTimeInterval(Double(ms) / 1000) }

    @Test func gapsOverATenthOfASecondAreRecordedWithTheirTimeAndFeed() {
        var w = PictureWatch()
        w.picture(feed: 3, digest: 1, at: at(0), wall: wall(0))
        for ms in stride(from: 0, through: 400, by: 40) { w.frameShown(at: at(ms), wall: wall(ms)) }
        w.frameShown(at: at(650), wall: wall(650))
        w.frameShown(at: at(690), wall: wall(690))
        let r = w.reading(at: at(700))
        #expect(r.framesShown == 13)
        #expect(r.longestGap == .milliseconds(250))
        #expect(r.gapCount == 1)
        #expect(r.gaps == [PictureWatch.Gap(at: wall(650), length: .milliseconds(250), feed: 3)])
    }

    @Test func aPictureThatStopsChangingIsAStillRunUntilItChanges() {
        var w = PictureWatch()
        // Moving for a second: every frame differs, no run is long enough to be recorded.
        for i in 0..<25 { w.picture(feed: 1, digest: UInt64(i), at: at(i * 40), wall: wall(i * 40)) }
        #expect(w.reading(at: at(1000)).stills.isEmpty)
        // Then the same picture for 1.2 s (the decoder stopped; the output repeats its frame).
        w.picture(feed: 1, digest: 99, at: at(1000), wall: wall(1000))
        w.picture(feed: 1, digest: 99, at: at(1500), wall: wall(1500))
        let during = w.reading(at: at(2200))
        #expect(during.stills == [PictureWatch.StillRun(feed: 1, from: wall(1000), length: .milliseconds(1200), ongoing: true)])
        #expect(during.longestStill == .milliseconds(1200))
        w.picture(feed: 1, digest: 100, at: at(2200), wall: wall(2200))
        let after = w.reading(at: at(2300))
        #expect(after.stills == [PictureWatch.StillRun(feed: 1, from: wall(1000), length: .milliseconds(1200), ongoing: false)])
        #expect(after.longestStill == .milliseconds(1200))
    }

    @Test func aFlipOrACardEndsARun() {
        var w = PictureWatch()
        w.picture(feed: 1, digest: 7, at: at(0), wall: wall(0))
        // The same content on another feed is a new picture (a flip), not the same run.
        w.picture(feed: 2, digest: 7, at: at(800), wall: wall(800))
        w.noPicture(at: at(1100))
        w.picture(feed: 2, digest: 7, at: at(1200), wall: wall(1200))
        let r = w.reading(at: at(1300))
        #expect(r.stills.map(\.feed) == [1], "feed 2's runs were 300 and 100 ms")
        #expect(r.stills.first?.length == .milliseconds(800))
        #expect(r.longestStill == .milliseconds(800))
    }

    @Test func onlyTheRecentRecordsAreKeptButTheLongestIsNeverForgotten() {
        var w = PictureWatch()
        var ms = 0
        w.frameShown(at: at(ms), wall: wall(ms))
        for i in 0..<(PictureWatch.kept + 10) {
            ms += i == 0 ? 900 : 200
            w.frameShown(at: at(ms), wall: wall(ms))
        }
        let r = w.reading(at: at(ms))
        #expect(r.gaps.count == PictureWatch.kept)
        #expect(r.gapCount == PictureWatch.kept + 10)
        #expect(r.longestGap == .milliseconds(900))
        #expect(r.gaps.first?.length == .milliseconds(200), "the oldest (900 ms) gave way")
    }
}
