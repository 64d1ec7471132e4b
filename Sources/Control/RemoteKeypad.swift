import FlipboxCore
import Switcher

/// The remote's buttons: maps ``Key``s to ``RemoteCommand``s, holding a ``ChannelNumberEntry``.
/// Pure; the caller supplies the time and calls ``expire(now:)`` at ``deadline``.
///
/// Up, Page Up, `+` → next; Down, Page Down, `-` → previous; digits and `.` → number entry, committed
/// by Enter, a fourth digit or the timeout; Backspace (or a remote's Back) deletes a typed digit, else → recall; `i` → info;
/// `f` (or Favourites) → next flip scope (all, favourites, group); `p` → picture-in-picture, `s` → swap, `m` → multiview;
/// `a` (or Audio) → the next audio track; `c` (or Subtitle) → the next subtitle track, then off;
/// `q` → quit. Flipping with the arrows abandons a number being typed.
///
/// While the multiview is open (`multiviewOpen`, set from the player's answer to `m`), the four
/// arrows move its highlight and Enter tunes the highlighted channel (a typed number still wins).
///
/// While the lock card is up (`lockCardUp`, from the player's lock events), digits are the PIN,
/// shown as dots: Enter (or an eighth digit) unlocks, Backspace/Back deletes a digit (with none
/// typed, the last channel); the arrows still flip away, and drop what was typed.
public struct RemoteKeypad: Sendable, Hashable {
    public private(set) var entry: ChannelNumberEntry
    /// Whether the multiview is on screen; the arrows and Enter act on it then.
    public var multiviewOpen = false
    /// Whether the lock card is on screen; digits go to the PIN then.
    public var lockCardUp = false {
        didSet { if !lockCardUp { pin = "" } }
    }
    /// The PIN typed so far (never shown: only its length is).
    private var pin = ""
    /// Whether a proposal ("… OK to watch") is on screen: Enter accepts it, Back dismisses it.
    public var proposalUp = false
    /// Whether the on-screen guide is open: arrows and pages move it, Enter tunes, Back closes,
    /// the red key sets a reminder.
    public var guideOpen = false
    /// Whether the list of recordings is open: up and down move it, Enter plays, Back closes.
    public var recordingsOpen = false

    public init(entryTimeout: Duration = ChannelNumberEntry.defaultTimeout) {
        entry = ChannelNumberEntry(timeout: entryTimeout)
    }

    /// When a typed number commits by itself; nil when none is being typed.
    public var deadline: ContinuousClock.Instant? { entry.deadline }

    /// The commands for one key press, in order.
    public mutating func press(_ key: Key, now: ContinuousClock.Instant) -> [RemoteCommand] {
        guard lockCardUp else { return usual(key, now: now) }
        if let commands = pinKey(key) { return commands }
        // Flipping away (or any other key) drops a PIN half typed.
        let dropped: [RemoteCommand] = pin.isEmpty ? [] : [.showPIN(0)]
        pin = ""
        return dropped + usual(key, now: now)
    }

