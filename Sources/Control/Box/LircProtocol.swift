import Foundation

/// lircd's socket protocol, read side. Pure: bytes in, events out.
///
/// lircd writes one line per decoded IR frame, `<code hex> <repeat count hex> <button> <remote>`
/// (`0000000000f40bf0 00 KEY_CHANNELUP samsung`), the repeat count 0 for a press and counting up
/// while the button is held. Replies to commands and broadcasts (`SIGHUP` after a reload) come as
/// blocks from a `BEGIN` line to an `END` line; everything in a block is skipped, even lines that
/// look like buttons (a `LIST` reply's data). Any other line is ``Event/garbage(_:)``.
public struct LircProtocol: Sendable {
    public enum Event: Sendable, Equatable {
        /// A button: `repeat` is 0 for a press, then 1, 2, ... while it is held.
        case button(name: String, repeat: Int, remote: String)
        /// A line that is not lircd's protocol (cut to ``longestLine`` bytes).
        case garbage(String)
    }

    /// Longer lines are not lircd's: the bytes so far are reported as garbage and dropped.
    public static let longestLine = 1024

    private var pending: [UInt8] = []
    private var inReply = false
    /// Bytes of an over-long line to drop up to its newline.
    private var skippingLongLine = false

    public init() {}

    /// Forgets a partial line and an open reply block (after a reconnect).
    public mutating func reset() { self = LircProtocol() }

    /// The events of the complete lines in `bytes` (with what earlier calls left over).
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Event] {
        var events: [Event] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if skippingLongLine { skippingLongLine = false } else if let event = line(String(decoding: pending, as: UTF8.self)) {
                    events.append(event)
                }
                pending.removeAll(keepingCapacity: true)
            } else if !skippingLongLine {
                pending.append(byte)
                if pending.count > Self.longestLine {
                    events.append(.garbage(String(decoding: pending.prefix(Self.longestLine), as: UTF8.self)))
                    pending.removeAll(keepingCapacity: true)
                    skippingLongLine = true
                }
            }
        }
        return events
    }

    private mutating func line(_ raw: String) -> Event? {
        let text = raw.hasSuffix("\r") ? String(raw.dropLast()) : raw
        if inReply {
            if text == "END" { inReply = false }
            return nil
        }
        if text == "BEGIN" {
            inReply = true
            return nil
        }
        guard !text.isEmpty else { return nil }
        let fields = text.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: true)
        guard fields.count == 4, UInt64(fields[0], radix: 16) != nil, let count = Int(fields[1], radix: 16), count >= 0 else {
            return .garbage(text)
        }
        return .button(name: String(fields[2]), repeat: count, remote: String(fields[3]).trimmingCharacters(in: .whitespaces))
    }
}
