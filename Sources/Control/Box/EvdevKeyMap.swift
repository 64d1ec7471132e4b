import Foundation
import Lineup

/// Which ``Key`` each Linux key code (`KEY_*`) produces. Pure.
///
/// The default map covers remotes, keyboards and IR receivers: channel and page keys flip, arrows
/// move, digits (top row and `KEY_NUMERIC_*`) tune, Enter/OK select, Back/Backspace/Last recall,
/// Info, EPG, the colour, transport, audio, subtitle and favourites keys. Entries from the lineup's
/// settings (`keymap.KEY_F1: info`) or a key-map file (`KEY_F1: info`, one a line) replace or add
/// to it; `none` makes a key do nothing. An entry that cannot be read is skipped and returned as a
/// ``KeyMapError``; the entries that read still apply. LIRC's buttons are looked up by name: a Linux key code
/// name (lircd's standard namespace) goes through the same entries, and `lirc.NAME: key` maps a
/// button name of any other form (`lirc.ch_up: page-up`).
public struct EvdevKeyMap: Sendable, Hashable {
    public private(set) var keys: [UInt16: Key]
    /// LIRC button names (upper-cased) that are not Linux key code names, from `lirc.NAME` entries.
    public private(set) var buttons: [String: Key] = [:]

    public init(keys: [UInt16: Key]) { self.keys = keys }

    /// The key a press of `code` produces; nil when the map has none.
    public func key(for code: UInt16) -> Key? {
        guard let key = keys[code], key != .other else { return nil }
        return key
    }

    /// The key a LIRC button named `name` produces: a `lirc.NAME` entry, else the entry of the
    /// Linux key code of that name (`KEY_CHANNELUP`); nil when the map has none.
    public func key(button name: String) -> Key? {
        if let key = buttons[name.uppercased()] { return key == .other ? nil : key }
        guard let code = EvdevKeyCodes.byName[name.uppercased()] else { return nil }
        return key(for: code)
    }

    public static let standard: EvdevKeyMap = {
        var map: [String: Key] = [
            "KEY_CHANNELUP": .pageUp, "KEY_CHANNELDOWN": .pageDown,
            "KEY_PAGEUP": .pageUp, "KEY_PAGEDOWN": .pageDown,
            "KEY_UP": .up, "KEY_DOWN": .down, "KEY_LEFT": .left, "KEY_RIGHT": .right,
            "KEY_ENTER": .enter, "KEY_KPENTER": .enter, "KEY_OK": .enter, "KEY_SELECT": .enter,
            "KEY_BACK": .back, "KEY_BACKSPACE": .backspace, "KEY_LAST": .back,
            "KEY_INFO": .info, "KEY_EPG": .guide, "KEY_PROGRAM": .guide,
            "KEY_RED": .red, "KEY_GREEN": .green, "KEY_YELLOW": .yellow, "KEY_BLUE": .blue,
            "KEY_PLAYPAUSE": .playPause, "KEY_PLAY": .playPause, "KEY_PAUSE": .playPause,
            "KEY_REWIND": .rewind, "KEY_FASTFORWARD": .fastForward, "KEY_STOP": .stop, "KEY_RECORD": .record, "KEY_PVR": .recordings, "KEY_LIST": .recordings,
            "KEY_PREVIOUS": .skipBack, "KEY_NEXT": .skipForward, "KEY_PREVIOUSSONG": .skipBack, "KEY_NEXTSONG": .skipForward,
            "KEY_AUDIO": .audio, "KEY_SUBTITLE": .subtitle, "KEY_FAVORITES": .favourites,
            "KEY_DOT": .dot, "KEY_KPDOT": .dot, "KEY_KPPLUS": .plus, "KEY_KPMINUS": .minus,
        ]
        for d in 0...9 {
            map["KEY_\(d)"] = .digit(d)
            map["KEY_NUMERIC_\(d)"] = .digit(d)
            map["KEY_KP\(d)"] = .digit(d)
        }
        var keys: [UInt16: Key] = [:]
        for (name, key) in map {
            guard let code = EvdevKeyCodes.byName[name] else { preconditionFailure("\(name) is not a Linux key code") }
            keys[code] = key
        }
        return EvdevKeyMap(keys: keys)
    }()