    private mutating func usual(_ key: Key, now: ContinuousClock.Instant) -> [RemoteCommand] {
        if recordingsOpen, !entry.isActive {
            switch key {
            case .up: return [.recordingsMove(.up)]
            case .down: return [.recordingsMove(.down)]
            case .pageUp, .plus, .left: return [.recordingsMove(.pageUp)]
            case .pageDown, .minus, .right: return [.recordingsMove(.pageDown)]
            case .enter: return [.recordingsSelect]
            case .backspace, .back, .recordings: return [.recordingsClose]
            default: break
            }
        }
        if guideOpen, !entry.isActive {
            switch key {
            case .up: return [.guideMove(.up)]
            case .down: return [.guideMove(.down)]
            case .left: return [.guideMove(.left)]
            case .right: return [.guideMove(.right)]
            case .pageUp, .plus: return [.guideMove(.pageUp)]
            case .pageDown, .minus: return [.guideMove(.pageDown)]
            case .enter: return [.guideSelect]
            case .backspace, .back: return [.guideClose]
            case .red: return [.guideRemind]
            case .record, .green: return [.guideRecord(series: false)]
            case .yellow: return [.guideRecord(series: true)]
            default: break
            }
        }
        if proposalUp, !entry.isActive {
            switch key {
            case .enter: return [.answerProposal(accept: true)]
            case .backspace, .back: return [.answerProposal(accept: false)]
            default: break
            }
        }
        if multiviewOpen, !entry.isActive {
            switch key {
            case .up: return [.multiviewMove(.up)]
            case .down: return [.multiviewMove(.down)]
            case .left: return [.multiviewMove(.left)]
            case .right: return [.multiviewMove(.right)]
            case .enter: return [.multiviewSelect]
            default: break
            }
        }
        switch key {
        case .up, .pageUp, .plus:
            return abandonEntry() + [.flip(.next)]
        case .down, .pageDown, .minus:
            return abandonEntry() + [.flip(.previous)]
        case .digit(let digit):
            return commands(for: entry.type(digit: digit, now: now))
        case .dot:
            return commands(for: entry.typeDot(now: now))
        case .enter:
            return commands(for: entry.commit())
        case .backspace, .back:
            return entry.isActive ? commands(for: entry.deleteLast(now: now)) : [.flip(.recall)]
        case .info:
            return [.info]
        case .scope, .favourites:
            return [.cycleScope]
        case .pip:
            return [.pip]
        case .swap:
            return [.swap]
        case .multiview:
            return abandonEntry() + [.multiview]
        case .left:
            return abandonEntry() + [.timeshift(.seekBy(.seconds(-10)))]
        case .right:
            return abandonEntry() + [.timeshift(.seekBy(.seconds(10)))]
        case .playPause:
            return abandonEntry() + [.timeshift(.togglePause)]
        case .rewind:
            return abandonEntry() + [.timeshift(.seekBy(.seconds(-60)))]
        case .fastForward:
            return abandonEntry() + [.timeshift(.seekBy(.seconds(60)))]
        case .stop:
            return abandonEntry() + [.timeshift(.live)]
        case .skipBack:
            return abandonEntry() + [.timeshift(.previousMarker)]
        case .skipForward:
            return abandonEntry() + [.timeshift(.nextMarker)]
        case .audio:
            return [.nextAudio]
        case .subtitle:
            return [.nextSubtitles]
        case .quit:
            return abandonEntry() + [.quit]
        case .guide:
            return abandonEntry() + [.guide]
        case .recordings:
            return abandonEntry() + [.recordings]
        case .red, .green, .yellow, .blue, .record, .other:
            return []
        }
    }

    /// A key of the PIN entry, or nil when the key keeps its usual meaning.
    private mutating func pinKey(_ key: Key) -> [RemoteCommand]? {
        switch key {
        case .digit(let digit):
            guard pin.count < 8 else { return [] }
            pin += String(digit)
            return pin.count == 8 ? submitPIN() : [.showPIN(pin.count)]
        case .enter:
            return pin.isEmpty ? nil : submitPIN()
        case .backspace, .back:
            guard !pin.isEmpty else { return nil }
            pin.removeLast()
            return [.showPIN(pin.count)]
        case .dot:
            return []
        default:
            return nil
        }
    }

    private mutating func submitPIN() -> [RemoteCommand] {
        defer { pin = "" }
        return [.unlock(pin: pin)]
    }

    /// The commands due at `now`: the typed number when its timeout has passed.
    public mutating func expire(now: ContinuousClock.Instant) -> [RemoteCommand] {
        commands(for: entry.expire(now: now))
    }

    private mutating func abandonEntry() -> [RemoteCommand] {
        entry.isActive ? commands(for: entry.cancel()) : []
    }

    private func commands(for action: ChannelNumberEntry.Action) -> [RemoteCommand] {
        switch action {
        case .show(let text): [.showEntry(text)]
        case .commit(let number): [.hideEntry, .flip(.tune(number))]
        case .cancel: [.hideEntry]
        case .ignore: []
        }
    }
}
