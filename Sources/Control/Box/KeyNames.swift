import Foundation

extension Key {
    /// The key's name in key maps (`info`, `page-up`, `5`, `red`).
    public var name: String {
        switch self {
        case .up: "up"
        case .down: "down"
        case .pageUp: "page-up"
        case .pageDown: "page-down"
        case .left: "left"
        case .right: "right"
        case .plus: "plus"
        case .minus: "minus"
        case .digit(let d): String(d)
        case .dot: "dot"
        case .enter: "enter"
        case .backspace: "backspace"
        case .quit: "quit"
        case .info: "info"
        case .scope: "scope"
        case .pip: "pip"
        case .swap: "swap"
        case .multiview: "multiview"
        case .back: "back"
        case .red: "red"
        case .green: "green"
        case .yellow: "yellow"
        case .blue: "blue"
        case .playPause: "play-pause"
        case .rewind: "rewind"
        case .fastForward: "fast-forward"
        case .stop: "stop"
        case .skipBack: "skip-back"
        case .skipForward: "skip-forward"
        case .guide: "guide"
        case .favourites: "favourites"
        case .audio: "audio"
        case .subtitle: "subtitle"
        case .record: "record"
        case .recordings: "recordings"
        case .other: "none"
        }
    }

    /// Every key a key map can name, `none` (the key does nothing) included.
    public static let named: [Key] = [
        .up, .down, .pageUp, .pageDown, .left, .right, .plus, .minus,
    ] + (0...9).map(Key.digit) + [
        .dot, .enter, .backspace, .quit, .info, .scope, .pip, .swap, .multiview, .back,
        .red, .green, .yellow, .blue, .playPause, .rewind, .fastForward, .stop, .guide,
        .favourites, .audio, .subtitle, .skipBack, .skipForward, .record, .recordings, .other,
    ]

    /// The key called `name` (case-insensitive; `_` and `-` alike; `epg` is `guide`,
    /// `favorites` is `favourites`, `ok` is `enter`, `last` is `back`); nil for an unknown name.
    public init?(name: String) {
        let wanted = name.lowercased().replacingOccurrences(of: "_", with: "-")
        let aliases = ["epg": "guide", "favorites": "favourites", "ok": "enter", "last": "back",
                       "channel-up": "page-up", "channel-down": "page-down", "playpause": "play-pause",
                       "fastforward": "fast-forward", "pageup": "page-up", "pagedown": "page-down"]
        let canonical = aliases[wanted] ?? wanted
        guard let key = Key.named.first(where: { $0.name == canonical }) else { return nil }
        self = key
    }
}
