import FlipboxCore
import Foundation
import Lineup

// A lineup read again while the box plays (`lineup-refresh`) may give channels new stream
// addresses (a provider's rotated token, another path on its server): they are taken without
// cutting anything (the stream open now goes on; the next connection, a reconnect or a failover,
// takes the new ones). Other changes (channels added, removed, renumbered, renamed) apply at the
// next start.
extension Headend {
    /// What `readdress` did.
    public struct Readdressing: Sendable, Equatable {
        /// The channels that took their new addresses.
        public var taken: [ChannelNumber] = []
        /// Channels that keep their old ones until the next start, and why.
        public var later: [String] = []
    }

    /// Gives each channel whose addresses changed in `change` its new ones. A channel whose new
    /// main address is on another server (another pool, whose limit the box may not know) keeps
    /// its old ones until the next start. A channel that has them already (`change` is against
    /// the lineup read at start, so a later reading gives them again) is left as it is.
    public func readdress(_ change: LineupChange) async -> Readdressing {
        var outcome = Readdressing()
        for kept in change.readdressed {
            guard let source = sources.first(where: { $0.channel.id == kept.after.id }),
                  source.addresses != kept.after.sources else { continue }
            let before = source.channel
            let oldPool = source.addresses.first.flatMap { poolMap.pool(for: $0) }
            let newPool = kept.after.sources.first.flatMap { poolMap.pool(for: $0) }
            guard oldPool == newPool else {
                outcome.later.append("channel \(before.number) \(before.name): its new address is on another server")
                continue
            }
            await source.readdress(kept.after.sources)
            outcome.taken.append(before.number)
        }
        if !outcome.taken.isEmpty {
            let one = outcome.taken.count == 1
            let named = outcome.taken.prefix(5).map(\.description).joined(separator: ", ") + (outcome.taken.count > 5 ? ", …" : "")
            logger.notice("lineup: \(one ? "channel \(named) takes its" : "\(outcome.taken.count) channels (\(named)) take their") new stream address at the next connection; the stream open now goes on")
        }
        return outcome
    }
}
