import Foundation
import Lineup

/// Which XMLTV channel each lineup channel takes its programmes from.
///
/// A lineup channel matches, in this order:
/// 1. by id: the guide channel whose id is the channel's guide id (`tvg-id`, YAML `guide`),
///    else its lineup `id`; exactly, then ignoring case;
/// 2. by name: the first guide channel (in id order) with a display name, or an id, whose
///    ``ChannelNameKey`` equals the channel name's.
public struct GuideMatch: Sendable, Hashable {
    public enum Method: String, Sendable, Hashable, Codable {
        case id
        case name
    }

    public struct Entry: Sendable, Hashable {
        public var guideChannel: String
        public var method: Method
    }

    /// By lineup channel id.
    public private(set) var entries: [String: Entry] = [:]

    public init() {}

    public init(lineup: Lineup, guideChannels: [GuideChannel]) {
        var exact: Set<String> = []
        var lowercased: [String: String] = [:]
        var byName: [ChannelNameKey: String] = [:]
        for channel in guideChannels.sorted(by: { $0.id < $1.id }) {
            exact.insert(channel.id)
            if lowercased[channel.id.lowercased()] == nil { lowercased[channel.id.lowercased()] = channel.id }
            for name in channel.displayNames + [Self.idAsName(channel.id)] {
                let key = ChannelNameKey(name)
                if !key.text.isEmpty, byName[key] == nil { byName[key] = channel.id }
            }
        }
        for channel in lineup.channels {
            let ids = [channel.guideID, channel.id].compactMap { $0 }.filter { !$0.isEmpty }
            if let id = ids.first(where: exact.contains) {
                entries[channel.id] = Entry(guideChannel: id, method: .id)
            } else if let id = ids.lazy.compactMap({ lowercased[$0.lowercased()] }).first {
                entries[channel.id] = Entry(guideChannel: id, method: .id)
            } else if let id = byName[ChannelNameKey(channel.name)] {
                entries[channel.id] = Entry(guideChannel: id, method: .name)
            }
        }
    }

    /// The XMLTV channel of a lineup channel, if any.
    public func guideChannel(for lineupChannelID: String) -> String? { entries[lineupChannelID]?.guideChannel }

    /// Lineup channels with no match, in lineup order.
    public func unmatched(in lineup: Lineup) -> [Channel] { lineup.channels.filter { entries[$0.id] == nil } }

    /// `DasErste.de` → `DasErste`, `bbc1@SD` → `bbc1`: ids often carry a country or a variant.
    static func idAsName(_ id: String) -> String {
        var name = id
        if let at = name.firstIndex(of: "@") { name = String(name[..<at]) }
        if let dot = name.lastIndex(of: "."), name.distance(from: dot, to: name.endIndex) <= 4 {
            name = String(name[..<dot])
        }
        return name
    }
}
