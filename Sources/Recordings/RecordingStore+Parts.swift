import Foundation
import GRDB

extension RecordingStore {
    /// Starts the next part of a recording (the first when it has none) and puts it in state
    /// `recording`. When an earlier part exists, the time from its last counted write to `start`
    /// is recorded as a gap with `gapReason`. Throws `.wrongState` for a recording that is
    /// finished or cancelled, `.notFound` for none. One transaction.
    @discardableResult
    public func appendPart(to id: RecordingID, at start: Date, gapReason: String = "restart") throws(RecordingError) -> RecordingPart {
        let outcome: Result<RecordingPart, RecordingError> = try write("add a part to recording \(id)") { db in
            guard let state = try String.fetchOne(db, sql: "SELECT state FROM recording WHERE id = ?", arguments: [id.rawValue])
            else { return .failure(RecordingError(.notFound, "there is no recording \(id)", source: id.rawValue)) }
            guard state == RecordingState.scheduled.rawValue || state == RecordingState.recording.rawValue else {
                return .failure(RecordingError(.wrongState, "recording \(id) is \(state); a part cannot be added", source: id.rawValue))
            }
            let last = try Row.fetchOne(db, sql: """
                SELECT number, last_write, end FROM part WHERE recording_id = ? ORDER BY number DESC LIMIT 1
                """, arguments: [id.rawValue])
            let number = (last?["number"] as Int? ?? 0) + 1
            if let last {
                let end = Self.date(last["end"] as Double? ?? last["last_write"])
                try db.execute(sql: "UPDATE part SET end = COALESCE(end, last_write) WHERE recording_id = ? AND number = ?",
                               arguments: [id.rawValue, number - 1])
                if start > end {
                    try Self.insertGap(db, id, start: end, end: start, reason: gapReason)
                }
            }
            try db.execute(sql: """
                INSERT INTO part (recording_id, number, start, last_write, end, bytes, session) VALUES (?, ?, ?, ?, NULL, 0, ?)
                """, arguments: [id.rawValue, number, start.timeIntervalSince1970, start.timeIntervalSince1970, session])
            try db.execute(sql: "UPDATE recording SET state = 'recording' WHERE id = ?", arguments: [id.rawValue])
            return .success(RecordingPart(number: number, start: start, lastWrite: start))
        }
        return try outcome.get()
    }

    /// Puts in front of a recording's parts the beginning fetched afterwards (from the
    /// channel's archive, joined at the front of its file): part 0, from `start` to `end`,
    /// `bytes` long. Throws `.wrongState` when it has one already, `.badValue` for a span that
    /// does not go forward or a negative size.
    public func addBeginning(to id: RecordingID, from start: Date, to end: Date, bytes: Int64) throws(RecordingError) {
        guard end > start, bytes >= 0 else {
            throw RecordingError(.badValue, "a beginning must end after it starts and hold bytes", source: id.rawValue)
        }
        let outcome: Result<Void, RecordingError> = try write("add the beginning of recording \(id)") { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM recording WHERE id = ?", arguments: [id.rawValue]) != nil else {
                return .failure(RecordingError(.notFound, "there is no recording \(id)", source: id.rawValue))
            }
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM part WHERE recording_id = ? AND number = 0", arguments: [id.rawValue]) == nil else {
                return .failure(RecordingError(.wrongState, "recording \(id) has its beginning already", source: id.rawValue))
            }
            try db.execute(sql: """
                INSERT INTO part (recording_id, number, start, last_write, end, bytes, session) VALUES (?, 0, ?, ?, ?, ?, ?)
                """, arguments: [id.rawValue, start.timeIntervalSince1970, end.timeIntervalSince1970, end.timeIntervalSince1970, bytes, session])
            return .success(())
        }
        try outcome.get()
    }

    /// Counts what a part holds so far (the recorder calls it as it writes, and after a crash
    /// the last count is where the part ends). A negative size is refused.
    public func updatePart(_ id: RecordingID, number: Int, bytes: Int64, at instant: Date) throws(RecordingError) {
        guard bytes >= 0 else { throw RecordingError(.badValue, "a part cannot hold \(bytes) bytes", source: id.rawValue) }
        try update(id, "count part \(number) of") { db in
            try db.execute(sql: "UPDATE part SET bytes = ?, last_write = ? WHERE recording_id = ? AND number = ?",
                           arguments: [bytes, instant.timeIntervalSince1970, id.rawValue, number])
        }
    }

    /// Closes a part: its end and final size.
    public func finishPart(_ id: RecordingID, number: Int, bytes: Int64, at end: Date) throws(RecordingError) {
        guard bytes >= 0 else { throw RecordingError(.badValue, "a part cannot hold \(bytes) bytes", source: id.rawValue) }
        try update(id, "close part \(number) of") { db in
            try db.execute(sql: "UPDATE part SET bytes = ?, last_write = ?, end = ? WHERE recording_id = ? AND number = ?",
                           arguments: [bytes, end.timeIntervalSince1970, end.timeIntervalSince1970, id.rawValue, number])
        }
    }

    /// Notes time missing from a recording (a source that stalled, a disk that filled).
    public func recordGap(_ id: RecordingID, from start: Date, to end: Date, reason: String) throws(RecordingError) {
        guard end > start else {
            throw RecordingError(.badValue, "a gap must end after it starts", source: id.rawValue)
        }
        try update(id, "add a gap to") { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM recording WHERE id = ?", arguments: [id.rawValue]) != nil else { return }
            try Self.insertGap(db, id, start: start, end: end, reason: reason)
        }
    }

    /// Ends a recording: its final state (`done`, `partial`, `failed`) and the reason, and closes
    /// a part left open at its last counted write.
    public func finish(_ id: RecordingID, as state: RecordingState, error: String? = nil) throws(RecordingError) {
        try update(id, "finish") { db in
            try db.execute(sql: "UPDATE part SET end = last_write WHERE recording_id = ? AND end IS NULL", arguments: [id.rawValue])
            try db.execute(sql: "UPDATE recording SET state = ?, error = COALESCE(?, error) WHERE id = ?",
                           arguments: [state.rawValue, error, id.rawValue])
        }
    }

    private static func insertGap(_ db: Database, _ id: RecordingID, start: Date, end: Date, reason: String) throws {
        try db.execute(sql: "INSERT INTO gap (recording_id, start, end, reason) VALUES (?, ?, ?, ?)",
                       arguments: [id.rawValue, start.timeIntervalSince1970, end.timeIntervalSince1970, reason])
    }
}