    /// The code of a `KEY_*`/`BTN_*` name (case-insensitive, `KEY_` optional) or a number.
    public static func code(named name: String) -> UInt16? {
        let upper = name.uppercased()
        if let number = UInt16(upper) { return number }
        return EvdevKeyCodes.byName[upper] ?? EvdevKeyCodes.byName["KEY_" + upper]
    }

    /// Sets `codeName` to produce `keyName`. `place` names where the entry came from, for the error.
    public mutating func set(_ codeName: String, to keyName: String, place: String) throws(KeyMapError) {
        let codeName = codeName.trimmingCharacters(in: .whitespaces)
        let keyName = keyName.trimmingCharacters(in: .whitespaces)
        if codeName.lowercased().hasPrefix("lirc."), codeName.count > "lirc.".count {
            buttons[String(codeName.dropFirst("lirc.".count)).uppercased()] = try Self.key(named: keyName, place: place)
            return
        }
        guard let code = Self.code(named: codeName) else {
            throw .entry(.unknownCode, place: place, "'\(codeName)' is not a Linux key code name (KEY_F1, KEY_RED, ... as in linux/input-event-codes.h, or a number; lirc.NAME for a LIRC button of another name)")
        }
        keys[code] = try Self.key(named: keyName, place: place)
    }

    private static func key(named keyName: String, place: String) throws(KeyMapError) -> Key {
        guard let key = Key(name: keyName) else {
            throw .entry(.unknownKey, place: place, "'\(keyName)' is not a key; use one of \(Key.named.map(\.name).joined(separator: ", "))")
        }
        return key
    }

    /// Applies the `keymap.KEY_...` entries of a lineup's settings, in name order. An entry that
    /// cannot be read is skipped; the errors of those skipped, in order.
    public mutating func apply(settings: [String: String], lineupPath: String) -> [KeyMapError] {
        var skipped: [KeyMapError] = []
        for (name, value) in settings.sorted(by: { $0.key < $1.key }) where name.hasPrefix("keymap.") {
            do { try set(String(name.dropFirst("keymap.".count)), to: value, place: "\(lineupPath): settings.\(name)") } catch {
                skipped.append(error)
            }
        }
        return skipped
    }

    /// Applies a key-map file's text: `KEY_NAME: key` a line (`=` works too); `#` starts a comment;
    /// a `keymap.` prefix is allowed. A line that cannot be read is skipped; the errors of those
    /// skipped, in order, each with its FILE:LINE.
    public mutating func apply(file text: String, path: String) -> [KeyMapError] {
        var skipped: [KeyMapError] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            let place = "\(path):\(index + 1)"
            guard let separator = line.firstIndex(where: { $0 == ":" || $0 == "=" }) else {
                skipped.append(.entry(.unreadable, place: place, "expected 'KEY_NAME: key', e.g. 'KEY_F1: info'"))
                continue
            }
            var code = String(line[..<separator]).trimmingCharacters(in: .whitespaces)
            if code.lowercased().hasPrefix("keymap.") { code = String(code.dropFirst("keymap.".count)) }
            do { try set(code, to: String(line[line.index(after: separator)...]), place: place) } catch {
                skipped.append(error)
            }
        }
        return skipped
    }
}

/// A key map entry that could not be read. The message says where (FILE:LINE or the setting) and
/// what to write instead: `keys.conf:3: expected 'KEY_NAME: key', e.g. 'KEY_F1: info'`.
public typealias KeyMapError = Failure<KeyMapCode>

public enum KeyMapCode: String, FailureCode {
    /// A line of a key-map file is not `KEY_NAME: key`.
    case unreadable
    /// The entry's name is not a Linux key code name, a number or `lirc.NAME`.
    case unknownCode
    /// The entry's value is not one of the box's keys.
    case unknownKey

    public var kind: FailureKind { .badRequest }
}

extension Failure where Code == KeyMapCode {
    /// `place: what`, where `place` is the entry's FILE:LINE or setting.
    static func entry(_ code: KeyMapCode, place: String, _ what: String) -> KeyMapError {
        KeyMapError(code, "\(place): \(what)")
    }
}
