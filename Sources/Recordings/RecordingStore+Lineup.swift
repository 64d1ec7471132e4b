import Foundation
import GRDB
import Lineup

extension RecordingStore {
    /// What a lineup read again while the box runs did to the channels recordings name by
    /// number: those that took another number, and those no longer in the lineup.
    public struct ChannelMoves: Sendable, Hashable {
        /// Old number → new number.
        public var renumbered: [ChannelNumber: ChannelNumber]
        /// Old number → the channel's name, for channels the lineup no longer has.
        public var removed: [ChannelNumber: String]

        public init(renumbered: [ChannelNumber: ChannelNumber] = [:], removed: [ChannelNumber: String] = [:]) {
            self.renumbered = renumbered
            self.removed = removed
        }

        /// What taking a reading did (`Lineup.taking`: `old` became `new`, `slots` changed).
        public init(from old: Lineup, to new: Lineup, slots: LineupSlots) {
            self.init()
            for slot in slots.changed where old.isListed(slot) && new.isListed(slot) && old.channels[slot].number != new.channels[slot].number {
                renumbered[old.channels[slot].number] = new.channels[slot].number
            }
            for slot in slots.retired where old.isListed(slot) {
                removed[old.channels[slot].number] = old.channels[slot].name
            }
        }

        public var isEmpty: Bool { renumbered.isEmpty && removed.isEmpty }
    }

    /// Scheduled recordings and rules follow `moves`, in one transaction: a recording still to
    /// come on a renumbered channel takes its new number (so it records that channel, not
    /// whichever now has the old number), a rule for a renumbered channel too; a recording still
    /// to come on a channel no longer in the lineup fails, saying so. Recordings begun are left
    /// alone (the recorder holds their stream). Returns the recordings that failed.
    public func followLineup(_ moves: ChannelMoves) throws(RecordingError) -> [Recording] {
        guard !moves.isEmpty else { return [] }
        let rules = try self.rules()
        var changedRules: [(String, String)] = []
        for var rule in rules {
            guard let old = rule.channel, let new = moves.renumbered[old] else { continue }
            rule.channel = new
            changedRules.append((rule.id.rawValue, try Self.encode(rule)))
        }
        let failed: [RecordingID] = try write("follow the lineup's channels") { db in
            var failed: [RecordingID] = []
            let scheduled = try Row.fetchAll(db, sql: "SELECT id, channel FROM recording WHERE state = 'scheduled'")
            for row in scheduled {
                let id: String = row["id"]
                guard let old = ChannelNumber(row["channel"] as String) else { continue }
                if let name = moves.removed[old] {
                    try db.execute(sql: "UPDATE recording SET state = 'failed', error = ? WHERE id = ?",
                                   arguments: ["channel \(old) \(name) is no longer in the lineup", id])
                    failed.append(RecordingID(id))
                } else if let new = moves.renumbered[old] {
                    try db.execute(sql: "UPDATE recording SET channel = ? WHERE id = ?", arguments: [new.description, id])
                }
            }
            for (id, body) in changedRules {
                try db.execute(sql: "UPDATE rule SET body = ? WHERE id = ?", arguments: [body, id])
            }
            return failed
        }
        var told: [Recording] = []
        for id in failed { if let r = try recording(id) { told.append(r) } }
        return told
    }
}
