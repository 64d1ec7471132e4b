import Control
import Testing

@Suite("KeyDecoder")
struct KeyDecoderTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
    static let esc = "\u{1B}"

    @Test func plainKeys() {
        var decoder = KeyDecoder()
        #expect(decoder.decode(Self.bytes("0129+=-.qQiIx")) == [
            .digit(0), .digit(1), .digit(2), .digit(9), .plus, .plus, .minus, .dot, .quit, .quit, .info, .info, .other,
        ])
        #expect(decoder.decode([0x0D, 0x0A, 0x7F, 0x08]) == [.enter, .enter, .backspace, .backspace])
        #expect(decoder.decode(Self.bytes("aA")) == [.audio, .audio])
        #expect(decoder.decode(Self.bytes("cC")) == [.subtitle, .subtitle])
    }

    @Test func escapeSequences() {
        var decoder = KeyDecoder()
        let input = Self.esc + "[A" + Self.esc + "[B" + Self.esc + "[5~" + Self.esc + "[6~" + Self.esc + "OA" + Self.esc + "OB"
        #expect(decoder.decode(Self.bytes(input)) == [.up, .down, .pageUp, .pageDown, .up, .down])
        #expect(!decoder.hasPending)
    }

    @Test func timeKeys() {
        var decoder = KeyDecoder()
        let input = " <>" + Self.esc + "[F" + Self.esc + "[4~" + Self.esc + "[8~" + Self.esc + "OF"
        #expect(decoder.decode(Self.bytes(input)) == [.playPause, .rewind, .fastForward, .stop, .stop, .stop, .stop])
    }

    @Test func unknownSequencesAreOneOtherKey() {
        var decoder = KeyDecoder()
        // Keypad 5 (ESC [ E), F5, Shift-Up, Alt-x, then a digit.
        let input = Self.esc + "[E" + Self.esc + "[15~" + Self.esc + "[1;2A" + Self.esc + "x" + "5"
        #expect(decoder.decode(Self.bytes(input)) == [.other, .other, .other, .other, .digit(5)])
    }

    @Test func applicationKeypad() {
        var decoder = KeyDecoder()
        let input = [Self.esc + "Op", Self.esc + "Oy", Self.esc + "Ok", Self.esc + "Om", Self.esc + "On", Self.esc + "OM"].joined()
        #expect(decoder.decode(Self.bytes(input)) == [.digit(0), .digit(9), .plus, .minus, .dot, .enter])
    }

    @Test func sequencesSplitAcrossReads() {
        for sequence in [Self.esc + "[A", Self.esc + "[5~", Self.esc + "OB", Self.esc + "[6~"] {
            let bytes = Self.bytes(sequence)
            for cut in 1..<bytes.count {
                var decoder = KeyDecoder()
                #expect(decoder.decode(bytes[..<cut]) == [], "cut \(cut) of \(bytes)")
                #expect(decoder.hasPending)
                let keys = decoder.decode(bytes[cut...])
                #expect(keys.count == 1)
                #expect(keys.first != .other)
                #expect(!decoder.hasPending)
            }
        }
        // One byte at a time, several sequences and plain keys mixed.
        var decoder = KeyDecoder()
        var keys: [Key] = []
        for byte in Self.bytes("7" + Self.esc + "[5~" + Self.esc + "OA" + "\r") { keys += decoder.decode([byte]) }
        #expect(keys == [.digit(7), .pageUp, .up, .enter])
    }

    @Test func loneEscapeWaitsThenFlushes() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B]) == [])
        #expect(decoder.flush() == [.other])
        #expect(!decoder.hasPending)
        #expect(decoder.flush() == [])
        // Escape pressed twice, then an arrow.
        #expect(decoder.decode(Self.bytes(Self.esc + Self.esc + "[A")) == [.other, .up])
    }

    @Test func overlongOrBrokenSequencesDoNotStick() {
        var decoder = KeyDecoder()
        let long = Self.esc + "[" + String(repeating: "1;", count: 20) + "A" + "3"
        let keys = decoder.decode(Self.bytes(long))
        #expect(keys.last == .digit(3))
        // What is left of it is read as plain keys (`A` is the audio key).
        #expect(keys.dropLast().allSatisfy { $0 == .other || $0 == .digit(1) || $0 == .audio })
        #expect(!decoder.hasPending)
        // A control byte inside a sequence ends it; the byte is decoded on its own.
        #expect(decoder.decode(Self.bytes(Self.esc + "[\r")) == [.other, .enter])
    }

    @Test func utf8CharactersAreOneKey() {
        var decoder = KeyDecoder()
        let bytes = Self.bytes("é€7")
        #expect(decoder.decode(bytes[..<1]) == [])
        #expect(decoder.decode(bytes[1...]) == [.other, .other, .digit(7)])
    }
}
