import Foundation
import Lineup

/// An ad break inside a recording, on the wall clock: from an SCTE-35 splice cue in the channel's
/// stream, or from the lineup's `breaks` schedule. Kept with the recording (table `break`) so its
/// playback marks it and can skip it.
public struct RecordingBreak: Hashable, Sendable, Codable {
    public typealias Origin = BreakOrigin

    public var start: Date
    public var end: Date
    public var origin: Origin

    public init(start: Date, end: Date, origin: Origin) {
        self.start = start
        self.end = end
        self.origin = origin
    }

    /// The most breaks kept for one recording: cues come from outside, a stream that cues
    /// without end does not grow the store without end (more than one a minute over 8 h).
    public static let limit = 500
    /// Two reports of one break whose starts are this close are the same break (its end moves
    /// as it is reported again: an open break grows, a splice back in ends it early).
    public static let sameStart: TimeInterval = 1
    /// The range of times a break may have (as the guide's checks: 1970 to 2200).
    static let sane = Date(timeIntervalSince1970: 0)...Date(timeIntervalSince1970: 7_258_118_400)

    /// Whether its times are finite, within 1970–2200, and its end not before its start.
    public var isSane: Bool {
        start.timeIntervalSince1970.isFinite && end.timeIntervalSince1970.isFinite
            && Self.sane.contains(start) && Self.sane.contains(end) && end >= start
    }

    /// `stored` with `reported` merged in: a reported break of the same origin starting within
    /// `sameStart` of a stored one replaces its end; others are added while fewer than `limit`
    /// are held (the stored ones stay). Breaks that are not sane are left out. In start order.
    public static func merged(_ stored: [RecordingBreak], _ reported: [RecordingBreak], limit: Int = limit) -> [RecordingBreak] {
        var all = stored.filter(\.isSane)
        for new in reported where new.isSane {
            if let i = all.firstIndex(where: { $0.origin == new.origin && abs($0.start.timeIntervalSince(new.start)) < sameStart }) {
                all[i].end = max(all[i].start, new.end)
            } else if all.count < limit {
                all.append(new)
            }
        }
        return Array(all.sorted { ($0.start, $0.origin.rawValue) < ($1.start, $1.origin.rawValue) }.prefix(max(0, limit)))
    }
}
