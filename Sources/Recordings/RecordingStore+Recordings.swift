import Foundation
import GRDB
import Lineup

extension RecordingStore {
    /// Writes what the scheduler derived, in one transaction: new recordings are added, stored
    /// ones still `scheduled` take the new times and data (one the recorder has begun is left
    /// alone), and the dropped ones that were still `scheduled` are removed.
    public func save(_ schedule: Schedule) throws(RecordingError) {
        var rows: [(String, StatementArguments)] = []
        for r in schedule.recordings { rows.append(try Self.upsert(r, onlyIfScheduled: true)) }
        try write("store the schedule") { db in
            for (sql, arguments) in rows { try db.execute(sql: sql, arguments: arguments) }
            for id in schedule.dropped {
                try db.execute(sql: "DELETE FROM recording WHERE id = ? AND state = 'scheduled'", arguments: [id.rawValue])
            }
        }
    }

    /// Adds or replaces one recording's own fields (not its parts and gaps).
    public func save(_ recording: Recording) throws(RecordingError) {
        let (sql, arguments) = try Self.upsert(recording, onlyIfScheduled: false)
        try write("store recording \(recording.id)") { db in try db.execute(sql: sql, arguments: arguments) }
    }

    private static func upsert(_ r: Recording, onlyIfScheduled: Bool) throws(RecordingError) -> (String, StatementArguments) {
        let sql = """
            INSERT INTO recording (id, channel, programme, programme_id, padded_start, padded_end, state, rules, one_off,
              priority, file_path, error, keep, note)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET channel = excluded.channel, programme = excluded.programme,
              programme_id = excluded.programme_id, padded_start = excluded.padded_start, padded_end = excluded.padded_end,
              state = excluded.state, rules = excluded.rules, one_off = excluded.one_off, priority = excluded.priority,
              file_path = excluded.file_path, error = excluded.error, keep = excluded.keep, note = excluded.note
            """ + (onlyIfScheduled ? " WHERE recording.state = 'scheduled'" : "")
        let arguments: StatementArguments = [
            r.id.rawValue, r.channel.description, try encode(r.programme), r.programmeID,
            r.paddedStart.timeIntervalSince1970, r.paddedEnd.timeIntervalSince1970, r.state.rawValue,
            try encode(r.rules), r.isOneOff, r.priority, r.filePath, r.error, r.keep, r.note,
        ]
        return (sql, arguments)
    }

