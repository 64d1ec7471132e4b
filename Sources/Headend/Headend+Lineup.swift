import FlipboxCore
import Foundation
import Lineup

// A lineup read again while the box plays (`lineup-refresh`) is taken in place
// (`Lineup.taking`): every channel keeps its slot, so no position held by a flip, a feed or a
// client goes stale. A new channel gets a source of its own (cold until the plan warms it); a
// renamed or renumbered one takes its new value at once; new stream addresses are taken without
// cutting anything (the stream open now goes on, the next connection takes them); a channel no
// longer in the lineup leaves the plan, and its stream stops once nothing shows it.
extension Headend {
    /// What `take` did, for the person running the box.
    public struct LineupTaking: Sendable, Equatable {
        /// The channels that took new stream addresses.
        public var readdressed: [ChannelNumber] = []
        /// Channels no longer in the lineup that still play (on screen, or served): they stop
        /// when nothing shows them.
        public var stillShown: [ChannelNumber] = []

        public init() {}
    }

    /// Takes `lineup`, the box's lineup with a reading taken (`Lineup.taking` of this head-end's
    /// `lineup`), whose `slots` changed, and plans again.
    @discardableResult
    public func take(_ lineup: Lineup, slots changed: LineupSlots) async -> LineupTaking {
        var outcome = LineupTaking()
        let (added, sources) = takeSlots(lineup)
        // A channel on a server the lineup had no channel on brings that server's pool.
        func notePool(of addresses: [String]) {
            if let pool = addresses.first.flatMap(poolMap.pool(for:)), !lineupPools.contains(pool) { lineupPools.append(pool) }
        }
        for (_, source) in added { notePool(of: source.addresses) }
        for slot in changed.changed where sources.indices.contains(slot) {
            let source = sources[slot], channel = lineup.channels[slot]
            if source.addresses != channel.sources {
                outcome.readdressed.append(channel.number)
                notePool(of: channel.sources)
            }
            await source.take(channel)
        }
        let shown = sourcesInUse
        outcome.stillShown = changed.retired.filter { sources.indices.contains($0) && shown.contains(ObjectIdentifier(sources[$0])) }
            .map { lineup.channels[$0].number }
        if !outcome.readdressed.isEmpty {
            let one = outcome.readdressed.count == 1
            let named = outcome.readdressed.prefix(5).map(\.description).joined(separator: ", ") + (outcome.readdressed.count > 5 ? ", …" : "")
            logger.notice("lineup: \(one ? "channel \(named) takes its" : "\(outcome.readdressed.count) channels (\(named)) take their") new stream address at the next connection; the stream open now goes on")
        }
        await replan()
        return outcome
    }
}
