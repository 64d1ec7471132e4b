import Foundation
import GRDB

/// Reminders on disk: `reminders.sqlite` in the state directory (SQLite through GRDB), apart from
/// the guide's file so a guide import or a schema change there never loses them. One reminder
/// per channel and start time; a reminder is removed once it has been proposed.
///
/// Thread-safe (`Sendable`): GRDB's queue serialises access.
public final class ReminderStore: Sendable {
    public static let fileName = "reminders.sqlite"
    public let path: String
    private let queue: DatabaseQueue

    /// One stored reminder.
    public struct Record: Sendable, Hashable, Codable {
        public var id: Int64
        /// The lineup channel's id.
        public var channelID: String
        public var title: String
        public var start: Date
        public var stop: Date
    }

    public init(directory: String) throws(GuideError) {
        path = (directory as NSString).appendingPathComponent(Self.fileName)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            queue = try DatabaseQueue(path: path)
            try queue.write { db in
                try db.execute(sql: """
                    CREATE TABLE IF NOT EXISTS reminder (
                      id INTEGER PRIMARY KEY,
                      channel_id TEXT NOT NULL,
                      title TEXT NOT NULL,
                      start INTEGER NOT NULL,
                      stop INTEGER NOT NULL,
                      UNIQUE (channel_id, start))
                    """)
            }
        } catch {
            throw GuideError(.storage, "cannot open the reminders: \(error)", source: path)
        }
    }

    /// Adds a reminder (or returns the one already set for that channel and start).
    @discardableResult
    public func add(channelID: String, title: String, start: Date, stop: Date) throws(GuideError) -> Record {
        do {
            return try queue.write { db in
                try db.execute(sql: """
                    INSERT INTO reminder (channel_id, title, start, stop) VALUES (?, ?, ?, ?)
                    ON CONFLICT(channel_id, start) DO UPDATE SET title = excluded.title, stop = excluded.stop
                    """, arguments: [channelID, title, Int64(start.timeIntervalSince1970), Int64(stop.timeIntervalSince1970)])
                let id = try Int64.fetchOne(db, sql: "SELECT id FROM reminder WHERE channel_id = ? AND start = ?",
                                            arguments: [channelID, Int64(start.timeIntervalSince1970)]) ?? db.lastInsertedRowID
                return Record(id: id, channelID: channelID, title: title,
                              start: Date(timeIntervalSince1970: start.timeIntervalSince1970.rounded(.down)),
                              stop: Date(timeIntervalSince1970: stop.timeIntervalSince1970.rounded(.down)))
            }
        } catch {
            throw GuideError(.storage, "cannot store the reminder: \(error)", source: path)
        }
    }

    /// Every reminder, earliest first.
    public func all() throws(GuideError) -> [Record] {
        do {
            return try queue.read { db in
                try Row.fetchAll(db, sql: "SELECT id, channel_id, title, start, stop FROM reminder ORDER BY start, id").map { row in
                    Record(id: row["id"], channelID: row["channel_id"], title: row["title"],
                           start: Date(timeIntervalSince1970: Double(row["start"] as Int64)),
                           stop: Date(timeIntervalSince1970: Double(row["stop"] as Int64)))
                }
            }
        } catch {
            throw GuideError(.storage, "cannot read the reminders: \(error)", source: path)
        }
    }

    /// Removes reminder `id`; false when there was none.
    @discardableResult
    public func remove(id: Int64) throws(GuideError) -> Bool {
        do {
            return try queue.write { db in
                try db.execute(sql: "DELETE FROM reminder WHERE id = ?", arguments: [id])
                return db.changesCount > 0
            }
        } catch {
            throw GuideError(.storage, "cannot remove the reminder: \(error)", source: path)
        }
    }
}
