@testable import Headend
import Testing

/// How long a cold flip into a rationed pool waits for the next press of a run.
@Suite struct KeyRepeatSettleTests {
    @Test func aPressSoonAfterAnotherWaitsOneAndAHalfGapsAtMostHalfASecond() {
        #expect(Headend.keyRepeatSettle(gap: .milliseconds(40)) == .milliseconds(60))
        #expect(Headend.keyRepeatSettle(gap: .milliseconds(300)) == .milliseconds(450))
        #expect(Headend.keyRepeatSettle(gap: .milliseconds(400)) == .milliseconds(500))
        #expect(Headend.keyRepeatSettle(gap: .milliseconds(699)) == .milliseconds(500))
    }

    @Test func aPressLongAfterTheOneBeforeDoesNotWait() {
        #expect(Headend.keyRepeatSettle(gap: .milliseconds(700)) == nil)
        #expect(Headend.keyRepeatSettle(gap: .seconds(5)) == nil)
    }
}
