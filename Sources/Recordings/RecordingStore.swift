import Foundation
import GRDB
import Lineup

/// Rules and recordings on disk: `recordings.sqlite` in the state directory (SQLite through
/// GRDB), beside the guide's file. Every change is one transaction, so a crash leaves the file
/// as it was before or after it, never between.
///
/// A recording found in state `recording` when the store opens was cut short by a stop or a
/// crash: ``interrupted()`` lists it, and the recorder resumes into it with
/// ``appendPart(to:at:gapReason:)`` (the time between the parts becomes a gap).
///
/// Thread-safe (`Sendable`): GRDB's queue serialises access.
public final class RecordingStore: Sendable {
    public static let fileName = "recordings.sqlite"
    public let path: String
    let queue: DatabaseQueue
    /// Marks the parts written through this opening of the store, so a part of a process
    /// that stopped is told from a part resumed since.
    let session = UUID().uuidString

    /// Opens (or creates and migrates) `recordings.sqlite` in `directory`.
    public init(directory: String) throws(RecordingError) {
        path = (directory as NSString).appendingPathComponent(Self.fileName)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            var configuration = Configuration()
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            queue = try DatabaseQueue(path: path, configuration: configuration)
            try Self.migrator.migrate(queue)
        } catch {
            throw RecordingError(.storage, "cannot open the recordings: \(error)", source: path)
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE rule (id TEXT PRIMARY KEY, body TEXT NOT NULL);
                CREATE TABLE recording (
                  id TEXT PRIMARY KEY,
                  channel TEXT NOT NULL,
                  programme TEXT NOT NULL,
                  programme_id TEXT,
                  padded_start REAL NOT NULL,
                  padded_end REAL NOT NULL CHECK (padded_end >= padded_start),
                  state TEXT NOT NULL
                    CHECK (state IN ('scheduled', 'recording', 'done', 'failed', 'partial', 'cancelled')),
                  rules TEXT NOT NULL,
                  one_off INTEGER NOT NULL,
                  priority INTEGER NOT NULL,
                  file_path TEXT,
                  error TEXT,
                  keep INTEGER NOT NULL DEFAULT 0,
                  note TEXT);
                CREATE INDEX recording_state ON recording(state);
                CREATE TABLE part (
                  recording_id TEXT NOT NULL REFERENCES recording(id) ON DELETE CASCADE,
                  number INTEGER NOT NULL,
                  start REAL NOT NULL,
                  last_write REAL NOT NULL,
                  end REAL,
                  bytes INTEGER NOT NULL CHECK (bytes >= 0),
                  session TEXT NOT NULL,
                  PRIMARY KEY (recording_id, number));
                CREATE TABLE gap (
                  id INTEGER PRIMARY KEY,
                  recording_id TEXT NOT NULL REFERENCES recording(id) ON DELETE CASCADE,
                  start REAL NOT NULL,
                  end REAL NOT NULL CHECK (end >= start),
                  reason TEXT NOT NULL);
                CREATE INDEX gap_recording ON gap(recording_id);
                """)
        }
        // Where the viewer left each recording played back.
        migrator.registerMigration("v2") { db in
            try db.execute(sql: """
                CREATE TABLE resume (
                  recording_id TEXT PRIMARY KEY REFERENCES recording(id) ON DELETE CASCADE,
                  position REAL NOT NULL);
                """)
        }
        // The ad breaks inside each recording (SCTE-35 cues, the lineup's schedule).
        migrator.registerMigration("v3") { db in
            try db.execute(sql: """
                CREATE TABLE break (
                  id INTEGER PRIMARY KEY,
                  recording_id TEXT NOT NULL REFERENCES recording(id) ON DELETE CASCADE,
                  start REAL NOT NULL,
                  end REAL NOT NULL CHECK (end >= start),
                  origin TEXT NOT NULL CHECK (origin IN ('scte35', 'lineup')));
                CREATE INDEX break_recording ON break(recording_id);
                """)
        }
        return migrator
    }

    // MARK: Rules

    /// Stores a rule (replacing one with its id) after ``RecordingRule/validate()``.
    public func save(_ rule: RecordingRule) throws(RecordingError) {
        try rule.validate()
        let body = try Self.encode(rule)
        try write("store rule \(rule.id)") { db in
            try db.execute(sql: "INSERT OR REPLACE INTO rule (id, body) VALUES (?, ?)", arguments: [rule.id.rawValue, body])
        }
    }

    /// Every rule, by id.
    public func rules() throws(RecordingError) -> [RecordingRule] {
        try read("read the rules") { db in
            try String.fetchAll(db, sql: "SELECT body FROM rule ORDER BY id").map { body in
                try JSONDecoder().decode(RecordingRule.self, from: Data(body.utf8))
            }
        }
    }

    /// Removes a rule; its scheduled recordings go at the next derivation. False when none.
    @discardableResult
    public func removeRule(_ id: RuleID) throws(RecordingError) -> Bool {
        try write("remove rule \(id)") { db in
            try db.execute(sql: "DELETE FROM rule WHERE id = ?", arguments: [id.rawValue])
            return db.changesCount > 0
        }
    }

    // MARK: Crash recovery

    /// Recordings left in state `recording` by a process that stopped (a crash, a kill, a
    /// power cut), that no part has been written to since this store opened: the recorder
    /// resumes each (``appendPart(to:at:gapReason:)``) or, past its end, finishes it.
    public func interrupted() throws(RecordingError) -> [Recording] {
        try read("find interrupted recordings") { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM recording WHERE state = 'recording'
                AND NOT EXISTS (SELECT 1 FROM part WHERE part.recording_id = recording.id AND part.session = ?)
                ORDER BY padded_start, id
                """, arguments: [session]).map { try Self.recording($0, db) }
        }
    }

    // MARK: Plumbing

    static func encode<T: Encodable>(_ value: T) throws(RecordingError) -> String {
        do {
            return String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
        } catch {
            throw RecordingError(.storage, "cannot encode \(T.self): \(error)")
        }
    }

    func write<T>(_ what: String, _ body: (Database) throws -> T) throws(RecordingError) -> T {
        try guarded(what) { try queue.write(body) }
    }

    func read<T>(_ what: String, _ body: (Database) throws -> T) throws(RecordingError) -> T {
        try guarded(what) { try queue.read(body) }
    }

    /// Runs `access`; SQLite's errors become `.storage` naming what was being done.
    private func guarded<T>(_ what: String, _ access: () throws -> T) throws(RecordingError) -> T {
        do {
            return try access()
        } catch let error as RecordingError {
            throw error
        } catch {
            throw RecordingError(.storage, "cannot \(what): \(error)", source: path)
        }
    }
}
