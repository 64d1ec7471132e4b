import Foundation
import Lineup

extension Derivation {
    /// New recordings: one-off requests and programmes the rules ask for, earliest first so a
    /// new-episodes-only rule takes an episode's first airing.
    mutating func addCandidates() {
        var requested: [String: OneOffRequest] = [:]
        for request in input.oneOffs.sorted(by: { $0.id < $1.id }) {
            if active[request.id] != nil || input.existing.contains(where: { $0.id == request.id }) { continue }
            do {
                try request.validate()
            } catch {
                notes.append(ScheduleNote(.badRequest, "request \(request.id) was not scheduled: \(error.message)", recording: request.id))
                continue
            }
            switch request.target {
            case .timeRange(let channel, let start, let end, let title):
                addTimeRange(request, channel: channel, start: start, end: end, title: title)
            case .programme(let id):
                if let p = byID[id] { requested[p.id] = request } else { noteMissing(request, "programme \(id)") }
            case .programmeAt(let channel, let start):
                let found = programmes.first {
                    $0.channel == channel && abs($0.programme.start.timeIntervalSince(start)) < 1
                }
                if let p = found { requested[p.id] = request } else {
                    noteMissing(request, "a programme on channel \(channel) at \(Derivation.clock(start, calendar))")
                }
            }
        }
        for p in programmes {
            let request = requested[p.id]
            let wanting = p.programme.stop > input.now ? rulesWanting(p) : []
            if request == nil && wanting.isEmpty { continue }
            if let id = active.values.first(where: { $0.programmeID == p.id })?.id {
                if let request { merge(request, into: id) }
                continue
            }
            if request == nil && isClaimed(p) { continue }
            add(p, rules: wanting, request: request)
        }
    }

    private mutating func add(_ p: GuideProgramme, rules wanting: [RecordingRule], request: OneOffRequest?) {
        let data = ProgrammeData(p.programme)
        let key = ProgrammeChecks.episodeKey(data)
        let repeats = episodes.contains(key)
        let taking = wanting.filter { !($0.newEpisodesOnly && repeats) }
        if taking.count < wanting.count {
            let names = wanting.filter { $0.newEpisodesOnly }.map(\.id.rawValue).joined(separator: ", ")
            notes.append(ScheduleNote(
                .repeatSkipped, "“\(data.title)” on channel \(p.channel) at \(Derivation.clock(data.start, calendar)) "
                    + "is an episode recorded or scheduled already (rule \(names))",
                rule: wanting.first { $0.newEpisodesOnly }?.id, programmeID: p.id))
        }
        if taking.isEmpty && request == nil { return }
        var padding = request?.padding ?? taking[0].padding
        for rule in taking { padding = padding.union(rule.padding) }
        let priority = taking.map(\.priority).reduce(request?.priority ?? Int.min, max)
        let recording = Recording(
            id: request?.id ?? RecordingScheduler.recordingID(forProgramme: p.id), channel: p.channel, programme: data,
            paddedStart: data.start.addingTimeInterval(-padding.before), paddedEnd: data.stop.addingTimeInterval(padding.after),
            rules: taking.map(\.id), isOneOff: request != nil, priority: priority, programmeID: p.id)
        active[recording.id] = recording
        claim(recording)
        episodes.insert(key)
    }

    /// A one-off for a programme that is scheduled already: the same recording, now asked for on
    /// its own too.
    private mutating func merge(_ request: OneOffRequest, into id: RecordingID) {
        guard var r = active[id] else { return }
        let padding = Padding(before: r.programme.start.timeIntervalSince(r.paddedStart),
                              after: r.paddedEnd.timeIntervalSince(r.programme.stop)).union(request.padding)
        r.isOneOff = true
        r.priority = max(r.priority, request.priority)
        r.paddedStart = r.programme.start.addingTimeInterval(-padding.before)
        r.paddedEnd = r.programme.stop.addingTimeInterval(padding.after)
        active[id] = r
    }

    private mutating func addTimeRange(_ request: OneOffRequest, channel: ChannelNumber, start: Date, end: Date, title: String?) {
        if let problem = ProgrammeChecks.problem(start: start, end: end) {
            notes.append(ScheduleNote(.badRequest, "the time range on channel \(channel) was not scheduled: \(problem)",
                                      recording: request.id))
            return
        }
        let name = title.flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 } ?? "Channel \(channel)"
        let recording = Recording(
            id: request.id, channel: channel, programme: ProgrammeData(title: name, start: start, stop: end),
            paddedStart: start, paddedEnd: end, isOneOff: true, priority: request.priority)
        active[recording.id] = recording
        claim(recording)
    }

    private mutating func noteMissing(_ request: OneOffRequest, _ what: String) {
        notes.append(ScheduleNote(.badRequest, "\(what) is not in the guide; nothing was scheduled", recording: request.id))
    }

    /// A rule that asks for no programme of the horizon is said, not an error.
    mutating func noteIdleRules() {
        let used = Set(programmes.filter { $0.programme.stop > input.now }.flatMap { rulesWanting($0).map(\.id) })
        for (rule, _) in rules where !used.contains(rule.id) {
            notes.append(ScheduleNote(.ruleMatchedNothing, "rule \(rule.id) (“\(rule.title.text)”) matches no programme in the guide",
                                      rule: rule.id))
        }
    }
}
