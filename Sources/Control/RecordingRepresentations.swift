import Foundation
import Lineup
import Recordings

/// A recording in `/api/v1/recordings` and the `recording-*` events: times in ISO 8601, sizes in bytes.
struct RecordingJSON: Encodable, Sendable {
    struct Part: Encodable, Sendable { var number: Int, start: String, end: String?, bytes: Int64 }
    struct Gap: Encodable, Sendable { var start: String, end: String, seconds: Double, reason: String }

    var id: String
    var channel: String
    var channelName: String?
    var title: String
    var subtitle: String?
    var episode: String?
    var description: String?
    var start: String
    var stop: String
    var paddedStart: String
    var paddedEnd: String
    var state: String
    var rules: [String]
    var oneOff: Bool
    var priority: Int
    var file: String?
    var bytes: Int64
    var parts: [Part]
    var gaps: [Gap]
    var error: String?
    var keep: Bool
    var note: String?

    init(_ r: Recording, lineup: Lineup?) {
        id = r.id.rawValue
        channel = r.channel.description
        channelName = lineup?.channel(number: r.channel)?.name
        title = r.programme.title
        subtitle = r.programme.subTitle
        episode = r.programme.episode?.label
        description = r.programme.description
        start = iso(r.programme.start)
        stop = iso(r.programme.stop)
        paddedStart = iso(r.paddedStart)
        paddedEnd = iso(r.paddedEnd)
        state = r.state.rawValue
        rules = r.rules.map(\.rawValue)
        oneOff = r.isOneOff
        priority = r.priority
        file = r.filePath
        bytes = r.bytes
        parts = r.parts.map { Part(number: $0.number, start: iso($0.start), end: $0.end.map(iso), bytes: $0.bytes) }
        gaps = r.gaps.map { Gap(start: iso($0.start), end: iso($0.end), seconds: $0.end.timeIntervalSince($0.start), reason: $0.reason) }
        error = r.error
        keep = r.keep
        note = r.note
    }
}

/// A pool that has too few streams for the recordings asked of it over a span of time.
struct RecordingConflictJSON: Encodable, Sendable {
    struct Option: Codable, Sendable {
        /// `other-channel` (record the same programme on `channel`) or `drop`.
        var kind: String
        var recording: String
        var channel: String?
        var programme: String?

        /// The option this names (bounded: ids as the API gives them); nil when it names none.
        var option: ConflictOption? {
            let limit = RecordingRequest.textLimit
            guard (1...limit).contains(recording.count) else { return nil }
            switch kind {
            case "drop":
                return .drop(recording: RecordingID(recording))
            case "other-channel":
                guard let channel, channel.count <= limit, let number = ChannelNumber(channel),
                      let programme, (1...limit).contains(programme.count) else { return nil }
                return .otherChannel(recording: RecordingID(recording), channel: number, programmeID: programme)
            default:
                return nil
            }
        }
    }

    var pool: String
    var limit: Int
    var start: String
    var end: String
    var recordings: [String]
    var notRecorded: [String]
    var options: [Option]
    /// "pool P has 2 streams; 3 recordings want one from 20:00 to 21:00: News is not recorded".
    var message: String

    init(_ c: RecordingConflict, titles: [RecordingID: String]) {
        pool = c.pool
        limit = c.limit
        start = iso(c.start)
        end = iso(c.end)
        recordings = c.recordings.map(\.rawValue)
        notRecorded = c.notRecorded.map(\.rawValue)
        options = c.options.map { option in
            switch option {
            case .otherChannel(let recording, let channel, let programmeID):
                Option(kind: "other-channel", recording: recording.rawValue, channel: channel.description, programme: programmeID)
            case .drop(let recording):
                Option(kind: "drop", recording: recording.rawValue)
            }
        }
        let lost = c.notRecorded.map { titles[$0] ?? $0.rawValue }
        message = """
            pool \(c.pool) has \(c.limit) stream\(c.limit == 1 ? "" : "s"); \(c.recordings.count) recordings want one \
            from \(iso(c.start)) to \(iso(c.end))\(lost.isEmpty ? "" : ": \(lost.joined(separator: ", ")) not recorded unless one is dropped")
            """
    }
}

/// A series rule in `/api/v1/recording-rules`.
struct RecordingRuleJSON: Encodable, Sendable {
    struct Window: Encodable, Sendable { var from: String, to: String }
    struct Padding: Encodable, Sendable { var before: Double, after: Double }

    var id: String
    var title: String
    /// `exact` or `pattern`.
    var match: String
    var channel: String?
    var days: [String]
    var window: Window?
    var newOnly: Bool
    var keep: Int?
    var priority: Int
    var padding: Padding

    init(_ rule: RecordingRule) {
        id = rule.id.rawValue
        title = rule.title.text
        if case .pattern = rule.title { match = "pattern" } else { match = "exact" }
        channel = rule.channel?.description
        days = rule.days.sorted().map { RecordingRuleRequest.dayNames[$0.rawValue - 1] }
        window = rule.window.map { Window(from: clock($0.startMinute), to: clock($0.endMinute)) }
        newOnly = rule.newEpisodesOnly
        keep = rule.keepLatest
        priority = rule.priority
        padding = Padding(before: rule.padding.before, after: rule.padding.after)
    }
}

/// `{"recordings": [...], "conflicts": [...]}`.
struct RecordingListJSON: Encodable, Sendable {
    var recordings: [RecordingJSON]
    var conflicts: [RecordingConflictJSON]
}

/// The event a `RecordingNotice` becomes: its name and its `data:`.
struct RecordingNoticeJSON: Encodable, Sendable {
    var notice: RecordingNotice

    var name: String {
        switch notice {
        case .started: "recording-started"
        case .stopped: "recording-stopped"
        case .failed: "recording-failed"
        case .deleted: "recording-deleted"
        case .conflict: "recording-conflict"
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch notice {
        case .started(let r), .stopped(let r), .failed(let r):
            try RecordingJSON(r, lineup: nil).encode(to: encoder)
        case .deleted(let r, let reason):
            var json = RecordingJSON(r, lineup: nil)
            json.note = reason
            try json.encode(to: encoder)
        case .conflict(let c):
            try RecordingConflictJSON(c, titles: [:]).encode(to: encoder)
        }
    }
}

private func iso(_ date: Date) -> String { date.formatted(.iso8601) }

private func clock(_ minute: Int) -> String {
    let h = minute / 60, m = minute % 60
    return (h < 10 ? "0\(h)" : "\(h)") + ":" + (m < 10 ? "0\(m)" : "\(m)")
}
