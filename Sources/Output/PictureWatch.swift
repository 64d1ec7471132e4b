import Foundation

/// What a viewer would notice on the output, as a value: gaps between frames at the sink, and
/// runs of an unchanging channel picture (a frozen picture, or a source that sends a still).
///
/// No clock and no threads: each input carries its time (a monotonic instant for lengths, a
/// wall-clock date for the record, so a reader can match it against its own log). The output
/// pipeline feeds it under its watch lock.
///
/// - A **gap** is the interval between two frames reaching the sink; the ones longer than
///   ``gapThreshold`` are recorded.
/// - A **still run** lasts from the first frame of a channel picture until the feed on screen
///   shows a different picture, another feed (a flip) or none (a card, the multiview). Repeated
///   frames (the output's own tick when no new frame comes) continue it: a decoder that stops
///   delivering leaves a still run growing. Runs of at least ``stillThreshold`` are recorded;
///   the run in progress is reported by ``reading(at:wall:)`` too.
public struct PictureWatch: Sendable {
    public struct Gap: Sendable, Hashable {
        /// When the late frame reached the sink.
        public var at: Date
        public var length: Duration
        /// The feed on screen at the time (0: none).
        public var feed: UInt
        public init(at: Date, length: Duration, feed: UInt) {
            self.at = at
            self.length = length
            self.feed = feed
        }
    }

    public struct StillRun: Sendable, Hashable {
        public var feed: UInt
        /// When the picture first showed.
        public var from: Date
        public var length: Duration
        /// Still going at the reading.
        public var ongoing: Bool
        public init(feed: UInt, from: Date, length: Duration, ongoing: Bool) {
            self.feed = feed
            self.from = from
            self.length = length
            self.ongoing = ongoing
        }
    }

    /// What the output did since it started.
    public struct Reading: Sendable, Hashable {
        public var framesShown = 0
        public var longestGap: Duration = .zero
        /// Recent gaps over the threshold, oldest first (at most ``kept``).
        public var gaps: [Gap] = []
        /// Gaps over the threshold since the start, all of them.
        public var gapCount = 0
        /// Recent still runs of at least the threshold, oldest first (at most ``kept``), then the
        /// one in progress when it is as long.
        public var stills: [StillRun] = []
        public var longestStill: Duration = .zero
    }

    public static let gapThreshold: Duration = .milliseconds(100)
    public static let stillThreshold: Duration = .milliseconds(500)
    /// How many recent gaps and still runs are kept.
    public static let kept = 64

    private var lastSink: ContinuousClock.Instant?
    private var reading = Reading()
    private var run: (feed: UInt, digest: UInt64, start: ContinuousClock.Instant, wall: Date)?

    public init() {}

    /// A frame reached the sink.
    public mutating func frameShown(at now: ContinuousClock.Instant, wall: Date) {
        reading.framesShown += 1
        defer { lastSink = now }
        guard let last = lastSink else { return }
        let gap = now - last
        reading.longestGap = max(reading.longestGap, gap)
        if gap > Self.gapThreshold {
            reading.gapCount += 1
            Self.keep(&reading.gaps, Gap(at: wall, length: gap, feed: run?.feed ?? 0))
        }
    }

    /// A channel picture was composed for the screen: `digest` stands for its content.
    public mutating func picture(feed: UInt, digest: UInt64, at now: ContinuousClock.Instant, wall: Date) {
        if let run, run.feed == feed, run.digest == digest { return }
        endRun(at: now)
        run = (feed, digest, now, wall)
    }

    /// Something that is no channel picture took the screen (a card, the multiview, blank).
    public mutating func noPicture(at now: ContinuousClock.Instant) {
        endRun(at: now)
        run = nil
    }

    private mutating func endRun(at now: ContinuousClock.Instant) {
        guard let run else { return }
        let length = now - run.start
        reading.longestStill = max(reading.longestStill, length)
        if length >= Self.stillThreshold {
            Self.keep(&reading.stills, StillRun(feed: run.feed, from: run.wall, length: length, ongoing: false))
        }
    }

    /// The figures, with the still run in progress counted up to `now`.
    public func reading(at now: ContinuousClock.Instant) -> Reading {
        var result = reading
        if let run {
            let length = now - run.start
            result.longestStill = max(result.longestStill, length)
            if length >= Self.stillThreshold {
                result.stills.append(StillRun(feed: run.feed, from: run.wall, length: length, ongoing: true))
            }
        }
        return result
    }

    private static func keep<T>(_ list: inout [T], _ item: T) {
        list.append(item)
        if list.count > kept { list.removeFirst(list.count - kept) }
    }
}
