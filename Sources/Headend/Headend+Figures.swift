import FlipboxCore
import Lineup

/// What the head-end holds and what its sources went through, for `/metrics`.
public struct HeadendFigures: Sendable, Hashable {
    public struct Source: Sendable, Hashable {
        public var channel: ChannelNumber
        public var counts: SourceSupervisor.Counts
        /// Bytes in the channel's GOP cache (0 when it is cold).
        public var cacheBytes: Int
    }

    public var sources: [Source]
    /// Decoders bound to a feed (the channel on screen, PiP, multiview tiles).
    public var decoders: Int
    /// Idle decoders kept ready for a flip.
    public var spareDecoders: Int
    /// Open ingest taps (timeshift recordings, republished channels, clip exports).
    public var taps: Int
    /// Timeshift buffers' bytes in memory and on disk; nil when timeshift is off.
    public var timeshift: Bytes?

    public struct Bytes: Sendable, Hashable {
        public var memory = 0
        public var disk = 0
    }
}

extension Headend {
    /// The figures now: reads counters and sizes only, builds nothing.
    public func figures() -> HeadendFigures {
        let timeshift: HeadendFigures.Bytes? = timeshiftSettings.map { _ in
            timeshiftBuffers.values.reduce(into: HeadendFigures.Bytes()) { total, recording in
                for gop in recording.buffer.index {
                    if gop.onDisk { total.disk += gop.bytes } else { total.memory += gop.bytes }
                }
            }
        }
        // The channels in the lineup now (a retired channel's number may be a new channel's).
        let (lineup, sources) = (self.lineup, self.sources)
        return HeadendFigures(
            sources: lineup.listed.map { sources[$0] }.map { HeadendFigures.Source(channel: $0.channel.number, counts: $0.counts, cacheBytes: $0.cache.byteCount) },
            decoders: decoders.values.filter { $0.decoder != nil }.count,
            spareDecoders: spares.count,
            taps: openTaps.count,
            timeshift: timeshift)
    }
}

extension HeadendFigures {
    /// No sources, nothing held.
    public static let none = HeadendFigures(sources: [], decoders: 0, spareDecoders: 0, taps: 0, timeshift: nil)
}
