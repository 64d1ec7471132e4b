import Foundation
import Guide
import Lineup

/// A single recording someone asked for: a programme of the guide (by its id, or by channel
/// and start), or a plain time range on a channel, recorded exactly as asked (no padding).
public struct OneOffRequest: Hashable, Sendable, Codable, Identifiable {
    public enum Target: Hashable, Sendable, Codable {
        /// ``GuideProgramme/id``.
        case programme(id: String)
        /// The programme on `channel` that starts at `start`.
        case programmeAt(channel: ChannelNumber, start: Date)
        /// From `start` to `end` on `channel`; `title` names the file (default: the channel and time).
        case timeRange(channel: ChannelNumber, start: Date, end: Date, title: String?)
    }

    /// The id the recording gets.
    public var id: RecordingID
    public var target: Target
    public var priority: Int
    /// Used for programmes; a time range has none.
    public var padding: Padding

    public init(id: RecordingID, target: Target, priority: Int = 0, padding: Padding = .standard) {
        self.id = id
        self.target = target
        self.priority = priority
        self.padding = padding
    }

    /// Priority within ``RecordingRule/priorities``, padding within ``Padding/maximum``.
    public func validate() throws(RecordingError) {
        try RecordingRule.validate(priority: priority, source: id.rawValue)
        try padding.validate(source: id.rawValue)
    }
}

/// A programme of the guide as the scheduler sees it: on a lineup channel (matched from the
/// guide's channel), with an id that follows it while the guide keeps it.
public struct GuideProgramme: Hashable, Sendable, Codable {
    /// Stable while the programme is in the guide; ``derivedID(channel:start:)`` when the
    /// guide has none of its own.
    public var id: String
    public var channel: ChannelNumber
    public var programme: Programme

    public init(id: String, channel: ChannelNumber, programme: Programme) {
        self.id = id
        self.channel = channel
        self.programme = programme
    }

    /// `7@1795000000`: channel and start in Unix seconds.
    public static func derivedID(channel: ChannelNumber, start: Date) -> String {
        "\(channel)@\(Int64(start.timeIntervalSince1970.rounded(.down)))"
    }
}
