import Foundation
import Output
import Testing

/// The leveller with made-up blocks of sound: every feed is brought to the target, silence is
/// never boosted, and the gain moves slowly once set.
@Suite struct LoudnessLevellerTests {
    /// A block of `seconds` of stereo sound at `db` dBFS (mean square), as the leveller sees it.
    func block(_ db: Double, seconds: Double = 0.1) -> (energy: Double, samples: Int, seconds: Double) {
        let samples = Int(seconds * 48000 * 2)
        return (pow(10, db / 10) * Double(samples), samples, seconds)
    }

    func gainDB(_ l: inout LoudnessLeveller, feed: UInt, _ b: (energy: Double, samples: Int, seconds: Double)) -> Double {
        20 * log10(l.gain(feed: feed, energy: b.energy, samples: b.samples, seconds: b.seconds))
    }

    @Test func aLoudAndAQuietChannelAreBothBroughtToTheTargetFromTheirFirstSound() {
        var l = LoudnessLeveller()
        let loud = gainDB(&l, feed: 1, block(-13))
        let quiet = gainDB(&l, feed: 2, block(-33))
        #expect(abs(loud - -10) < 0.01)
        #expect(abs(quiet - 10) < 0.01)
    }

    @Test func theGainStaysWithinItsRange() {
        var l = LoudnessLeveller()
        #expect(abs(gainDB(&l, feed: 1, block(-50)) - LoudnessLeveller.range) < 0.01, "a very quiet channel is raised 15 dB, no more")
        #expect(abs(gainDB(&l, feed: 2, block(0)) + LoudnessLeveller.range) < 0.01)
    }

    @Test func silenceIsNeverBoosted() {
        var l = LoudnessLeveller()
        #expect(gainDB(&l, feed: 1, block(-80)) == 0, "no level before the first sound")
        let set = gainDB(&l, feed: 1, block(-23))
        for _ in 0..<50 { _ = gainDB(&l, feed: 1, block(-80)) }
        #expect(abs(gainDB(&l, feed: 1, block(-80)) - set) < 0.01, "a pause keeps the gain")
    }

    /// A loud channel whose first block is mostly silence (its sound starts inside it): the
    /// gain is not set by that block. It is right within a fifth of a second, and never more
    /// than a few dB above it after the second block (a flip to a loud channel must not blast).
    @Test func anOddFirstBlockDoesNotDecideTheGain() {
        var l = LoudnessLeveller()
        let first = gainDB(&l, feed: 1, block(-50, seconds: 0.02))
        #expect(abs(first - LoudnessLeveller.range) < 0.01, "the first block alone says +15 dB")
        var gains: [Double] = []
        for _ in 0..<10 { gains.append(gainDB(&l, feed: 1, block(-11, seconds: 0.02))) }
        #expect(gains[0] < -8.5, "the second block already brings it down: \(gains[0]) dB")
        #expect(abs(gains[9] - -12) < 0.5, "after 0.2 s: \(gains[9]) dB, wanted -12")
    }

    @Test func onceSetTheGainMovesAtMostThreeDecibelsASecond() {
        var l = LoudnessLeveller()
        // Its first second sets the level.
        for _ in 0...10 { #expect(abs(gainDB(&l, feed: 1, block(-23))) < 0.01) }
        // The programme gets 12 dB louder for two seconds: the gain goes down by 6 dB at most.
        var last = 0.0
        for _ in 0..<20 {
            let g = gainDB(&l, feed: 1, block(-11))
            #expect(last - g <= LoudnessLeveller.slew * 0.1 + 1e-9)
            last = g
        }
        #expect(last < -3 && last >= -6.0001, "after 2 s: \(last) dB")
    }
}
