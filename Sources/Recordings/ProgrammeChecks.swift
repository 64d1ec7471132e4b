import Foundation
import Guide

/// Bounds on what the guide says, and what makes two airings the same episode.
enum ProgrammeChecks {
    /// 1970 ... 2200: outside, a time is garbage.
    static let earliest: TimeInterval = 0
    static let latest: TimeInterval = 7_258_118_400
    /// A programme longer than a day is garbage.
    static let longest: TimeInterval = 24 * 3600

    /// Nil when the programme can be scheduled, else why not.
    static func problem(with p: Programme) -> String? {
        let start = p.start.timeIntervalSince1970
        let stop = p.stop.timeIntervalSince1970
        guard start.isFinite, stop.isFinite, (earliest...latest).contains(start), (earliest...latest).contains(stop) else {
            return "its times are out of range"
        }
        guard stop > start else { return "it ends before it starts" }
        guard stop - start <= longest else { return "it lasts more than a day" }
        guard !p.title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return "it has no title" }
        return nil
    }

    /// A time range's problem, with the same bounds.
    static func problem(start: Date, end: Date) -> String? {
        let a = start.timeIntervalSince1970
        let b = end.timeIntervalSince1970
        guard a.isFinite, b.isFinite, (earliest...latest).contains(a), (earliest...latest).contains(b) else {
            return "its times are out of range"
        }
        guard b > a else { return "it ends before it starts" }
        guard b - a <= longest else { return "it lasts more than a day" }
        return nil
    }

    /// What identifies an episode for new-episodes-only: the title with the season and episode
    /// when `episode-num` gives them, else the title, subtitle and description.
    static func episodeKey(_ p: ProgrammeData) -> String {
        let title = TitleMatcher.folded(p.title)
        if let number = p.episode, let label = number.label {
            return "\(title)\u{1F}\(label)"
        }
        let sub = TitleMatcher.folded(p.subTitle ?? "")
        let description = TitleMatcher.folded(p.description ?? "")
        return "\(title)\u{1F}\(sub)\u{1F}\(description)"
    }
}

extension RecordingRule {
    /// Whether the rule asks for `p`'s channel, day and time (its title is checked apart, once
    /// per distinct title; new-only is not looked at).
    func wantsSlot(of p: GuideProgramme, calendar: Calendar) -> Bool {
        if let channel, channel != p.channel { return false }
        if !days.isEmpty || window != nil {
            let parts = calendar.dateComponents([.weekday, .hour, .minute], from: p.programme.start)
            if !days.isEmpty {
                guard let day = parts.weekday.flatMap(Weekday.init(calendarWeekday:)), days.contains(day) else { return false }
            }
            if let window {
                let minute = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
                guard window.contains(minute: minute) else { return false }
            }
        }
        return true
    }
}
