import Foundation
import Lineup

/// Derives the schedule from rules, one-off requests, the guide and what is stored. Pure: the
/// same input gives the same schedule, with ids that do not depend on the order of calls.
///
/// - A recording in progress is kept exactly as it is.
/// - A scheduled recording follows its programme when the guide changes: by the programme's
///   id, else by channel, title and episode within ``ScheduleInput/moveWindow``; a programme
///   that vanished leaves the recording as it was, with a note.
/// - Rules that ask for the same programme make one recording naming them all (highest
///   priority, the most padding).
/// - The result is checked against the pools (``ConflictCheck``), with the guide's programmes
///   as the other channels to offer.
/// - New-episodes-only skips an airing whose episode is recorded or scheduled already.
public enum RecordingScheduler {
    public static func derive(_ input: ScheduleInput) -> Schedule {
        var derivation = Derivation(input)
        derivation.followExisting()
        derivation.addCandidates()
        derivation.noteIdleRules()
        return derivation.schedule()
    }

    /// The id of a recording a rule makes of a programme.
    public static func recordingID(forProgramme id: String) -> RecordingID { RecordingID("p:\(id)") }
}

/// One pass of ``RecordingScheduler/derive(_:)``.
struct Derivation {
    let input: ScheduleInput
    let calendar: Calendar
    /// Valid programmes, by start then channel.
    var programmes: [GuideProgramme] = []
    var byID: [String: GuideProgramme] = [:]
    var rules: [(rule: RecordingRule, title: TitleMatcher)] = []
    /// The rules that want each valid programme, by programme id: titles are matched once per
    /// distinct title (a pattern costs microseconds, and a guide has tens of thousands of
    /// programmes but far fewer titles).
    var wanted: [String: [RecordingRule]] = [:]
    var notes: [ScheduleNote] = []
    var active: [RecordingID: Recording] = [:]
    var dropped: [RecordingID] = []
    /// Programme ids and `channel@start` slots that a stored recording already covers.
    var claimed: Set<String> = []
    /// Episode keys recorded, being recorded or scheduled.
    var episodes: Set<String> = []

    init(_ input: ScheduleInput) {
        self.input = input
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = input.timeZone
        self.calendar = calendar
        for p in input.programmes {
            if let problem = ProgrammeChecks.problem(with: p.programme) {
                notes.append(ScheduleNote(.badProgramme, "programme \(p.id) on channel \(p.channel) was left out: \(problem)",
                                          programmeID: p.id))
            } else if byID[p.id] == nil {
                byID[p.id] = p
                programmes.append(p)
            }
        }
        programmes.sort { ($0.programme.start, $0.channel, $0.id) < ($1.programme.start, $1.channel, $1.id) }
        for rule in input.rules.sorted(by: { $0.id < $1.id }) {
            do {
                try rule.validate()
                rules.append((rule, try TitleMatcher(rule.title)))
            } catch {
                notes.append(ScheduleNote(.badRule, "rule \(rule.id) was left out: \(error.message)", rule: rule.id))
            }
        }
        var byTitle: [String: [RecordingRule]] = [:]
        for p in programmes {
            let title = p.programme.title
            let named: [RecordingRule]
            if let known = byTitle[title] {
                named = known
            } else {
                let folded = TitleMatcher.folded(title)
                named = rules.filter { $0.title.matches(title, folded: folded) }.map(\.rule)
                byTitle[title] = named
            }
            let wanting = named.filter { $0.wantsSlot(of: p, calendar: calendar) }
            if !wanting.isEmpty { wanted[p.id] = wanting }
        }
    }

    func rulesWanting(_ p: GuideProgramme) -> [RecordingRule] { wanted[p.id] ?? [] }

    static func slot(_ channel: ChannelNumber, _ start: Date) -> String {
        GuideProgramme.derivedID(channel: channel, start: start)
    }

    mutating func claim(_ r: Recording) {
        if let id = r.programmeID { claimed.insert(id) }
        claimed.insert(Self.slot(r.channel, r.programme.start))
        claimed.insert("id:\(r.id.rawValue)")
    }

    func isClaimed(_ p: GuideProgramme) -> Bool {
        claimed.contains(p.id) || claimed.contains(Self.slot(p.channel, p.programme.start))
            || claimed.contains("id:\(RecordingScheduler.recordingID(forProgramme: p.id).rawValue)")
    }

    // MARK: Stored recordings

    mutating func followExisting() {
        let stored = input.existing.sorted { ($0.paddedStart, $0.id) < ($1.paddedStart, $1.id) }
        for r in stored where r.state != .scheduled {
            claim(r)
            switch r.state {
            case .recording:
                active[r.id] = r
                episodes.insert(ProgrammeChecks.episodeKey(r.programme))
            case .done, .partial:
                episodes.insert(ProgrammeChecks.episodeKey(r.programme))
            case .failed, .cancelled, .scheduled:
                break
            }
        }
        for r in stored where r.state == .scheduled {
            follow(r)
        }
    }

