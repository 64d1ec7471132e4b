import Foundation
import GRDB

extension RecordingStore {
    /// Merges `reported` into recording `id`'s breaks (``RecordingBreak/merged(_:_:limit:)``: a
    /// break reported again takes its new end, at most ``RecordingBreak/limit`` are kept, those
    /// not sane are left out), in one transaction. Returns how many it holds; `.notFound` when
    /// there is no such recording.
    @discardableResult
    public func addBreaks(_ reported: [RecordingBreak], to id: RecordingID) throws(RecordingError) -> Int {
        let outcome: Result<Int, RecordingError> = try write("store the breaks of recording \(id)") { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM recording WHERE id = ?", arguments: [id.rawValue]) != nil else {
                return .failure(RecordingError(.notFound, "there is no recording \(id)", source: id.rawValue))
            }
            let merged = RecordingBreak.merged(try Self.breaks(db, id), reported)
            try db.execute(sql: "DELETE FROM break WHERE recording_id = ?", arguments: [id.rawValue])
            for b in merged {
                try db.execute(sql: "INSERT INTO break (recording_id, start, end, origin) VALUES (?, ?, ?, ?)",
                               arguments: [id.rawValue, b.start.timeIntervalSince1970, b.end.timeIntervalSince1970, b.origin.rawValue])
            }
            return .success(merged.count)
        }
        return try outcome.get()
    }

    /// Recording `id`'s breaks in start order (none when there is no such recording).
    public func breaks(of id: RecordingID) throws(RecordingError) -> [RecordingBreak] {
        try read("read the breaks of recording \(id)") { db in try Self.breaks(db, id) }
    }

    private static func breaks(_ db: Database, _ id: RecordingID) throws -> [RecordingBreak] {
        try Row.fetchAll(db, sql: "SELECT start, end, origin FROM break WHERE recording_id = ? ORDER BY start, id",
                         arguments: [id.rawValue]).compactMap { row in
            // The CHECK constraint keeps the origins known; an unknown one is not a break of ours.
            RecordingBreak.Origin(rawValue: row["origin"]).map { RecordingBreak(start: date(row["start"]), end: date(row["end"]), origin: $0) }
        }
    }
}
