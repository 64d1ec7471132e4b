import Lineup

/// A channel number being typed on the remote: digits (and one `.` for a sub-channel) that commit on
/// Enter, when the fourth digit is typed, or after `timeout` without input. Pure; the caller supplies
/// the time and calls ``expire(now:)`` at or after ``deadline``.
public struct ChannelNumberEntry: Sendable, Hashable {
    /// What the caller should do after an input.
    public enum Action: Sendable, Hashable {
        /// Show the entry so far (for example `12_`).
        case show(String)
        /// Tune to this number; the entry is now empty.
        case commit(ChannelNumber)
        /// The entry was emptied without a number; hide it.
        case cancel
        /// The input changed nothing.
        case ignore
    }

    public static let defaultTimeout: Duration = .milliseconds(1500)
    public static let maximumDigits = 4

    public let timeout: Duration
    /// What was typed so far, e.g. `9.` or `12`.
    public private(set) var text = ""
    /// When the entry commits by itself; nil when nothing is typed.
    public private(set) var deadline: ContinuousClock.Instant?

    public init(timeout: Duration = ChannelNumberEntry.defaultTimeout) {
        self.timeout = timeout
    }

    /// Whether digits are being collected.
    public var isActive: Bool { !text.isEmpty }

    private var digitCount: Int { text.count(where: { $0 != "." }) }

    /// Adds a digit `0...9`; commits at once when it is the fourth.
    public mutating func type(digit: Int, now: ContinuousClock.Instant) -> Action {
        guard (0...9).contains(digit), digitCount < Self.maximumDigits else { return .ignore }
        text += String(digit)
        if digitCount == Self.maximumDigits { return commit() }
        deadline = now + timeout
        return .show(text)
    }

    /// Adds the sub-channel separator; ignored before the first digit or when one is already there.
    public mutating func typeDot(now: ContinuousClock.Instant) -> Action {
        guard !text.isEmpty, !text.contains(".") else { return .ignore }
        text += "."
        deadline = now + timeout
        return .show(text)
    }

    /// Deletes the last character; cancels when nothing is left.
    public mutating func deleteLast(now: ContinuousClock.Instant) -> Action {
        guard !text.isEmpty else { return .ignore }
        text.removeLast()
        if text.isEmpty { return cancel() }
        deadline = now + timeout
        return .show(text)
    }

    /// Commits what was typed (Enter). A trailing `.` is dropped; nothing typed is `.ignore`.
    public mutating func commit() -> Action {
        guard !text.isEmpty else { return .ignore }
        let typed = text.hasSuffix(".") ? String(text.dropLast()) : text
        text = ""
        deadline = nil
        guard let number = ChannelNumber(typed) else { return .cancel }
        return .commit(number)
    }

    /// Empties the entry without tuning.
    public mutating func cancel() -> Action {
        text = ""
        deadline = nil
        return .cancel
    }

    /// Commits when `now` is at or past the deadline; `.ignore` otherwise.
    public mutating func expire(now: ContinuousClock.Instant) -> Action {
        guard let deadline, now >= deadline else { return .ignore }
        return commit()
    }
}
