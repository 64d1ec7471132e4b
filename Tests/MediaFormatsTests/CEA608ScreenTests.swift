@testable import MediaFormats
import Testing

/// CEA-608 captions decoded from their byte pairs: pop-on, roll-up, paint-on, doubled codes.
@Suite struct CEA608ScreenTests {
    /// Feeds `pairs` (parity bits left out: the screen drops them) to `screen`.
    func feed(_ screen: inout CEA608Screen, _ pairs: [(UInt8, UInt8)]) {
        for (a, b) in pairs { screen.take(a | 0x80, b) }
    }
    func text(_ s: String) -> [(UInt8, UInt8)] {
        let bytes = Array(s.utf8) + (s.utf8.count % 2 == 1 ? [0] : [])
        return stride(from: 0, to: bytes.count, by: 2).map { (bytes[$0], bytes[$0 + 1]) }
    }
    let loading: (UInt8, UInt8) = (0x14, 0x20), endOfCaption: (UInt8, UInt8) = (0x14, 0x2F)
    let row15: (UInt8, UInt8) = (0x14, 0x70), carriageReturn: (UInt8, UInt8) = (0x14, 0x2D)

    @Test func popOnShowsAtEndOfCaptionAndControlCodesSentTwiceActOnce() {
        var screen = CEA608Screen()
        feed(&screen, [loading, loading, row15, row15] + text("HELLO"))
        #expect(screen.text == "", "written off screen")
        feed(&screen, [endOfCaption, endOfCaption])
        #expect(screen.text == "HELLO", "shown once, not swapped back by the repeat")
        feed(&screen, [(0x14, 0x2C)])
        #expect(screen.text == "")
    }

    @Test func rollUpScrollsAtEachCarriageReturn() {
        var screen = CEA608Screen()
        feed(&screen, [(0x14, 0x25), row15] + text("ONE"))
        #expect(screen.text == "ONE", "roll-up writes on screen")
        feed(&screen, [carriageReturn] + text("TWO"))
        #expect(screen.text == "ONE\nTWO")
        feed(&screen, [carriageReturn] + text("THREE"))
        #expect(screen.text == "TWO\nTHREE", "two rows: the oldest goes")
    }

    @Test func paintOnWritesAtTheIndentAndBackspaceDeletes() {
        var screen = CEA608Screen()
        feed(&screen, [(0x14, 0x29), (0x14, 0x52)] + text("ABC") + [(0x14, 0x21)])  // row 14, indent 4
        #expect(screen.text == "AB")
        feed(&screen, [(0x11, 0x37)])
        #expect(screen.text == "AB♪", "a special character")
        feed(&screen, [(0x1C, 0x2C)])
        #expect(screen.text == "AB♪", "channel 2's erase is not CC1's")
    }
}
