import Foundation
import Guide
import Lineup

/// Recordings that need more streams of a pool than it has, over one span of time.
public struct RecordingConflict: Hashable, Sendable, Codable {
    public var pool: String
    public var limit: Int
    public var start: Date
    public var end: Date
    /// Every recording that holds a stream of the pool during the span.
    public var recordings: [RecordingID]
    /// What the user can do, best first: record on another channel, or drop one.
    public var options: [ConflictOption]
    /// Who does not record if nobody acts: the lowest priorities (a recording in progress keeps
    /// its stream).
    public var notRecorded: [RecordingID]

    public init(pool: String, limit: Int, start: Date, end: Date, recordings: [RecordingID], options: [ConflictOption],
                notRecorded: [RecordingID]) {
        self.pool = pool
        self.limit = limit
        self.start = start
        self.end = end
        self.recordings = recordings
        self.options = options
        self.notRecorded = notRecorded
    }
}

public enum ConflictOption: Hashable, Sendable, Codable {
    /// The same programme (same title and start) is on `channel`, whose pool has room.
    case otherChannel(recording: RecordingID, channel: ChannelNumber, programmeID: String)
    /// Drop this recording (listed lowest priority first).
    case drop(recording: RecordingID)
}

/// Checks a schedule against pool limits: a sweep over the start and end of every recording,
/// per pool. The channel on screen is not counted: the player gives way to recordings.
public enum ConflictCheck {
    public static func conflicts(in schedule: [Recording], pools: PoolLimits, programmes: [GuideProgramme] = []) -> [RecordingConflict] {
        let live = schedule.filter { $0.state.isActive && $0.paddedEnd > $0.paddedStart }
        var byPool: [String: [Recording]] = [:]
        for r in live {
            if let pool = pools.pool(of: r.channel) { byPool[pool, default: []].append(r) }
        }
        var found: [RecordingConflict] = []
        for (pool, recordings) in byPool.sorted(by: { $0.key < $1.key }) {
            guard let limit = pools.limit(of: pool) else { continue }
            let timeline = PoolTimeline(recordings: recordings)
            for span in overLimitSpans(timeline, limit: limit) {
                let involved = recordings.filter { $0.overlaps(span.start, span.end) }
                let losers = notRecorded(involved, limit: limit)
                var options: [ConflictOption] = []
                for r in involved.sorted(by: priorityOrder).reversed() {
                    options += alternatives(for: r, pool: pool, schedule: live, pools: pools, programmes: programmes)
                }
                options += involved.sorted(by: priorityOrder).reversed().map { .drop(recording: $0.id) }
                found.append(RecordingConflict(
                    pool: pool, limit: limit, start: span.start, end: span.end, recordings: involved.map(\.id).sorted(),
                    options: options, notRecorded: losers))
            }
        }
        return found.sorted { ($0.start, $0.pool) < ($1.start, $1.pool) }
    }

    /// Who records first: in progress, then higher priority, then earlier, then by id.
    static func priorityOrder(_ a: Recording, _ b: Recording) -> Bool {
        let aRunning = a.state == .recording ? 0 : 1
        let bRunning = b.state == .recording ? 0 : 1
        if aRunning != bRunning { return aRunning < bRunning }
        if a.priority != b.priority { return a.priority > b.priority }
        return (a.paddedStart, a.id) < (b.paddedStart, b.id)
    }

    /// Maximal spans where the pool's streams in use exceed the limit.
    static func overLimitSpans(_ timeline: PoolTimeline, limit: Int) -> [(start: Date, end: Date)] {
        let instants = timeline.boundaries
        var spans: [(start: Date, end: Date)] = []
        for (index, instant) in instants.enumerated().dropLast() {
            let next = instants[index + 1]
            guard timeline.channels(at: instant).count > limit else { continue }
            if let last = spans.last, last.end == instant {
                spans[spans.count - 1].end = next
            } else {
                spans.append((instant, next))
            }
        }
        return spans
    }

    /// Takes recordings in priority order while the pool has a stream for each at every instant.
    static func notRecorded(_ involved: [Recording], limit: Int) -> [RecordingID] {
        var kept: [Recording] = []
        var losers: [RecordingID] = []
        for r in involved.sorted(by: priorityOrder) {
            let fits = PoolTimeline(recordings: kept).peak(from: r.paddedStart, to: r.paddedEnd, adding: r.channel) <= limit
            if fits { kept.append(r) } else { losers.append(r.id) }
        }
        return losers.sorted()
    }

    /// Channels that carry the same programme (title and start) in a pool with a stream free
    /// for the whole recording.
    static func alternatives(
        for r: Recording, pool: String, schedule: [Recording], pools: PoolLimits, programmes: [GuideProgramme]
    ) -> [ConflictOption] {
        guard r.programmeID != nil else { return [] }
        let title = TitleMatcher.folded(r.programme.title)
        return programmes.filter {
            $0.channel != r.channel && $0.programme.start == r.programme.start && TitleMatcher.folded($0.programme.title) == title
        }.compactMap { p -> ConflictOption? in
            guard let otherPool = pools.pool(of: p.channel), let limit = pools.limit(of: otherPool) else {
                return .otherChannel(recording: r.id, channel: p.channel, programmeID: p.id)
            }
            let others = schedule.filter { $0.id != r.id && pools.pool(of: $0.channel) == otherPool }
            let peak = PoolTimeline(recordings: others).peak(from: r.paddedStart, to: r.paddedEnd, adding: p.channel)
            return peak <= limit ? .otherChannel(recording: r.id, channel: p.channel, programmeID: p.id) : nil
        }
    }
}
