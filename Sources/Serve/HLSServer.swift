import Foundation
import Lineup
import Logging

/// The HLS side of the head-end: one `HLSSegmenter` per channel that HLS clients read, fed by the
/// channel's shared muxer (the `StreamServer` holds the channel served while it has a
/// segmenter). A segmenter nobody read for `idleTimeout` is let go.
///
/// Each channel's HLS takes one place of the stream server's client limit, and one of the
/// HDHomeRun tuners when `tunerLimit` is given (it is an ingest like a tuned stream): HLS cannot
/// make every channel ingest. Beyond them a playlist request gets 503.
public actor HLSServer {
    public nonisolated let streams: StreamServer
    private let logger: Logger
    private let idleTimeout: Duration
    private let tunerLimit: Int?
    private let segmentLimits: (bytes: Int, duration: Duration)
    private var segmenters: [String: HLSSegmenter] = [:]
    private var sweeper: Task<Void, Never>?

    /// The most one HLS segment holds when no keyframe ends it: 32 MB (over 20 s of a 12 Mb/s
    /// channel) or 20 s (ten times the target, longer than any broadcaster's GOP).
    public static let defaultSegmentBytes = 32 << 20
    public static let defaultSegmentDuration: Duration = .seconds(20)

    public init(streams: StreamServer, idleTimeout: Duration = .seconds(30), tunerLimit: Int? = nil, logger: Logger,
                segmentBytes: Int = HLSServer.defaultSegmentBytes, segmentDuration: Duration = HLSServer.defaultSegmentDuration) {
        self.streams = streams
        self.idleTimeout = idleTimeout
        self.tunerLimit = tunerLimit
        self.segmentLimits = (segmentBytes, segmentDuration)
        self.logger = logger
    }

    /// Channels with an HLS segmenter now, by number.
    public var segmentedChannels: [ChannelNumber] {
        segmenters.keys.compactMap { streams.lineup.channel(id: $0)?.number }.sorted()
    }

    /// The segmenter of `channel`, started (and the channel served) when there is none.
    func segmenter(for channel: Channel) async throws(ServeError) -> HLSSegmenter {
        if let existing = segmenters[channel.id] { return existing }
        let segmenter = HLSSegmenter(firstSequence: Int(Date().timeIntervalSince1970), maxBytes: segmentLimits.bytes, maxDuration: segmentLimits.duration)
        let logger = self.logger
        let cuts = CutReport()
        segmenter.onCut = { bytes, seconds in
            // Said once per channel's HLS, then every 100th time: a source without keyframes cuts every segment.
            let n = cuts.next()
            guard n == 1 || n % 100 == 0 else { return }
            logger.warning("""
                HLS of channel \(channel.number) \(channel.name): no keyframe came for \(String(format: "%.1f", seconds)) s \
                (\(bytes >> 10) KiB), so the segment was cut there (\(n) time(s)); players show the picture from the next keyframe
                """)
        }
        try await streams.takeHLSPlace(channel, tunerLimit: tunerLimit)
        segmenters[channel.id] = segmenter
        do {
            _ = try await streams.subscribe(segmenter, to: channel)
        } catch {
            segmenters[channel.id] = nil
            await streams.giveBackHLSPlace(channel)
            throw error
        }
        logger.info("HLS for channel \(channel.number) \(channel.name)")
        if sweeper == nil {
            sweeper = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(5))
                    await self?.sweep()
                }
            }
        }
        return segmenter
    }

    /// The segmenter of `channel` if it has one (segment requests never start a channel).
    func existingSegmenter(for channel: Channel) -> HLSSegmenter? { segmenters[channel.id] }

    private func sweep() async {
        for (id, segmenter) in segmenters where ContinuousClock.now - segmenter.lastAccess > idleTimeout {
            segmenters[id] = nil
            segmenter.release()
            if let channel = streams.lineup.channel(id: id) {
                await streams.unsubscribe(segmenter, from: channel)
                await streams.giveBackHLSPlace(channel)
                logger.info("HLS for channel \(channel.number) ends: nobody read it for \(idleTimeout)")
            }
        }
    }

    /// Lets every segmenter go (graceful shutdown).
    public func stop() async {
        sweeper?.cancel()
        for (id, segmenter) in segmenters {
            segmenter.release()
            if let channel = streams.lineup.channel(id: id) {
                await streams.unsubscribe(segmenter, from: channel)
                await streams.giveBackHLSPlace(channel)
            }
        }
        segmenters = [:]
    }
}

/// Counts the segments cut without a keyframe (any thread).
private final class CutReport: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func next() -> Int { lock.withLock { count = count < Int.max ? count + 1 : count; return count } }
}