    /// One recording with its parts and gaps; nil when there is none.
    public func recording(_ id: RecordingID) throws(RecordingError) -> Recording? {
        try read("read recording \(id)") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM recording WHERE id = ?", arguments: [id.rawValue]).map { try Self.recording($0, db) }
        }
    }

    /// Recordings in the given states (all when empty), by padded start.
    public func recordings(in states: Set<RecordingState> = []) throws(RecordingError) -> [Recording] {
        try read("read the recordings") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM recording ORDER BY padded_start, id")
                .map { try Self.recording($0, db) }
                .filter { states.isEmpty || states.contains($0.state) }
        }
    }

    /// Sets a recording's state, and the reason when it failed or stopped early.
    public func setState(_ id: RecordingID, _ state: RecordingState, error: String? = nil) throws(RecordingError) {
        try update(id, "set the state of") { db in
            try db.execute(sql: "UPDATE recording SET state = ?, error = COALESCE(?, error) WHERE id = ?",
                           arguments: [state.rawValue, error, id.rawValue])
        }
    }

    /// Marks a recording as one retention never removes (or lifts the mark).
    public func setKeep(_ id: RecordingID, _ keep: Bool) throws(RecordingError) {
        try update(id, "mark") { db in
            try db.execute(sql: "UPDATE recording SET keep = ? WHERE id = ?", arguments: [keep, id.rawValue])
        }
    }

    /// Where the viewer left recording `id` when it was played back; nil when never left
    /// part-way (or watched to its end).
    public func resumePosition(_ id: RecordingID) throws(RecordingError) -> Date? {
        try read("read where recording \(id) was left") { db in
            try Double.fetchOne(db, sql: "SELECT position FROM resume WHERE recording_id = ?", arguments: [id.rawValue])
                .map { Date(timeIntervalSince1970: $0) }
        }
    }

    /// Keeps where the viewer left recording `id` (nil: forgets it, watched to the end).
    public func setResumePosition(_ id: RecordingID, _ position: Date?) throws(RecordingError) {
        try write("keep where recording \(id) was left") { db in
            if let position {
                try db.execute(sql: """
                    INSERT INTO resume (recording_id, position) SELECT id, ? FROM recording WHERE id = ?
                    ON CONFLICT(recording_id) DO UPDATE SET position = excluded.position
                    """, arguments: [position.timeIntervalSince1970, id.rawValue])
            } else {
                try db.execute(sql: "DELETE FROM resume WHERE recording_id = ?", arguments: [id.rawValue])
            }
        }
    }

    /// Where the recorder writes the file, relative to the recordings directory.
    public func setFilePath(_ id: RecordingID, _ path: String) throws(RecordingError) {
        try update(id, "set the file of") { db in
            try db.execute(sql: "UPDATE recording SET file_path = ? WHERE id = ?", arguments: [path, id.rawValue])
        }
    }

    /// Removes a recording with its parts and gaps (not its file). False when there was none.
    @discardableResult
    public func remove(_ id: RecordingID) throws(RecordingError) -> Bool {
        try write("remove recording \(id)") { db in
            try db.execute(sql: "DELETE FROM recording WHERE id = ?", arguments: [id.rawValue])
            return db.changesCount > 0
        }
    }

    /// Runs `body` in a transaction; `.notFound` when it changed no row.
    func update(_ id: RecordingID, _ what: String, _ body: (Database) throws -> Void) throws(RecordingError) {
        let changed = try write("\(what) recording \(id)") { db in
            try body(db)
            return db.changesCount > 0
        }
        if !changed { throw RecordingError(.notFound, "there is no recording \(id)", source: id.rawValue) }
    }

    static func recording(_ row: Row, _ db: Database) throws -> Recording {
        let id: String = row["id"]
        let channelText: String = row["channel"]
        guard let channel = ChannelNumber(channelText) else {
            throw RecordingError(.storage, "recording \(id) has channel “\(channelText)”, which is not a number")
        }
        let parts = try Row.fetchAll(db, sql: "SELECT * FROM part WHERE recording_id = ? ORDER BY number", arguments: [id]).map {
            RecordingPart(number: $0["number"], start: date($0["start"]), lastWrite: date($0["last_write"]),
                          end: ($0["end"] as Double?).map(date), bytes: $0["bytes"])
        }
        let gaps = try Row.fetchAll(db, sql: "SELECT * FROM gap WHERE recording_id = ? ORDER BY start, id", arguments: [id]).map {
            RecordingGap(start: date($0["start"]), end: date($0["end"]), reason: $0["reason"])
        }
        let programmeText: String = row["programme"]
        let rulesText: String = row["rules"]
        let decoder = JSONDecoder()
        return Recording(
            id: RecordingID(id), channel: channel,
            programme: try decoder.decode(ProgrammeData.self, from: Data(programmeText.utf8)),
            paddedStart: date(row["padded_start"]), paddedEnd: date(row["padded_end"]),
            state: RecordingState(rawValue: row["state"]) ?? .failed,
            rules: try decoder.decode([RuleID].self, from: Data(rulesText.utf8)),
            isOneOff: row["one_off"], priority: row["priority"], programmeID: row["programme_id"], filePath: row["file_path"],
            parts: parts, gaps: gaps, error: row["error"], keep: row["keep"], note: row["note"])
    }

    static func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }
}
