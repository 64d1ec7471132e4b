import Foundation
import Lineup
import Logging

/// The HLS side of the head-end: one `HLSSegmenter` per channel that HLS clients read, fed by the
/// channel's shared muxer (the `StreamServer` holds the channel served while it has a
/// segmenter). A segmenter nobody read for `idleTimeout` is let go.
public actor HLSServer {
    public nonisolated let streams: StreamServer
    private let logger: Logger
    private let idleTimeout: Duration
    private var segmenters: [String: HLSSegmenter] = [:]
    private var sweeper: Task<Void, Never>?

    public init(streams: StreamServer, idleTimeout: Duration = .seconds(30), logger: Logger) {
        self.streams = streams
        self.idleTimeout = idleTimeout
        self.logger = logger
    }

    /// Channels with an HLS segmenter now, by number.
    public var segmentedChannels: [ChannelNumber] {
        segmenters.keys.compactMap { streams.lineup.channel(id: $0)?.number }.sorted()
    }

    /// The segmenter of `channel`, started (and the channel served) when there is none.
    func segmenter(for channel: Channel) async throws(ServeError) -> HLSSegmenter {
        if let existing = segmenters[channel.id] { return existing }
        let segmenter = HLSSegmenter(firstSequence: Int(Date().timeIntervalSince1970))
        segmenters[channel.id] = segmenter
        do {
            _ = try await streams.subscribe(segmenter, to: channel)
        } catch {
            segmenters[channel.id] = nil
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
                logger.info("HLS for channel \(channel.number) ends: nobody read it for \(idleTimeout)")
            }
        }
    }

    /// Lets every segmenter go (graceful shutdown).
    public func stop() async {
        sweeper?.cancel()
        for (id, segmenter) in segmenters {
            segmenter.release()
            if let channel = streams.lineup.channel(id: id) { await streams.unsubscribe(segmenter, from: channel) }
        }
        segmenters = [:]
    }
}
