/// What changed between two readings of a lineup, channel by channel: matched by their ids
/// (`tvg-id`, the source's own id), so a channel that moved, was renamed or got a new address is
/// the same channel. Pure.
public struct LineupChange: Sendable, Hashable {
    /// A channel in both readings, as it was and as it is.
    public struct Kept: Sendable, Hashable {
        public var before: Channel
        public var after: Channel
    }

    /// Channels only in the new reading, in its order.
    public var added: [Channel] = []
    /// Channels only in the old reading, in its order.
    public var removed: [Channel] = []
    /// Channels with another number.
    public var renumbered: [Kept] = []
    /// Channels with another name.
    public var renamed: [Kept] = []
    /// Channels with other stream addresses (a provider's rotated token, another server).
    public var readdressed: [Kept] = []
    /// Channels with anything else changed (logo, group, guide id, rating, options…).
    public var otherwise: [Kept] = []

    public init(from old: Lineup, to new: Lineup) {
        let oldByID = Dictionary(old.channels.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let newIDs = Set(new.channels.map(\.id))
        var seen: Set<String> = []
        for channel in new.channels where seen.insert(channel.id).inserted {
            guard let before = oldByID[channel.id] else {
                added.append(channel)
                continue
            }
            let kept = Kept(before: before, after: channel)
            if before.number != channel.number { renumbered.append(kept) }
            if before.name != channel.name { renamed.append(kept) }
            if before.sources != channel.sources { readdressed.append(kept) }
            var same = channel
            same.number = before.number
            same.name = before.name
            same.sources = before.sources
            same.location = before.location
            // The raw attributes that say the number and the name were compared above.
            for key in Self.numberAndNameAttributes { same.attributes[key] = before.attributes[key] }
            if same != before { otherwise.append(kept) }
        }
        var gone: Set<String> = []
        for channel in old.channels where !newIDs.contains(channel.id) && gone.insert(channel.id).inserted {
            removed.append(channel)
        }
    }

    /// Nothing changed.
    public var isEmpty: Bool {
        added.isEmpty && removed.isEmpty && renumbered.isEmpty && renamed.isEmpty && readdressed.isEmpty && otherwise.isEmpty
    }

    /// Whether the channels, their order and numbers stay: only names, addresses or other
    /// details changed.
    public var keepsTheChannels: Bool { added.isEmpty && removed.isEmpty && renumbered.isEmpty }

    /// For the person running the box: `2 channels added (7 Sports, 8 News), 1 removed (3 Old),
    /// 1 renumbered (5 Film → 15), 1 renamed (2 News → 2 News HD), 3 with new addresses`; a few
    /// channels are named in each part, then how many more.
    public var summary: String {
        func named(_ channels: [String]) -> String {
            let shown = channels.prefix(Self.namedAtMost).joined(separator: ", ")
            return channels.count > Self.namedAtMost ? "\(shown) and \(channels.count - Self.namedAtMost) more" : shown
        }
        func count(_ n: Int, _ what: String) -> String { "\(n) channel\(n == 1 ? "" : "s") \(what)" }
        var parts: [String] = []
        if !added.isEmpty { parts.append("\(count(added.count, "added")) (\(named(added.map { "\($0.number) \($0.name)" })))") }
        if !removed.isEmpty { parts.append("\(count(removed.count, "removed")) (\(named(removed.map { "\($0.number) \($0.name)" })))") }
        if !renumbered.isEmpty {
            parts.append("\(count(renumbered.count, "renumbered")) (\(named(renumbered.map { "\($0.before.number) \($0.after.name) → \($0.after.number)" })))")
        }
        if !renamed.isEmpty {
            parts.append("\(count(renamed.count, "renamed")) (\(named(renamed.map { "\($0.after.number) \($0.before.name) → \($0.after.name)" })))")
        }
        if !readdressed.isEmpty { parts.append("\(count(readdressed.count, "with new stream addresses"))") }
        if !otherwise.isEmpty { parts.append("\(count(otherwise.count, "with other details (logo, group, guide id…)"))") }
        return parts.isEmpty ? "no change" : parts.joined(separator: ", ")
    }

    /// M3U attributes that give a channel's number or name (kept raw beside the typed values).
    static let numberAndNameAttributes = ["tvg-chno", "channel-number", "tvg-name"]

    /// How many channels each part of `summary` names.
    static let namedAtMost = 3
}
