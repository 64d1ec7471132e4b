/// Turns bytes read from a terminal into ``Key``s, including ANSI escape sequences that arrive split
/// across reads. Pure; feed it every byte in order.
///
/// Recognised sequences: `ESC [ A`/`B` and `ESC O A`/`B` (arrows), `ESC [ 5 ~`/`6 ~` (page up/down),
/// and the application keypad (`ESC O k`/`m`/`M`/`p`…`y`/`n`). Other complete sequences become `.other`.
/// A lone `ESC` stays pending until more bytes come or ``flush()`` is called (after a short quiet time).
public struct KeyDecoder: Sendable, Hashable {
    private var pending: [UInt8] = []

    /// The longest escape sequence kept; anything longer is dropped as `.other`.
    static let maximumSequenceLength = 16

    public init() {}

    /// Whether bytes of an unfinished sequence are held back.
    public var hasPending: Bool { !pending.isEmpty }

    /// The keys completed by `bytes`. Bytes of an unfinished sequence are kept for the next call.
    public mutating func decode(_ bytes: some Sequence<UInt8>) -> [Key] {
        pending.append(contentsOf: bytes)
        var keys: [Key] = []
        var start = 0
        while start < pending.count {
            switch Self.parse(pending[start...]) {
            case .key(let key, let length):
                keys.append(key)
                start += length
            case .incomplete:
                pending.removeFirst(start)
                return keys
            }
        }
        pending.removeAll()
        return keys
    }

    /// Gives up waiting for the rest of a sequence: a lone `ESC` (or a cut sequence) becomes `.other`.
    public mutating func flush() -> [Key] {
        guard !pending.isEmpty else { return [] }
        pending.removeAll()
        return [.other]
    }

    private enum Parse {
        case key(Key, length: Int)
        case incomplete
    }

    private static func parse(_ bytes: ArraySlice<UInt8>) -> Parse {
        let first = bytes[bytes.startIndex]
        switch first {
        case 0x1B:
            return parseEscape(bytes)
        case 0xC0...0xF7:
            // A UTF-8 character: skip all of it as one key.
            let length = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : 2
            return bytes.count >= length ? .key(.other, length: length) : .incomplete
        default:
            return .key(plainKey(first), length: 1)
        }
    }

    private static func plainKey(_ byte: UInt8) -> Key {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): .digit(Int(byte - UInt8(ascii: "0")))
        case UInt8(ascii: "+"), UInt8(ascii: "="): .plus
        case UInt8(ascii: "-"): .minus
        case UInt8(ascii: "."): .dot
        case 0x0D, 0x0A: .enter
        case 0x7F, 0x08: .backspace
        case UInt8(ascii: "q"), UInt8(ascii: "Q"): .quit
        case UInt8(ascii: "i"), UInt8(ascii: "I"): .info
        case UInt8(ascii: "f"), UInt8(ascii: "F"): .scope
        case UInt8(ascii: "p"), UInt8(ascii: "P"): .pip
        case UInt8(ascii: "s"), UInt8(ascii: "S"): .swap
        case UInt8(ascii: "m"), UInt8(ascii: "M"): .multiview
        case UInt8(ascii: " "): .playPause
        case UInt8(ascii: "<"): .rewind
        case UInt8(ascii: ">"): .fastForward
        case UInt8(ascii: "["): .skipBack
        case UInt8(ascii: "]"): .skipForward
        case UInt8(ascii: "a"), UInt8(ascii: "A"): .audio
        case UInt8(ascii: "c"), UInt8(ascii: "C"): .subtitle
        case UInt8(ascii: "g"), UInt8(ascii: "G"): .guide
        case UInt8(ascii: "r"), UInt8(ascii: "R"): .record
        case UInt8(ascii: "l"), UInt8(ascii: "L"): .recordings
        default: .other
        }
    }

    /// `bytes` starts with ESC.
    private static func parseEscape(_ bytes: ArraySlice<UInt8>) -> Parse {
        let s = bytes.startIndex
        guard bytes.count >= 2 else { return .incomplete }
        switch bytes[s + 1] {
        case UInt8(ascii: "["):
            return parseCSI(bytes)
        case UInt8(ascii: "O"):
            guard bytes.count >= 3 else { return .incomplete }
            return .key(ss3Key(bytes[s + 2]), length: 3)
        case 0x1B:
            // ESC ESC: the first was a lone Escape.
            return .key(.other, length: 1)
        default:
            // Alt + key.
            return .key(.other, length: 2)
        }
    }

    /// `ESC [ params… final`: parameter bytes 0x30–0x3F, intermediates 0x20–0x2F, final 0x40–0x7E.
    private static func parseCSI(_ bytes: ArraySlice<UInt8>) -> Parse {
        let s = bytes.startIndex
        var i = s + 2
        while i < bytes.endIndex {
            let byte = bytes[i]
            let length = i - s + 1
            switch byte {
            case 0x20...0x3F:
                if length >= maximumSequenceLength { return .key(.other, length: length) }
                i += 1
            case 0x40...0x7E:
                return .key(csiKey(parameters: Array(bytes[(s + 2)..<i]), final: byte), length: length)
            default:
                // Not a valid sequence: drop what came before this byte.
                return .key(.other, length: length - 1)
            }
        }
        return .incomplete
    }

    private static func csiKey(parameters: [UInt8], final: UInt8) -> Key {
        switch (parameters, final) {
        case ([], UInt8(ascii: "A")): .up
        case ([], UInt8(ascii: "B")): .down
        case ([], UInt8(ascii: "C")): .right
        case ([], UInt8(ascii: "D")): .left
        case ([UInt8(ascii: "5")], UInt8(ascii: "~")): .pageUp
        case ([UInt8(ascii: "6")], UInt8(ascii: "~")): .pageDown
        // End: xterm (`ESC [ F`), VT220 (`ESC [ 4 ~`), rxvt (`ESC [ 8 ~`).
        case ([], UInt8(ascii: "F")), ([UInt8(ascii: "4")], UInt8(ascii: "~")), ([UInt8(ascii: "8")], UInt8(ascii: "~")): .stop
        default: .other
        }
    }

    /// `ESC O x`: arrows in application cursor mode and the application keypad.
    private static func ss3Key(_ byte: UInt8) -> Key {
        switch byte {
        case UInt8(ascii: "A"): .up
        case UInt8(ascii: "B"): .down
        case UInt8(ascii: "C"): .right
        case UInt8(ascii: "D"): .left
        case UInt8(ascii: "k"): .plus
        case UInt8(ascii: "m"): .minus
        case UInt8(ascii: "n"): .dot
        case UInt8(ascii: "M"): .enter
        case UInt8(ascii: "F"): .stop
        case UInt8(ascii: "p")...UInt8(ascii: "y"): .digit(Int(byte - UInt8(ascii: "p")))
        default: .other
        }
    }
}
