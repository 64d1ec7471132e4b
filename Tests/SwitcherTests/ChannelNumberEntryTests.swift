import FlipboxCore
import Switcher
import Lineup
import Testing

@Suite("ChannelNumberEntry (manual clock)")
struct ChannelNumberEntryTests {
    let start = ContinuousClock.now
    func at(_ ms: Int) -> ContinuousClock.Instant { start + .milliseconds(ms) }

    @Test func commitsAfterTheTimeoutWithoutInput() {
        var entry = ChannelNumberEntry()
        #expect(entry.type(digit: 1, now: at(0)) == .show("1"))
        #expect(entry.type(digit: 2, now: at(1000)) == .show("12"))
        #expect(entry.deadline == at(2500))
        #expect(entry.expire(now: at(2499)) == .ignore)
        #expect(entry.isActive)
        #expect(entry.expire(now: at(2500)) == .commit(ChannelNumber(12)))
        #expect(!entry.isActive)
        #expect(entry.deadline == nil)
        #expect(entry.expire(now: at(9000)) == .ignore)
    }

    @Test func enterCommitsAtOnce() {
        var entry = ChannelNumberEntry()
        _ = entry.type(digit: 7, now: at(0))
        #expect(entry.commit() == .commit(ChannelNumber(7)))
        #expect(entry.commit() == .ignore)
    }

    @Test func fourthDigitCommits() {
        var entry = ChannelNumberEntry()
        for (i, d) in [1, 0, 0].enumerated() { _ = entry.type(digit: d, now: at(i * 100)) }
        #expect(entry.type(digit: 4, now: at(300)) == .commit(ChannelNumber(1004)))
        // Leading zeros count as digits and parse away.
        for d in [0, 0, 0] { _ = entry.type(digit: d, now: at(400)) }
        #expect(entry.type(digit: 5, now: at(400)) == .commit(ChannelNumber(5)))
    }

    @Test func subChannels() {
        var entry = ChannelNumberEntry()
        #expect(entry.typeDot(now: at(0)) == .ignore, "a dot first does nothing")
        _ = entry.type(digit: 9, now: at(0))
        #expect(entry.typeDot(now: at(100)) == .show("9."))
        #expect(entry.typeDot(now: at(200)) == .ignore, "only one dot")
        #expect(entry.type(digit: 1, now: at(300)) == .show("9.1"))
        #expect(entry.expire(now: at(1800)) == .commit(ChannelNumber(9, 1)))
        // A trailing dot is dropped.
        _ = entry.type(digit: 4, now: at(0))
        _ = entry.typeDot(now: at(0))
        #expect(entry.commit() == .commit(ChannelNumber(4)))
    }

    @Test func deleteLastExtendsOrCancels() {
        var entry = ChannelNumberEntry(timeout: .seconds(1))
        _ = entry.type(digit: 4, now: at(0))
        _ = entry.type(digit: 2, now: at(100))
        #expect(entry.deleteLast(now: at(900)) == .show("4"))
        #expect(entry.deadline == at(1900))
        #expect(entry.expire(now: at(1500)) == .ignore)
        #expect(entry.deleteLast(now: at(1600)) == .cancel)
        #expect(!entry.isActive)
        #expect(entry.deleteLast(now: at(1700)) == .ignore)
        #expect(entry.expire(now: at(5000)) == .ignore)
    }

    @Test func eachInputRestartsTheTimeout() {
        var entry = ChannelNumberEntry()
        _ = entry.type(digit: 1, now: at(0))
        _ = entry.type(digit: 2, now: at(1400))
        #expect(entry.expire(now: at(1600)) == .ignore)
        _ = entry.type(digit: 3, now: at(2800))
        #expect(entry.expire(now: at(4299)) == .ignore)
        #expect(entry.expire(now: at(4300)) == .commit(ChannelNumber(123)))
    }
}
