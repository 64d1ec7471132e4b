import Control
import Headend
import Lineup
import Switcher
import Testing

@Suite("RemoteKeypad")
struct RemoteKeypadTests {
    let start = ContinuousClock.now
    func at(_ ms: Int) -> ContinuousClock.Instant { start + .milliseconds(ms) }

    @Test func navigationKeys() {
        var keypad = RemoteKeypad()
        for key in [Key.up, .pageUp, .plus] { #expect(keypad.press(key, now: at(0)) == [.flip(.next)]) }
        for key in [Key.down, .pageDown, .minus] { #expect(keypad.press(key, now: at(0)) == [.flip(.previous)]) }
        #expect(keypad.press(.backspace, now: at(0)) == [.flip(.recall)])
        #expect(keypad.press(.info, now: at(0)) == [.info])
        #expect(keypad.press(.quit, now: at(0)) == [.quit])
        #expect(keypad.press(.audio, now: at(0)) == [.nextAudio])
        #expect(keypad.press(.other, now: at(0)) == [])
        #expect(keypad.press(.enter, now: at(0)) == [])
    }

    @Test func timeKeysMoveTheChannelOnScreenInTime() {
        var keypad = RemoteKeypad()
        #expect(keypad.press(.playPause, now: at(0)) == [.timeshift(.togglePause)])
        #expect(keypad.press(.left, now: at(0)) == [.timeshift(.seekBy(.seconds(-10)))])
        #expect(keypad.press(.right, now: at(0)) == [.timeshift(.seekBy(.seconds(10)))])
        #expect(keypad.press(.rewind, now: at(0)) == [.timeshift(.seekBy(.seconds(-60)))])
        #expect(keypad.press(.fastForward, now: at(0)) == [.timeshift(.seekBy(.seconds(60)))])
        #expect(keypad.press(.stop, now: at(0)) == [.timeshift(.live)])
        // A number being typed is dropped, not left on screen.
        _ = keypad.press(.digit(4), now: at(0))
        #expect(keypad.press(.playPause, now: at(100)) == [.hideEntry, .timeshift(.togglePause)])
    }

    @Test func digitsThenEnter() {
        var keypad = RemoteKeypad()
        #expect(keypad.press(.digit(1), now: at(0)) == [.showEntry("1")])
        #expect(keypad.press(.digit(2), now: at(100)) == [.showEntry("12")])
        #expect(keypad.press(.enter, now: at(200)) == [.hideEntry, .flip(.tune(ChannelNumber(12)))])
        #expect(keypad.deadline == nil)
    }

    @Test func digitsThenTimeout() {
        var keypad = RemoteKeypad(entryTimeout: .milliseconds(1500))
        _ = keypad.press(.digit(9), now: at(0))
        _ = keypad.press(.dot, now: at(100))
        _ = keypad.press(.digit(1), now: at(200))
        #expect(keypad.deadline == at(1700))
        #expect(keypad.expire(now: at(1000)) == [])
        #expect(keypad.expire(now: at(1700)) == [.hideEntry, .flip(.tune(ChannelNumber(9, 1)))])
    }

    @Test func backspaceEditsAnEntryBeforeRecalling() {
        var keypad = RemoteKeypad()
        _ = keypad.press(.digit(3), now: at(0))
        _ = keypad.press(.digit(4), now: at(0))
        #expect(keypad.press(.backspace, now: at(10)) == [.showEntry("3")])
        #expect(keypad.press(.backspace, now: at(20)) == [.hideEntry])
        #expect(keypad.press(.backspace, now: at(30)) == [.flip(.recall)])
    }

    @Test func arrowsAbandonAnEntry() {
        var keypad = RemoteKeypad()
        _ = keypad.press(.digit(5), now: at(0))
        #expect(keypad.press(.up, now: at(10)) == [.hideEntry, .flip(.next)])
        #expect(keypad.expire(now: at(5000)) == [])
    }
}