    private mutating func follow(_ stored: Recording) {
        var r = stored
        if let channels = input.channels, !channels.contains(r.channel) {
            notes.append(ScheduleNote(.channelRemoved, "channel \(r.channel) of “\(r.programme.title)” is no longer in the lineup",
                                      recording: r.id))
        }
        if r.paddedEnd <= input.now {
            notes.append(ScheduleNote(.missed, "“\(r.programme.title)” on channel \(r.channel) ended at "
                + "\(Self.clock(r.paddedEnd, calendar)) and was never recorded", recording: r.id, programmeID: r.programmeID))
            keep(r)
            return
        }
        guard let programmeID = r.programmeID else {
            keep(r)
            return
        }
        guard let current = byID[programmeID] ?? moved(r) else {
            r.note = "“\(r.programme.title)” is no longer in the guide; recording the time it had"
            notes.append(ScheduleNote(.vanished, r.note ?? "", recording: r.id, programmeID: programmeID))
            keep(r)
            return
        }
        let wanting = rulesWanting(current)
        if wanting.isEmpty && !r.isOneOff {
            dropped.append(r.id)
            notes.append(ScheduleNote(.noLongerAsked, "“\(r.programme.title)” is no longer asked for by any rule", recording: r.id,
                                      programmeID: current.id))
            return
        }
        // A one-off keeps the padding it was asked with; a rule's recording takes its rules' now.
        var padding = r.isOneOff
            ? Padding(before: clampPadding(r.programme.start.timeIntervalSince(r.paddedStart)),
                      after: clampPadding(r.paddedEnd.timeIntervalSince(r.programme.stop)))
            : Padding.none
        for rule in wanting { padding = padding.union(rule.padding) }
        let old = r.programme
        r.programme = ProgrammeData(current.programme)
        r.programmeID = current.id
        r.rules = wanting.map(\.id)
        r.priority = wanting.map(\.priority).reduce(r.isOneOff ? r.priority : Int.min, max)
        r.paddedStart = current.programme.start.addingTimeInterval(-padding.before)
        r.paddedEnd = current.programme.stop.addingTimeInterval(padding.after)
        if old.start != r.programme.start || old.stop != r.programme.stop {
            r.note = "“\(old.title)” moved in the guide from \(Self.clock(old.start, calendar))–\(Self.clock(old.stop, calendar))"
                + " to \(Self.clock(r.programme.start, calendar))–\(Self.clock(r.programme.stop, calendar))"
            notes.append(ScheduleNote(.moved, r.note ?? "", recording: r.id, programmeID: current.id))
        }
        claimed.insert(programmeID)
        keep(r)
    }

    private mutating func keep(_ r: Recording) {
        active[r.id] = r
        claim(r)
        episodes.insert(ProgrammeChecks.episodeKey(r.programme))
    }

    private func clampPadding(_ seconds: TimeInterval) -> TimeInterval {
        guard seconds.isFinite else { return 0 }
        return min(max(seconds, 0), Padding.maximum)
    }

    /// The programme on the same channel with the same title and episode, nearest in time
    /// within the move window, that no other recording has.
    private func moved(_ r: Recording) -> GuideProgramme? {
        let key = ProgrammeChecks.episodeKey(r.programme)
        return programmes
            .filter {
                $0.channel == r.channel && !claimed.contains($0.id)
                    && abs($0.programme.start.timeIntervalSince(r.programme.start)) <= input.moveWindow
                    && ProgrammeChecks.episodeKey(ProgrammeData($0.programme)) == key
            }
            .min { abs($0.programme.start.timeIntervalSince(r.programme.start)) < abs($1.programme.start.timeIntervalSince(r.programme.start)) }
    }

    /// `Fri 20:00`, in the box's zone.
    static func clock(_ date: Date, _ calendar: Calendar) -> String {
        let c = calendar.dateComponents([.weekday, .hour, .minute], from: date)
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let day = c.weekday.flatMap { (1...7).contains($0) ? names[$0 - 1] : nil } ?? ""
        let hour = c.hour ?? 0
        let minute = c.minute ?? 0
        return "\(day) \(hour < 10 ? "0" : "")\(hour):\(minute < 10 ? "0" : "")\(minute)"
    }

    func schedule() -> Schedule {
        let recordings = active.values.sorted { ($0.paddedStart, $0.id) < ($1.paddedStart, $1.id) }
        let conflicts = ConflictCheck.conflicts(in: recordings, pools: input.pools, programmes: programmes)
        return Schedule(recordings: recordings, notes: notes, dropped: dropped, conflicts: conflicts)
    }
}
