import Foundation
import Lineup

/// Everything the scheduler looks at. Plain values: the caller reads the guide, the lineup and
/// the store, the scheduler only derives.
public struct ScheduleInput: Sendable {
    public var rules: [RecordingRule]
    public var oneOffs: [OneOffRequest]
    /// The guide over the horizon, on lineup channels.
    public var programmes: [GuideProgramme]
    /// What the store holds: every state (finished ones count for new-episodes-only).
    public var existing: [Recording]
    /// The lineup's channels; nil: not checked.
    public var channels: Set<ChannelNumber>?
    /// The pools the schedule is checked against (``ConflictCheck``); empty: none rationed.
    public var pools: PoolLimits
    /// Days and time windows are read in this zone (the box's).
    public var timeZone: TimeZone
    public var now: Date
    /// How far a programme may move and still be followed by channel, title and episode.
    public var moveWindow: TimeInterval

    public init(
        rules: [RecordingRule] = [], oneOffs: [OneOffRequest] = [], programmes: [GuideProgramme] = [],
        existing: [Recording] = [], channels: Set<ChannelNumber>? = nil, pools: PoolLimits = PoolLimits(),
        timeZone: TimeZone, now: Date,
        moveWindow: TimeInterval = 6 * 3600
    ) {
        self.rules = rules
        self.oneOffs = oneOffs
        self.programmes = programmes
        self.existing = existing
        self.channels = channels
        self.pools = pools
        self.timeZone = timeZone
        self.now = now
        self.moveWindow = moveWindow
    }
}

/// The scheduler's answer: the recordings to make (scheduled and in progress, by padded start),
/// where the pools are short of streams, and what it noticed.
public struct Schedule: Sendable, Hashable {
    public var recordings: [Recording]
    public var notes: [ScheduleNote]
    /// Scheduled recordings of before that no rule or request asks for any more.
    public var dropped: [RecordingID]
    /// Where the recordings need more streams than a pool has (``ConflictCheck``).
    public var conflicts: [RecordingConflict]

    public init(
        recordings: [Recording] = [], notes: [ScheduleNote] = [], dropped: [RecordingID] = [],
        conflicts: [RecordingConflict] = []
    ) {
        self.recordings = recordings
        self.notes = notes
        self.dropped = dropped
        self.conflicts = conflicts
    }

    public func recording(_ id: RecordingID) -> Recording? { recordings.first { $0.id == id } }
}

/// Something said about the schedule: never an error that stops it.
public struct ScheduleNote: Hashable, Sendable, Codable {
    public enum Kind: String, Hashable, Sendable, Codable {
        /// A rule found no programme in the guide's horizon.
        case ruleMatchedNothing
        /// A rule that does not validate (a bad pattern) was left out.
        case badRule
        /// A programme of the guide with impossible data was left out.
        case badProgramme
        /// A one-off request that names no programme of the guide, or an impossible range.
        case badRequest
        /// A scheduled programme moved in the guide and the recording follows it.
        case moved
        /// A scheduled programme is no longer in the guide; the recording stays as it was.
        case vanished
        /// A programme was not scheduled: its episode was recorded or scheduled already.
        case repeatSkipped
        /// A scheduled recording's channel is no longer in the lineup.
        case channelRemoved
        /// A scheduled recording that no rule asks for any more was dropped.
        case noLongerAsked
        /// A recording still scheduled whose end has passed: nothing recorded it (the wiring marks
        /// it failed with this note's message).
        case missed
    }

    public var kind: Kind
    public var message: String
    public var rule: RuleID?
    public var recording: RecordingID?
    public var programmeID: String?

    public init(_ kind: Kind, _ message: String, rule: RuleID? = nil, recording: RecordingID? = nil, programmeID: String? = nil) {
        self.kind = kind
        self.message = message
        self.rule = rule
        self.recording = recording
        self.programmeID = programmeID
    }
}
