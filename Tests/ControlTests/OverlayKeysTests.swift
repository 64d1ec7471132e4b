import Control
import Lineup
import Switcher
import Testing

/// The overlay keys: decoding and the keypad's multiview mode.
@Suite struct OverlayKeysTests {
    static let esc = "\u{1B}"

    @Test func lettersAndSideArrowsDecode() {
        var decoder = KeyDecoder()
        let input = "pPsSmM" + Self.esc + "[C" + Self.esc + "[D" + Self.esc + "OC" + Self.esc + "OD"
        #expect(decoder.decode(Array(input.utf8)) == [.pip, .pip, .swap, .swap, .multiview, .multiview, .right, .left, .right, .left])
    }

    @Test func outsideTheMultiviewArrowsFlipAndLettersAskForOverlays() {
        var keypad = RemoteKeypad()
        let now = ContinuousClock.now
        #expect(keypad.press(.up, now: now) == [.flip(.next)])
        #expect(keypad.press(.left, now: now) == [])
        #expect(keypad.press(.pip, now: now) == [.pip])
        #expect(keypad.press(.swap, now: now) == [.swap])
        #expect(keypad.press(.info, now: now) == [.info])
        #expect(keypad.press(.multiview, now: now) == [.multiview])
    }

    @Test func insideTheMultiviewArrowsMoveAndEnterSelects() {
        var keypad = RemoteKeypad()
        keypad.multiviewOpen = true
        let now = ContinuousClock.now
        #expect(keypad.press(.up, now: now) == [.multiviewMove(.up)])
        #expect(keypad.press(.down, now: now) == [.multiviewMove(.down)])
        #expect(keypad.press(.left, now: now) == [.multiviewMove(.left)])
        #expect(keypad.press(.right, now: now) == [.multiviewMove(.right)])
        #expect(keypad.press(.enter, now: now) == [.multiviewSelect])
        #expect(keypad.press(.pageUp, now: now) == [.flip(.next)], "page keys still flip underneath")
        // A number being typed: Enter commits it instead.
        #expect(keypad.press(.digit(4), now: now) == [.showEntry("4")])
        #expect(keypad.press(.enter, now: now) == [.hideEntry, .flip(.tune(ChannelNumber(4)))])
        keypad.multiviewOpen = false
        #expect(keypad.press(.down, now: now) == [.flip(.previous)])
    }
}
