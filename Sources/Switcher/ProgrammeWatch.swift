import Foundation

/// A reminder: when `title` starts at `start` on channel `channelID`, the viewer is asked
/// whether to watch it.
public struct Reminder: Sendable, Hashable, Codable {
    public var id: Int64
    public var channelID: String
    public var title: String
    public var start: Date
    public init(id: Int64, channelID: String, title: String, start: Date) {
        self.id = id
        self.channelID = channelID
        self.title = title
        self.start = start
    }
}

/// What the programmes on screen ask for, as a value with wall-clock times (the guide's): a
/// programme change on the channel on screen, "Up next" shortly before a programme ends, and
/// a proposal when a reminded programme starts on another channel. Tested with made-up times.
///
/// The player calls `update` when the channel on screen changes, when the reminders change,
/// and at `nextLook`; `proposalAnswered` when the viewer answers (OK flips, Back dismisses).
public struct ProgrammeWatch: Sendable {
    public enum Action: Sendable, Hashable {
        /// The programme on the channel on screen changed (a boundary, not a flip).
        case programmeChanged(channelID: String, now: ProgrammeSummary?, next: ProgrammeSummary?)
        /// "Up next: TITLE at 20:00", for `upNextShown`.
        case showUpNext(ProgrammeSummary)
        case hideUpNext
        /// "TITLE starts now on 5 — OK to watch", until answered or `proposalTimeout`.
        case propose(Reminder)
        /// The proposal goes (answered, timed out, or the viewer went to that channel).
        case withdrawProposal(Reminder)
    }

    /// How long before a programme ends its successor is announced.
    public var upNextLead: TimeInterval
    /// How long the announcement stays.
    public var upNextShown: TimeInterval
    /// How long a proposal waits for an answer.
    public var proposalTimeout: TimeInterval
    /// A reminder whose programme started longer ago than this is not proposed any more.
    public static let proposalGrace: TimeInterval = 120
    /// Programmes are looked at again at least this often (a refreshed guide).
    public static let recheck: TimeInterval = 600

    private var channelID: String?
    private var shownNow: ProgrammeSummary?
    /// The programme whose successor was announced, and until when the announcement stays.
    private var announcedFor: ProgrammeSummary?
    private var upNextUntil: Date?
    private var reminders: [Reminder] = []
    public private(set) var proposal: (reminder: Reminder, until: Date)?

    public init(upNextLead: TimeInterval = 60, upNextShown: TimeInterval = 8, proposalTimeout: TimeInterval = 30) {
        self.upNextLead = upNextLead
        self.upNextShown = upNextShown
        self.proposalTimeout = proposalTimeout
    }

    /// The reminders not yet proposed (the player removes a proposed one from its store).
    public mutating func setReminders(_ list: [Reminder]) {
        reminders = list.sorted { $0.start < $1.start }
    }

    /// What to do at `instant`, with `channelID` on screen (nil: none) and `on` what is on it.
    public mutating func update(channelID: String?, on: NowNext, at instant: Date) -> [Action] {
        var actions: [Action] = []
        if channelID != self.channelID {
            // A flip: the new channel's programme is no change; its announcement starts afresh.
            self.channelID = channelID
            shownNow = on.now
            if upNextUntil != nil { actions.append(.hideUpNext) }
            announcedFor = nil
            upNextUntil = nil
        } else if let channelID, on.now != shownNow {
            shownNow = on.now
            actions.append(.programmeChanged(channelID: channelID, now: on.now, next: on.next))
        }
        if let until = upNextUntil, instant >= until || announcedFor != on.now {
            upNextUntil = nil
            actions.append(.hideUpNext)
        }
        if let now = on.now, let next = on.next, channelID != nil, announcedFor != now,
           now.end.timeIntervalSince(instant) <= upNextLead, instant < now.end {
            announcedFor = now
            upNextUntil = min(instant.addingTimeInterval(upNextShown), now.end)
            actions.append(.showUpNext(next))
        }
        if let p = proposal, instant >= p.until || p.reminder.channelID == channelID {
            proposal = nil
            actions.append(.withdrawProposal(p.reminder))
        }
        // Reminders due: the first one starting now on another channel is proposed; a reminder
        // for the channel on screen, or one long past, is spent without a proposal.
        while let first = reminders.first, first.start <= instant {
            reminders.removeFirst()
            guard first.channelID != channelID, instant.timeIntervalSince(first.start) <= Self.proposalGrace, proposal == nil else { continue }
            proposal = (first, instant.addingTimeInterval(proposalTimeout))
            actions.append(.propose(first))
        }
        return actions
    }

    /// The viewer answered the proposal (OK or Back): it goes.
    public mutating func proposalAnswered() -> [Action] {
        guard let p = proposal else { return [] }
        proposal = nil
        return [.withdrawProposal(p.reminder)]
    }

    /// The next moment `update` may have something to do, with `on` what is on the channel on screen.
    public func nextLook(on: NowNext, at instant: Date) -> Date {
        var candidates = [instant.addingTimeInterval(Self.recheck)]
        if let now = on.now, now.end > instant {
            candidates.append(now.end)
            let announce = now.end.addingTimeInterval(-upNextLead)
            if announce > instant { candidates.append(announce) }
        } else if let next = on.next, next.start > instant {
            candidates.append(next.start)
        }
        if let until = upNextUntil { candidates.append(until) }
        if let p = proposal { candidates.append(p.until) }
        if let first = reminders.first { candidates.append(max(instant, first.start)) }
        return candidates.min() ?? instant
    }
}
