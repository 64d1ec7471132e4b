import GStreamer
@testable import Headend
import Testing

/// `DeliveryLag`: the largest lag of a channel's data over the last few seconds, forgotten when
/// its clock jumps.
@Suite struct DeliveryLagTests {
    let start = ContinuousClock.now
    func at(_ ms: Int) -> ContinuousClock.Instant { start + .milliseconds(ms) }
    func ns(_ ms: Int) -> Int64 { Int64(ms) * 1_000_000 }
    /// The lag of a buffer with timestamp `time` ms that arrived at `arrival` ms, as recorded.
    func lag(time: Int, arrival: Int) -> Int64 { DeliveryLag.nanoseconds(at(arrival)) - ns(time) }

    @Test func theLargestLagOfBothTracksIsKept() {
        var lag = DeliveryLag()
        #expect(lag.largest(now: at(0)) == nil)
        // Pictures 40 ms after their decode time, sound 300 ms after its time (a muxer's audio packets).
        for frame in 0..<25 { lag.record(video: true, time: ns(frame * 40), at: at(frame * 40 + 40)) }
        lag.record(video: false, time: ns(0), at: at(300))
        lag.record(video: false, time: ns(200), at: at(500))
        #expect(lag.largest(now: at(1000)) == self.lag(time: 0, arrival: 300))
    }

    @Test func lagsOlderThanTheWindowAreLetGo() {
        var lag = DeliveryLag()
        lag.record(video: false, time: ns(0), at: at(400))
        for frame in 0..<150 { lag.record(video: true, time: ns(frame * 40), at: at(frame * 40 + 20)) }
        // 6 s later, within the window: the sound 400 ms late is gone, the pictures' 20 ms stays.
        #expect(lag.largest(now: at(6000)) == self.lag(time: 149 * 40, arrival: 149 * 40 + 20))
        #expect(lag.largest(now: at(20_000)) == nil, "nothing came for more than the window")
    }

    @Test func aJumpInTheSourcesClockStartsAgain() {
        var lag = DeliveryLag()
        lag.record(video: false, time: ns(0), at: at(500))
        lag.record(video: true, time: ns(0), at: at(10))
        // The source's clock went back 5 s (a loop, an encoder restart): the old lags mean nothing.
        lag.record(video: true, time: ns(-5000), at: at(50))
        #expect(lag.largest(now: at(100)) == self.lag(time: -5000, arrival: 50))
    }
}
