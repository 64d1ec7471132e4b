import Foundation
import Guide
import Parental
import Switcher

/// The XMLTV guide as the player asks it: now and next on a channel.
struct GuideProgrammes: ProgrammeGuide {
    let guide: Guide

    func nowNext(channelID: String, at instant: Date) -> NowNext {
        let found = guide.nowNext(channelID: channelID, at: instant)
        return NowNext(now: found.now.map(Self.summary), next: found.next.map(Self.summary))
    }

    func programmes(channelIDs: [String], from: Date, to: Date) -> [String: [ProgrammeSummary]] {
        ((try? guide.programmes(channelIDs: channelIDs, from: from, to: to)) ?? [:]).mapValues { $0.map(Self.summary) }
    }

    static func summary(_ p: Programme) -> ProgrammeSummary {
        ProgrammeSummary(title: p.title, start: p.start, end: p.stop, description: p.description, rating: p.ratings.first?.value,
                         ratings: p.ratings.map { ContentRating(system: $0.system, value: $0.value) })
    }
}

/// The reminders kept beside the guide, as the player uses them. A store that cannot be read
/// answers no reminders (and the guide's logger has said why at the API).
struct GuideReminders: ReminderBook {
    let store: ReminderStore

    func pending() -> [Reminder] {
        ((try? store.all()) ?? []).map { Reminder(id: $0.id, channelID: $0.channelID, title: $0.title, start: $0.start) }
    }

    func spend(_ id: Int64) {
        _ = try? store.remove(id: id)
    }

    func add(channelID: String, title: String, start: Date, end: Date) -> Reminder? {
        guard let r = try? store.add(channelID: channelID, title: title, start: start, stop: end) else { return nil }
        return Reminder(id: r.id, channelID: r.channelID, title: r.title, start: r.start)
    }
}
