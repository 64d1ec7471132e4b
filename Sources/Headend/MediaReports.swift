import FlipboxCore
import Foundation
import Lineup

/// What the media side reports to the layer that drives it (the player): a channel's source
/// changed state, a feed was activated on a path, a feed's first frame reached the screen, a
/// timeshift disk changed.
public enum MediaReport: Sendable {
    case sourceState(Channel, ChannelState)
    /// Reported by the head-end before any frame of the feed can be made, so it always comes
    /// before the feed's `firstFrame`.
    case activated(FeedID, path: Headend.Path)
    case firstFrame(FeedID, at: ContinuousClock.Instant)
    /// The timeshift disk of a channel refused segments, or takes them again.
    case timeshiftDisk(Channel)
    /// A recording played back on a feed reached its end (`failure` nil) or stopped reading.
    case recordingEnded(FeedID, title: String, failure: String?)
    /// A recording's playback was left at `at` (nil: at its end): its resume point.
    case recordingLeft(id: String, at: Date?)
}

/// One ordered stream of reports with several producers (the head-end, its channel sources and
/// the output, on their own threads) and one reader: reports come out in the order they were
/// sent, so a feed's first frame never overtakes its activation or a later state change. No
/// closure is called back up a layer: the reader drains `stream` in its own loop. Any thread.
public final class MediaReports: Sendable {
    public let stream: AsyncStream<MediaReport>
    private let continuation: AsyncStream<MediaReport>.Continuation

    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: MediaReport.self)
    }

    public func send(_ report: MediaReport) { continuation.yield(report) }

    /// Ends the stream (its reader's loop ends).
    public func finish() { continuation.finish() }
}
