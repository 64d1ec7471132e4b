import Foundation
import Lineup

/// What a channel's timeshift holds besides its media: the markers set over the API and the parts
/// the viewer played (which make a break watched). The breaks cued in its stream (SCTE-35) are
/// the channel source's (`SpliceCueLog`), handed to `breaks`. Pure; the headend keeps one per
/// buffer and drops it with the buffer.
struct TimeshiftTimeline: Sendable {
    private(set) var markers: [TimeshiftMarker] = []
    private(set) var watched = WatchedTime()
    /// Where the current played part began (nil while paused or not shown).
    private(set) var playingFrom: Date?
    /// Where the picture was when the viewer flipped away behind live (nil: they left it live).
    var leftAt: Date?
    private var nextID = 1

    /// Adds a marker at `time`; `name` nil names it `Marker N`.
    mutating func addMarker(at time: Date, name: String?) -> TimeshiftMarker {
        let marker = TimeshiftMarker(id: nextID, time: time, name: name ?? "Marker \(nextID)", kind: .set)
        nextID += 1
        markers.append(marker)
        markers.sort { $0.time < $1.time }
        return marker
    }

    /// Removes marker `id`; false when there is none.
    mutating func removeMarker(id: Int) -> Bool {
        guard let i = markers.firstIndex(where: { $0.id == id }) else { return false }
        markers.remove(at: i)
        return true
    }

    /// The picture started playing at `position` (after a seek, a resume, going live, being shown).
    mutating func startPlaying(at position: Date) {
        if playingFrom == nil { playingFrom = position }
    }

    /// The picture stopped playing at `position` (paused, moved, flipped away).
    mutating func stopPlaying(at position: Date) {
        if let from = playingFrom { watched.add(from, position) }
        playingFrom = nil
    }

    /// The breaks overlapping `range` (the lineup's and `cued`: those the channel's SCTE-35 cues
    /// announce), each saying whether the viewer played it through, the picture being at
    /// `position` now.
    func breaks(schedule: BreakSchedule?, cued: [DateInterval] = [], in range: ClosedRange<Date>, position: Date) -> [TimeshiftBreak] {
        var seen = watched
        if let from = playingFrom { seen.add(from, position) }
        let lineup = (schedule?.breaks(in: range) ?? []).map { ($0, TimeshiftBreak.Origin.lineup) }
        let cued = cued.filter { $0.end > range.lowerBound && $0.start < range.upperBound }.map { ($0, TimeshiftBreak.Origin.scte35) }
        return (lineup + cued).map { interval, origin in
            // What of a break left the buffer cannot be watched any more: the rest decides.
            TimeshiftBreak(start: interval.start, end: interval.end, watched: seen.covers(max(interval.start, range.lowerBound), interval.end), origin: origin)
        }.sorted { $0.start < $1.start }
    }

    /// Forgets what left the buffer (everything before `limit`).
    mutating func forget(before limit: Date) {
        markers.removeAll { $0.time < limit }
        watched.forget(before: limit)
    }
}
