import Foundation
import Lineup

/// What the conflict check needs to know of the head-end's pools, as plain values (Recordings
/// does not import Headend): which pool a channel's stream comes from, and each pool's limit.
/// A channel with no pool, or a pool with no limit, is not rationed.
///
/// Only a channel's first source counts; backups in other pools are not modelled here.
public struct PoolLimits: Sendable, Hashable {
    public var poolOfChannel: [ChannelNumber: String]
    /// Streams the pool allows at once; a pool not listed has no limit.
    public var limits: [String: Int]

    public init(poolOfChannel: [ChannelNumber: String] = [:], limits: [String: Int] = [:]) {
        self.poolOfChannel = poolOfChannel
        self.limits = limits
    }

    public func pool(of channel: ChannelNumber) -> String? { poolOfChannel[channel] }

    /// Nil: unlimited. A negative limit counts as 0.
    public func limit(of pool: String) -> Int? { limits[pool].map { max(0, $0) } }
}

/// Streams a set of recordings holds in one pool over time: each recording holds one stream of
/// its channel, and recordings of the same channel share it.
struct PoolTimeline {
    let recordings: [Recording]

    /// The instants where the set of recordings changes, in order.
    var boundaries: [Date] {
        Array(Set(recordings.flatMap { [$0.paddedStart, $0.paddedEnd] })).sorted()
    }

    /// The streams in use from `instant` (inclusive) until the next boundary.
    func channels(at instant: Date, among set: [Recording]? = nil) -> Set<ChannelNumber> {
        Set((set ?? recordings).filter { $0.paddedStart <= instant && instant < $0.paddedEnd }.map(\.channel))
    }

    /// The most streams in use at once within `[start, end)`, counting `extra` as one more
    /// recording of that channel.
    func peak(from start: Date, to end: Date, adding extra: ChannelNumber? = nil) -> Int {
        let instants = [start] + boundaries.filter { $0 > start && $0 < end }
        return instants.map { instant in
            var channels = channels(at: instant)
            if let extra { channels.insert(extra) }
            return channels.count
        }.max() ?? 0
    }
}
