import Foundation
import Lineup
import Parental

/// Which channels' content is locked now, and until when: the parental rules applied to the
/// programme on each channel (or the channel's own `rating:`), locked channels, and unlocks
/// given with the PIN. A pure value with wall-clock times; the player asks the guide, records
/// the answers here, feeds the changes to the switcher machine (`setLock`) and sets one timer at
/// `nextChange`, the first moment any answer may change (a programme boundary, an unlock
/// running out, or the periodic re-check that picks up a refreshed guide).
struct ContentLocks: Sendable {
    /// One channel's answer: locked (the reason) or not, valid until `until`.
    struct Entry: Sendable, Hashable {
        var reason: String?
        var until: Date
    }

    /// Answers are looked at again at least this often (a guide refresh may have changed them).
    static let recheck: TimeInterval = 600
    /// How long an unlock lasts when neither the rules nor the guide say (no programme known).
    static let unlockWithoutProgramme: TimeInterval = 3600

    let rules: ParentalRules
    private(set) var channelRatings: [ContentRating?]
    private(set) var lockedChannels: Set<Int>
    private(set) var entries: [Int: Entry] = [:]
    private(set) var unlockedUntil: [Int: Date] = [:]

    init(rules: ParentalRules, channels: [Channel], locked: Set<ChannelNumber>) {
        self.rules = rules
        channelRatings = channels.map { c in c.contentRating.map { ContentRating(system: nil, value: $0) } }
        lockedChannels = Set(channels.indices.filter { locked.contains(channels[$0].number) })
    }

    /// Whether anything can be locked (else the player asks nothing).
    var isActive: Bool { rules.isActive || !lockedChannels.isEmpty }

    /// Whether the guide's programmes matter (else only locked channels and unlocks do).
    var needsProgrammes: Bool { rules.isActive }

    /// The answer for `channel` at `instant`, with `on` what the guide says is on then.
    func decide(channel: Int, on: NowNext, at instant: Date) -> Entry {
        var until = instant.addingTimeInterval(Self.recheck)
        if needsProgrammes {
            if let now = on.now, now.end > instant { until = min(until, now.end) }
            else if let next = on.next, next.start > instant { until = min(until, next.start) }
        }
        if let unlocked = unlockedUntil[channel], unlocked > instant {
            return Entry(reason: nil, until: min(until, unlocked))
        }
        let reason = rules.lockReason(channelLocked: lockedChannels.contains(channel), programme: on.now?.ratings ?? [],
                                      channel: channelRatings[channel])
        return Entry(reason: reason, until: until)
    }

    /// Whether `channel`'s answer must be looked at again at `instant`.
    func isStale(_ channel: Int, at instant: Date) -> Bool {
        guard let entry = entries[channel] else { return true }
        return entry.until <= instant
    }

    /// The first moment an answer may change; nil before any is recorded.
    var nextChange: Date? { entries.values.map(\.until).min() }

    /// Whether `channel` is locked by the last answer.
    func reason(_ channel: Int) -> String? { entries[channel]?.reason }

    mutating func record(_ channel: Int, _ entry: Entry) {
        entries[channel] = entry
    }

    /// Unlocks `channel` from `instant`: for the rules' unlock time, else until the programme on
    /// it ends, else for an hour. Returns when the unlock ends. The answer must be looked at again.
    mutating func unlock(_ channel: Int, on: NowNext, at instant: Date) -> Date {
        let until: Date
        if let duration = rules.unlockDuration {
            until = instant.addingTimeInterval(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
        } else if let now = on.now, now.end > instant {
            until = now.end
        } else {
            until = instant.addingTimeInterval(Self.unlockWithoutProgramme)
        }
        unlockedUntil[channel] = until
        entries.removeValue(forKey: channel)
        return until
    }

    /// The lineup read again (`Lineup.taking`): `channels` by slot, the channels in `changed`
    /// (new, or changed in place: a new rating, a new number a `--locked` number names) looked at
    /// again at the next `refreshLocks`.
    mutating func take(channels: [Channel], locked: Set<ChannelNumber>, changed: [Int]) {
        channelRatings = channels.map { c in c.contentRating.map { ContentRating(system: nil, value: $0) } }
        lockedChannels = Set(channels.indices.filter { locked.contains(channels[$0].number) })
        for slot in changed { entries.removeValue(forKey: slot) }
    }

    /// Forgets every answer (the guide was refreshed).
    mutating func forgetAnswers() { entries = [:] }
}
