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
        #expect(keypad.press(.subtitle, now: at(0)) == [.nextSubtitles])
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

    @Test func withTheLockCardUpDigitsAreThePINShownAsDots() {
        var keypad = RemoteKeypad()
        keypad.lockCardUp = true
        #expect(keypad.press(.digit(2), now: at(0)) == [.showPIN(1)])
        #expect(keypad.press(.digit(4), now: at(100)) == [.showPIN(2)])
        #expect(keypad.press(.backspace, now: at(200)) == [.showPIN(1)], "Back deletes a PIN digit")
        #expect(keypad.press(.digit(4), now: at(300)) == [.showPIN(2)])
        #expect(keypad.press(.dot, now: at(350)) == [])
        #expect(keypad.press(.digit(6), now: at(400)) == [.showPIN(3)])
        #expect(keypad.press(.digit(8), now: at(500)) == [.showPIN(4)])
        #expect(keypad.deadline == nil, "no channel number is being typed")
        #expect(keypad.press(.enter, now: at(600)) == [.unlock(pin: "2468")])
        #expect(keypad.press(.enter, now: at(700)) == [], "nothing typed: nothing to send")
        #expect(keypad.press(.back, now: at(800)) == [.flip(.recall)], "with nothing typed, Back leaves the channel")
        // Eight digits send at once.
        for d in 1...7 { _ = keypad.press(.digit(d), now: at(900)) }
        #expect(keypad.press(.digit(8), now: at(1000)) == [.unlock(pin: "12345678")])
        // Flipping away drops what was typed.
        _ = keypad.press(.digit(1), now: at(1100))
        #expect(keypad.press(.up, now: at(1200)) == [.showPIN(0), .flip(.next)])
        // The lock card gone, digits are channel numbers again.
        _ = keypad.press(.digit(3), now: at(1300))
        keypad.lockCardUp = false
        #expect(keypad.press(.digit(4), now: at(1400)) == [.showEntry("4")])
        keypad.lockCardUp = true
        #expect(keypad.press(.enter, now: at(1500)) == [.hideEntry, .flip(.tune(ChannelNumber(4)))],
                "a number typed before the card came up is still a number")
    }

    @Test func aProposalIsAnsweredWithOKOrBack() {
        var keypad = RemoteKeypad()
        keypad.proposalUp = true
        #expect(keypad.press(.enter, now: at(0)) == [.answerProposal(accept: true)])
        #expect(keypad.press(.back, now: at(10)) == [.answerProposal(accept: false)])
        #expect(keypad.press(.up, now: at(20)) == [.flip(.next)], "the arrows still flip")
        #expect(keypad.press(.digit(4), now: at(30)) == [.showEntry("4")])
        #expect(keypad.press(.enter, now: at(40)) == [.hideEntry, .flip(.tune(ChannelNumber(4)))], "a typed number wins")
        keypad.proposalUp = false
        #expect(keypad.press(.enter, now: at(50)) == [])
    }

    @Test func theGuideKeyOpensTheGuideAndItsKeysMoveIt() {
        var keypad = RemoteKeypad()
        #expect(keypad.press(.guide, now: at(0)) == [.guide])
        keypad.guideOpen = true
        #expect(keypad.press(.up, now: at(10)) == [.guideMove(.up)])
        #expect(keypad.press(.right, now: at(20)) == [.guideMove(.right)])
        #expect(keypad.press(.pageDown, now: at(30)) == [.guideMove(.pageDown)])
        #expect(keypad.press(.red, now: at(40)) == [.guideRemind])
        #expect(keypad.press(.record, now: at(42)) == [.guideRecord(series: false)])
        #expect(keypad.press(.green, now: at(44)) == [.guideRecord(series: false)])
        #expect(keypad.press(.yellow, now: at(46)) == [.guideRecord(series: true)])
        #expect(keypad.press(.enter, now: at(50)) == [.guideSelect])
        #expect(keypad.press(.back, now: at(60)) == [.guideClose])
        #expect(keypad.press(.guide, now: at(70)) == [.guide], "g again closes it")
        #expect(keypad.press(.digit(5), now: at(80)) == [.showEntry("5")], "digits still tune")
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

@Suite("RemoteKeypad: the list of recordings")
struct RecordingListKeypadTests {
    @Test func theListKeyOpensItAndItsKeysMoveItPlayAndClose() {
        let now = ContinuousClock.now
        var keypad = RemoteKeypad()
        #expect(keypad.press(.recordings, now: now) == [.recordings])
        keypad.recordingsOpen = true
        #expect(keypad.press(.up, now: now) == [.recordingsMove(.up)])
        #expect(keypad.press(.down, now: now) == [.recordingsMove(.down)])
        #expect(keypad.press(.pageDown, now: now) == [.recordingsMove(.pageDown)])
        #expect(keypad.press(.right, now: now) == [.recordingsMove(.pageDown)])
        #expect(keypad.press(.enter, now: now) == [.recordingsSelect])
        for key in [Key.back, .backspace, .recordings] { #expect(keypad.press(key, now: now) == [.recordingsClose]) }
        // Other keys keep their meaning.
        #expect(keypad.press(.guide, now: now) == [.guide])
        keypad.recordingsOpen = false
        #expect(keypad.press(.up, now: now) == [.flip(.next)])
    }

    @Test func keysNamedForTheListReachIt() {
        var decoder = KeyDecoder()
        #expect(decoder.decode(Array("lL".utf8)) == [.recordings, .recordings])
        #expect(EvdevKeyMap.standard.key(button: "KEY_PVR") == .recordings)
    }
}
