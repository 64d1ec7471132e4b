import Foundation
import Guide
import Lineup

/// One recording, from scheduled to done: what it records, when, where its file is, and what
/// happened (parts written, gaps between them, why it failed).
public struct Recording: Hashable, Sendable, Codable, Identifiable {
    public var id: RecordingID
    public var channel: ChannelNumber
    public var programme: ProgrammeData
    /// Where recording begins and ends: the programme's times with padding, or a time range.
    public var paddedStart: Date
    public var paddedEnd: Date
    public var state: RecordingState
    /// The rules that asked for it (several rules on one programme make one recording).
    public var rules: [RuleID]
    /// Asked for on its own (a one-off), besides any rule.
    public var isOneOff: Bool
    public var priority: Int
    /// The guide programme it follows (``GuideProgramme/id``); nil for a time range.
    public var programmeID: String?
    /// Relative to the recordings directory; nil until the recorder opens the file.
    public var filePath: String?
    /// Written pieces in order; after a restart the recorder appends a part.
    public var parts: [RecordingPart]
    /// What is missing between or inside parts, and why.
    public var gaps: [RecordingGap]
    /// Why it failed or stopped early.
    public var error: String?
    /// Never removed by retention.
    public var keep: Bool
    /// What the scheduler noticed (moved in the guide, vanished from it).
    public var note: String?

    public init(
        id: RecordingID, channel: ChannelNumber, programme: ProgrammeData, paddedStart: Date, paddedEnd: Date,
        state: RecordingState = .scheduled, rules: [RuleID] = [], isOneOff: Bool = false, priority: Int = 0,
        programmeID: String? = nil, filePath: String? = nil, parts: [RecordingPart] = [], gaps: [RecordingGap] = [],
        error: String? = nil, keep: Bool = false, note: String? = nil
    ) {
        self.id = id
        self.channel = channel
        self.programme = programme
        self.paddedStart = paddedStart
        self.paddedEnd = paddedEnd
        self.state = state
        self.rules = rules
        self.isOneOff = isOneOff
        self.priority = priority
        self.programmeID = programmeID
        self.filePath = filePath
        self.parts = parts
        self.gaps = gaps
        self.error = error
        self.keep = keep
        self.note = note
    }

    /// Bytes of every part (saturating: sizes come from outside).
    public var bytes: Int64 {
        parts.reduce(Int64(0)) { total, part in
            let (sum, overflow) = total.addingReportingOverflow(max(0, part.bytes))
            return overflow ? .max : sum
        }
    }

    /// Whether the span overlaps `[start, end)`.
    func overlaps(_ start: Date, _ end: Date) -> Bool { paddedStart < end && start < paddedEnd }
}

/// Where a recording is in its life.
public enum RecordingState: String, Hashable, Sendable, Codable, CaseIterable {
    case scheduled
    /// Being written now (or was, when the process stopped: see ``RecordingStore/interrupted()``).
    case recording
    case done
    case failed
    /// Ended with part of it missing (a gap, or stopped early with what was written kept).
    case partial
    case cancelled

    /// Recording now or to come: holds (or will hold) a stream of its pool.
    public var isActive: Bool { self == .scheduled || self == .recording }
    /// Finished with something on disk.
    public var hasFile: Bool { self == .done || self == .partial || self == .failed }
}

/// The guide's data of what is recorded (or, for a time range, the title it was given).
extension ProgrammeData {
    /// `Title - S01E02 - Subtitle`, leaving out what is unknown: how people call a recording.
    public var label: String {
        var pieces = [title]
        if let label = episode?.label { pieces.append(label) }
        if let sub = subTitle, !sub.isEmpty { pieces.append(sub) }
        return pieces.joined(separator: " - ")
    }
}

public struct ProgrammeData: Hashable, Sendable, Codable {
    public var title: String
    public var subTitle: String?
    public var description: String?
    public var episodeXMLTVNS: String?
    public var episodeOnScreen: String?
    public var categories: [String]
    public var icon: String?
    public var start: Date
    public var stop: Date

    public init(
        title: String, subTitle: String? = nil, description: String? = nil, episodeXMLTVNS: String? = nil,
        episodeOnScreen: String? = nil, categories: [String] = [], icon: String? = nil, start: Date, stop: Date
    ) {
        self.title = title
        self.subTitle = subTitle
        self.description = description
        self.episodeXMLTVNS = episodeXMLTVNS
        self.episodeOnScreen = episodeOnScreen
        self.categories = categories
        self.icon = icon
        self.start = start
        self.stop = stop
    }

    public init(_ p: Programme) {
        self.init(title: p.title, subTitle: p.subTitle, description: p.description, episodeXMLTVNS: p.episodeXMLTVNS,
                  episodeOnScreen: p.episodeOnScreen, categories: p.categories, icon: p.icon, start: p.start, stop: p.stop)
    }

    public var episode: EpisodeNumber? { EpisodeNumber(xmltvNS: episodeXMLTVNS, onScreen: episodeOnScreen) }
}

/// One piece of the file, written without a break; a restart or reconnect starts the next.
public struct RecordingPart: Hashable, Sendable, Codable {
    /// 1, 2, ... in the order written; 0 for a beginning fetched afterwards from the archive
    /// (joined in front of the file).
    public var number: Int
    public var start: Date
    /// When bytes were last counted: the end of what is known to be written.
    public var lastWrite: Date
    /// Nil while being written, or when the process stopped in the middle.
    public var end: Date?
    public var bytes: Int64

    public init(number: Int, start: Date, lastWrite: Date, end: Date? = nil, bytes: Int64 = 0) {
        self.number = number
        self.start = start
        self.lastWrite = lastWrite
        self.end = end
        self.bytes = bytes
    }
}

/// Time missing from a recording, and why (`restart`, `source stalled`, `disk full`).
public struct RecordingGap: Hashable, Sendable, Codable {
    public var start: Date
    public var end: Date
    public var reason: String

    public init(start: Date, end: Date, reason: String) {
        self.start = start
        self.end = end
        self.reason = reason
    }
}
