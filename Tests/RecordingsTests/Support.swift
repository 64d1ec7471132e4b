import Foundation
import Guide
import Lineup
@testable import Recordings

let utcZone = TimeZone(identifier: "UTC")!

/// `2026-11-27T20:00:00Z` as a date (27 November 2026 is a Friday).
func at(_ text: String) -> Date {
    let formatter = ISO8601DateFormatter()
    return formatter.date(from: text)!
}

/// A guide programme on `channel` from `start` for `minutes`.
func show(
    _ title: String, channel: Int = 1, _ start: String, minutes: Double = 60, id: String? = nil, sub: String? = nil,
    desc: String? = nil, ns: String? = nil
) -> GuideProgramme {
    let begin = at(start)
    let number = ChannelNumber(channel)
    return GuideProgramme(
        id: id ?? GuideProgramme.derivedID(channel: number, start: begin), channel: number,
        programme: Programme(channel: "ch\(channel)", start: begin, stop: begin.addingTimeInterval(minutes * 60), title: title,
                             subTitle: sub, description: desc, episodeXMLTVNS: ns))
}

/// A recording of `title` on `channel` over the given times, no padding.
func recording(
    _ id: String, channel: Int = 1, _ start: String, minutes: Double = 60, state: RecordingState = .scheduled,
    priority: Int = 0, title: String? = nil
) -> Recording {
    let begin = at(start)
    let end = begin.addingTimeInterval(minutes * 60)
    return Recording(id: RecordingID(id), channel: ChannelNumber(channel),
                     programme: ProgrammeData(title: title ?? id, start: begin, stop: end),
                     paddedStart: begin, paddedEnd: end, state: state, priority: priority, programmeID: "prog-\(id)")
}

func schedule(
    rules: [RecordingRule] = [], oneOffs: [OneOffRequest] = [], _ programmes: [GuideProgramme], existing: [Recording] = [],
    now: String = "2026-11-27T08:00:00Z", channels: Set<ChannelNumber>? = nil, pools: PoolLimits = PoolLimits()
) -> Schedule {
    RecordingScheduler.derive(ScheduleInput(
        rules: rules, oneOffs: oneOffs, programmes: programmes, existing: existing, channels: channels, pools: pools,
        timeZone: utcZone, now: at(now)))
}

/// A fresh directory under the system temporary directory; `remove()` deletes it.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent("recordings-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
