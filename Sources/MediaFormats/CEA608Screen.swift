import Foundation

/// What CEA-608 captions (channel CC1: field 1, data channel 1) put on screen, decoded from
/// their byte pairs: pop-on (written off screen, shown at End Of Caption), roll-up (2 to 4 rows
/// that scroll at each Carriage Return) and paint-on (written straight on screen). Rows and
/// indents from Preamble Address Codes; the standard character set (with its few non-ASCII
/// letters); a control code sent twice in a row (as the standard sends them) acts once.
/// Colours, italics and the extended character sets are not drawn. Pure.
public struct CEA608Screen: Sendable {
    enum Mode: Sendable, Hashable { case popOn, rollUp(Int), paintOn }

    private var mode = Mode.popOn
    /// 15 rows of 32 columns each, on screen and off screen (pop-on).
    private var shown = Array(repeating: [Character](), count: 15)
    private var hidden = Array(repeating: [Character](), count: 15)
    private var row = 14
    private var column = 0
    private var lastControl: (UInt8, UInt8)?

    public init() {}

    /// The rows on screen, top to bottom, without the empty ones.
    public var text: String {
        shown.map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: "\n")
    }

    /// Takes one field-1 byte pair (parity bits included).
    public mutating func take(_ first: UInt8, _ second: UInt8) {
        let b1 = first & 0x7F, b2 = second & 0x7F
        if b1 == 0 && b2 == 0 { return }
        if (0x10...0x1F).contains(b1) {
            if let last = lastControl, last == (b1, b2) { lastControl = nil; return }
            lastControl = (b1, b2)
            control(b1, b2)
            return
        }
        lastControl = nil
        write(Self.character(b1))
        if b2 >= 0x20 { write(Self.character(b2)) }
    }

    /// Takes the CC1 pairs of one frame's CEA-708 `cc_data`: triplets of `cc_valid|cc_type`
    /// and two bytes (a triplet cut short is not read). True when it carries CEA-708 service
    /// data (a valid triplet of type 2 or 3).
    @discardableResult
    public mutating func take(ccData triplets: [UInt8]) -> Bool {
        var carries708 = false
        for i in stride(from: 0, to: triplets.count - 2, by: 3) where triplets[i] & 0x04 != 0 {
            switch triplets[i] & 0x03 {
            case 0: take(triplets[i + 1], triplets[i + 2])
            case 2, 3: carries708 = true
            default: break
            }
        }
        return carries708
    }

    private mutating func control(_ b1: UInt8, _ b2: UInt8) {
        // Channel 2 (0x18-0x1F) is another service: not CC1.
        guard b1 < 0x18 else { return }
        if (0x40...0x7F).contains(b2) {
            // Preamble Address Code: row, and indent in steps of 4 columns.
            let rows: [UInt8: (Int, Int)] = [0x11: (1, 2), 0x12: (3, 4), 0x15: (5, 6), 0x16: (7, 8), 0x17: (9, 10),
                                             0x10: (11, 11), 0x13: (12, 13), 0x14: (14, 15)]
            guard let pair = rows[b1] else { return }
            let target = (b2 & 0x20 == 0 ? pair.0 : pair.1) - 1
            if case .rollUp(let n) = mode, target != row { moveRollUp(to: target, rows: n) }
            row = target
            column = b2 & 0x10 != 0 ? Int((b2 & 0x0E) >> 1) * 4 : 0
            return
        }
        switch (b1, b2) {
        case (0x11, 0x20...0x2F): write(" ")                                       // mid-row style: a space
        case (0x11, 0x30...0x3F): write(Self.special[Int(b2 - 0x30)])
        case (0x17, 0x21...0x23): column = min(31, column + Int(b2 - 0x20))         // tab offsets
        case (0x14, 0x20): mode = .popOn                                            // resume caption loading
        case (0x14, 0x25...0x27):                                                   // roll-up, 2 to 4 rows
            if case .rollUp = mode {} else { clear(&shown) }
            mode = .rollUp(Int(b2 - 0x25) + 2)
            column = 0
        case (0x14, 0x29): mode = .paintOn                                          // resume direct captioning
        case (0x14, 0x21):                                                          // backspace
            if column > 0 {
                column -= 1
                edit { line, col in if col < line.count { line.remove(at: col) } }
            }
        case (0x14, 0x24): edit { line, col in if col < line.count { line.removeSubrange(col...) } }  // delete to end of row
        case (0x14, 0x2C): clear(&shown)                                            // erase displayed memory
        case (0x14, 0x2E): clear(&hidden)                                           // erase non-displayed memory
        case (0x14, 0x2F): swap(&shown, &hidden); mode = .popOn                     // end of caption
        case (0x14, 0x2D):                                                          // carriage return
            if case .rollUp(let n) = mode {
                let top = max(0, row - n + 1)
                for r in top..<row { shown[r] = shown[r + 1] }
                for r in 0..<top { shown[r] = [] }
                shown[row] = []
            } else if row < 14 {
                row += 1
            }
            column = 0
        default: break
        }
    }

    /// Roll-up captions moved to another base row: the rows go with it.
    private mutating func moveRollUp(to target: Int, rows n: Int) {
        var moved = Array(repeating: [Character](), count: 15)
        for k in 0..<n where row - k >= 0 && target - k >= 0 { moved[target - k] = shown[row - k] }
        shown = moved
    }

    private mutating func write(_ c: Character) {
        guard column < 32 else { return }
        edit { line, col in
            while line.count < col { line.append(" ") }
            if col < line.count { line[col] = c } else { line.append(c) }
        }
        column += 1
    }

    /// Edits the row being written (off screen for pop-on) at the cursor.
    private mutating func edit(_ body: (inout [Character], Int) -> Void) {
        if mode == .popOn { body(&hidden[row], column) } else { body(&shown[row], column) }
    }

    private func clear(_ rows: inout [[Character]]) { rows = Array(repeating: [], count: 15) }

    /// The standard character set: ASCII but for a few letters.
    static func character(_ b: UInt8) -> Character {
        switch b {
        case 0x2A: "á"
        case 0x5C: "é"
        case 0x5E: "í"
        case 0x5F: "ó"
        case 0x60: "ú"
        case 0x7B: "ç"
        case 0x7C: "÷"
        case 0x7D: "Ñ"
        case 0x7E: "ñ"
        case 0x7F: "█"
        default: Character(Unicode.Scalar(b))
        }
    }

    static let special: [Character] = ["®", "°", "½", "¿", "™", "¢", "£", "♪", "à", " ", "è", "â", "ê", "î", "ô", "û"]
}
