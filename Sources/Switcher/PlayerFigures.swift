import FlipboxCore
import Foundation
import Headend
import Lineup
import Output

/// What the output showed, with feeds named by their channels: `GET /api/v1/output` and `/metrics`.
public struct OutputReport: Sendable, Hashable {
    public struct Gap: Sendable, Hashable {
        /// When the late frame reached the display.
        public var at: Date
        public var length: Duration
        /// The channel on screen then; nil for a card or when it is no longer known.
        public var channel: ChannelNumber?
    }

    public struct Still: Sendable, Hashable {
        public var channel: ChannelNumber?
        public var from: Date
        public var length: Duration
        public var ongoing: Bool
    }

    public var framesShown: Int
    /// Frames the output repeated because no new one came for two frame periods.
    public var framesRepeated: Int
    public var longestGap: Duration
    /// Intervals between frames at the display longer than ``PictureWatch/gapThreshold``.
    public var gapCount: Int
    public var gaps: [Gap]
    public var longestStill: Duration
    /// Runs of one unchanging channel picture of at least ``PictureWatch/stillThreshold``
    /// (recent ones, then the one in progress).
    public var stills: [Still]
}

/// Everything `/metrics` reads from the player besides the channel list and the status.
public struct PlayerFigures: Sendable, Hashable {
    public var output: OutputReport
    public var headend: HeadendFigures

    /// Nothing shown, nothing held.
    public static let none = PlayerFigures(
        output: OutputReport(framesShown: 0, framesRepeated: 0, longestGap: .zero, gapCount: 0, gaps: [], longestStill: .zero, stills: []),
        headend: .none)
}

/// Which channel each recent feed showed, so the output's records can name it.
struct FeedChannels: Sendable {
    private var names: [FeedID: ChannelNumber] = [:]
    /// Feeds remembered: enough for every record the output keeps.
    static let kept = 256

    mutating func record(feed: FeedID, channel: ChannelNumber) {
        names[feed] = channel
        if names.count > Self.kept, let oldest = names.keys.min() { names.removeValue(forKey: oldest) }
    }

    func channel(of feed: UInt) -> ChannelNumber? { names[FeedID(feed)] }
}

extension Player {
    /// The output's record and the head-end's figures now.
    public func figures() async -> PlayerFigures {
        PlayerFigures(output: outputReport(), headend: await headend.figures())
    }

    /// What the output showed since the start, feeds named by channel.
    public func outputReport() -> OutputReport {
        let stats = output.statistics(), watch = output.pictureReading()
        return OutputReport(
            framesShown: watch.framesShown, framesRepeated: stats.repeatedFrames, longestGap: watch.longestGap,
            gapCount: watch.gapCount,
            gaps: watch.gaps.map { OutputReport.Gap(at: $0.at, length: $0.length, channel: feedChannels.channel(of: $0.feed)) },
            longestStill: watch.longestStill,
            stills: watch.stills.map { OutputReport.Still(channel: feedChannels.channel(of: $0.feed), from: $0.from, length: $0.length, ongoing: $0.ongoing) })
    }
}
