import Foundation
import GRDB

/// The guide on disk: one SQLite file (`guide.sqlite` in the state directory) read through a
/// GRDB `DatabasePool`, so queries run while an import writes, and a restart has the guide at once.
///
/// Thread-safe (`Sendable`): queries may come from any thread; imports are serialised by SQLite.
///
/// An import fills a fresh table set (`programme_next`, `channel_next`) inside one write
/// transaction, settles the stop times, then drops the old tables and renames the new ones
/// before committing. A failed import rolls back: readers never see a partial guide and the
/// old one stays.
public final class GuideStore: Sendable {
    /// The file.
    public let path: String
    let pool: DatabasePool

    /// How long the last programme of a channel lasts when the file gives no stop time
    /// (XMLTV cannot say; an hour keeps "now" from naming an old show for ever).
    static let openEndedSeconds: Int64 = 3600
    /// Bump when the tables change; an older file is emptied and filled by the next import.
    static let schemaVersion = 1

    /// Opens (or creates) the store. Throws ``GuideError`` with code `.storage` when the file
    /// cannot be opened.
    public init(path: String) throws(GuideError) {
        self.path = path
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            pool = try DatabasePool(path: path, configuration: configuration)
            try pool.write { db in try Self.createSchema(db) }
        } catch let error as GuideError {
            throw error
        } catch {
            throw GuideError(.storage, "cannot open the guide store: \(error)", source: path)
        }
    }

    private static func createSchema(_ db: Database) throws {
        let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        if version != schemaVersion {
            for table in ["programme", "channel", "guide_meta", "programme_next", "channel_next"] {
                try db.execute(sql: "DROP TABLE IF EXISTS \(table)")
            }
            try db.execute(sql: "PRAGMA user_version = \(schemaVersion)")
        }
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS guide_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        try createTables(db, suffix: "", ifNotExists: true)
        try db.execute(sql: "CREATE INDEX IF NOT EXISTS programme_channel_start ON programme(channel, start)")
    }

    private static func createTables(_ db: Database, suffix: String, ifNotExists: Bool) throws {
        let guardClause = ifNotExists ? "IF NOT EXISTS " : ""
        try db.execute(sql: """
            CREATE TABLE \(guardClause)programme\(suffix) (
              id INTEGER PRIMARY KEY,
              channel TEXT NOT NULL,
              start INTEGER NOT NULL,
              stop INTEGER,
              title TEXT NOT NULL,
              sub_title TEXT,
              description TEXT,
              categories TEXT,
              episode_xmltv_ns TEXT,
              episode_onscreen TEXT,
              icon TEXT,
              ratings TEXT,
              star_rating TEXT,
              line INTEGER NOT NULL)
            """)
        try db.execute(sql: """
            CREATE TABLE \(guardClause)channel\(suffix) (
              id TEXT PRIMARY KEY, display_names TEXT NOT NULL, icon TEXT)
            """)
    }

    // MARK: Import

    /// One guide file to read in an import: its name for messages and how to open it.
    struct Input {
        var name: String
        var open: () throws(GuideError) -> any ByteSource
    }

    /// Replaces the stored guide with the programmes of `inputs`, merged, or throws and keeps
    /// the old one. Blocks the calling thread for the whole import.
    func replace(with inputs: [Input], sources: [String], now: Date = Date()) throws(GuideError) -> GuideImportSummary {
        let began = Date()
        var summary = GuideImportSummary(sources: sources)
        do {
            try pool.write { db in
                try db.execute(sql: "DROP TABLE IF EXISTS programme_next")
                try db.execute(sql: "DROP TABLE IF EXISTS channel_next")
                try Self.createTables(db, suffix: "_next", ifNotExists: false)
                let insertProgramme = try db.makeStatement(sql: """
                    INSERT INTO programme_next (channel, start, stop, title, sub_title, description, categories,
                      episode_xmltv_ns, episode_onscreen, icon, ratings, star_rating, line)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
                let insertChannel = try db.makeStatement(sql: """
                    INSERT INTO channel_next (id, display_names, icon) VALUES (?, ?, ?) ON CONFLICT(id) DO NOTHING
                    """)
                for input in inputs {
                    let parser = XMLTVParser(
                        name: input.name,
                        onChannel: { (channel) throws(GuideError) in
                            do {
                                try insertChannel.execute(arguments: [
                                    channel.id, ListColumn.encode(channel.displayNames), channel.icon,
                                ])
                            } catch { throw GuideError(.storage, "cannot store a channel: \(error)", source: input.name) }
                        },
                        onProgramme: { (p) throws(GuideError) in
                            do {
                                try insertProgramme.execute(arguments: [
                                    p.channel, p.start, p.stop, p.title, p.subTitle, p.description,
                                    p.categories.isEmpty ? nil : ListColumn.encode(p.categories),
                                    p.episodeXMLTVNS, p.episodeOnScreen, p.icon,
                                    p.ratings.isEmpty ? nil : ListColumn.encode(ratings: p.ratings),
                                    p.starRating, p.line,
                                ])
                            } catch {
                                throw GuideError(.storage, "cannot store a programme: \(error)", source: input.name, line: p.line)
                            }
                        })
                    let outcome = try parser.parse(try input.open())
                    summary.add(outcome, from: input.name)
                }
                try Self.settleTimes(db)
                summary.programmes = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM programme_next") ?? 0
                summary.channels = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM channel_next") ?? 0
                let longest = try Int64.fetchOne(db, sql: "SELECT MAX(stop - start) FROM programme_next") ?? 0

                try db.execute(sql: "DROP TABLE programme")
                try db.execute(sql: "DROP TABLE channel")
                try db.execute(sql: "ALTER TABLE programme_next RENAME TO programme")
                try db.execute(sql: "ALTER TABLE channel_next RENAME TO channel")
                try db.execute(sql: "CREATE INDEX programme_channel_start ON programme(channel, start)")
                let meta: [(String, String)] = [
                    ("sources", sources.joined(separator: "\n")),
                    ("imported_at", String(Int64(now.timeIntervalSince1970))),
                    ("longest_programme", String(longest)),
                ]
                for (key, value) in meta {
                    try db.execute(sql: "INSERT OR REPLACE INTO guide_meta (key, value) VALUES (?, ?)", arguments: [key, value])
                }
            }
        } catch let error as GuideError {
            throw error
        } catch {
            throw GuideError(.storage, "cannot write the guide store: \(error)", source: path)
        }
        summary.seconds = Date().timeIntervalSince(began)
        return summary
    }

    /// Makes every channel's programmes a sequence: a missing stop becomes the next start (or
    /// start + an hour for the last one); where programmes overlap the later start wins from its
    /// start on (the earlier one is cut there; of two with the same start, the later in the file
    /// wins); what is left with no length is dropped.
    private static func settleTimes(_ db: Database) throws {
        try db.execute(sql: """
            UPDATE programme_next SET stop = CASE
                WHEN n.next IS NULL THEN COALESCE(programme_next.stop, programme_next.start + \(openEndedSeconds))
                WHEN programme_next.stop IS NULL OR programme_next.stop > n.next THEN n.next
                ELSE programme_next.stop END
            FROM (SELECT id, LEAD(start) OVER (PARTITION BY channel ORDER BY start, id) AS next FROM programme_next) AS n
            WHERE programme_next.id = n.id
            """)
        try db.execute(sql: "DELETE FROM programme_next WHERE stop <= start")
    }

    // MARK: Queries

    /// What the store holds: where it came from and when, or nil before the first import.
    public func info() throws(GuideError) -> StoredGuideInfo? {
        try read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT key, value FROM guide_meta")
            var meta: [String: String] = [:]
            for row in rows { meta[row["key"]] = row["value"] }
            guard let imported = meta["imported_at"].flatMap(Int64.init) else { return nil }
            return StoredGuideInfo(
                sources: meta["sources"].map { $0.split(separator: "\n").map(String.init) } ?? [],
                importedAt: Date(timeIntervalSince1970: TimeInterval(imported)),
                programmes: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM programme") ?? 0,
                channels: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM channel") ?? 0)
        }
    }

    /// Every channel the guide describes.
    public func channels() throws(GuideError) -> [GuideChannel] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT id, display_names, icon FROM channel ORDER BY id").map { row in
                GuideChannel(id: row["id"], displayNames: ListColumn.decode(row["display_names"]), icon: row["icon"])
            }
        }
    }

    /// The programme on at `instant` on an XMLTV channel (nil in a gap) and the one after it.
    /// Two lookups on the (channel, start) index.
    public func nowNext(guideChannel: String, at instant: Date) throws(GuideError) -> (now: Programme?, next: Programme?) {
        let t = Int64(instant.timeIntervalSince1970.rounded(.down))
        return try read { db in
            let current = try db.cachedStatement(sql: """
                SELECT \(Self.columns) FROM programme WHERE channel = ? AND start <= ? ORDER BY start DESC LIMIT 1
                """)
            let following = try db.cachedStatement(sql: """
                SELECT \(Self.columns) FROM programme WHERE channel = ? AND start > ? ORDER BY start LIMIT 1
                """)
            let now = try Row.fetchOne(current, arguments: [guideChannel, t]).map(Self.programme).flatMap {
                $0.isOn(at: Date(timeIntervalSince1970: TimeInterval(t))) ? $0 : nil
            }
            let next = try Row.fetchOne(following, arguments: [guideChannel, t]).map(Self.programme)
            return (now, next)
        }
    }

    /// Programmes of XMLTV channels that are on at some moment in `from..<to`, by channel,
    /// each list in time order.
    public func programmes(guideChannels: [String], from: Date, to: Date) throws(GuideError) -> [String: [Programme]] {
        let lower = Int64(from.timeIntervalSince1970.rounded(.down))
        let upper = Int64(to.timeIntervalSince1970.rounded(.up))
        return try read { db in
            // Bounding the start from below by the longest programme keeps the scan on the index.
            let longest = try Int64.fetchOne(db, sql: "SELECT value FROM guide_meta WHERE key = 'longest_programme'") ?? 0
            let statement = try db.cachedStatement(sql: """
                SELECT \(Self.columns) FROM programme
                WHERE channel = ? AND start >= ? AND start < ? AND stop > ? ORDER BY start
                """)
            var result: [String: [Programme]] = [:]
            for channel in Set(guideChannels) {
                result[channel] = try Row.fetchAll(statement, arguments: [channel, lower - longest, upper, lower]).map(Self.programme)
            }
            return result
        }
    }

    private func read<T>(_ body: (Database) throws -> T) throws(GuideError) -> T {
        do {
            return try pool.read(body)
        } catch {
            throw GuideError(.storage, "cannot read the guide store: \(error)", source: path)
        }
    }

    private static let columns = """
        channel, start, stop, title, sub_title, description, categories, episode_xmltv_ns, episode_onscreen, \
        icon, ratings, star_rating
        """

    private static func programme(_ row: Row) -> Programme {
        Programme(
            channel: row[0],
            start: Date(timeIntervalSince1970: TimeInterval(row[1] as Int64)),
            stop: Date(timeIntervalSince1970: TimeInterval(row[2] as Int64)),
            title: row[3], subTitle: row[4], description: row[5],
            categories: ListColumn.decode(row[6]),
            episodeXMLTVNS: row[7], episodeOnScreen: row[8], icon: row[9],
            ratings: ListColumn.decodeRatings(row[10]), starRating: row[11])
    }
}

/// Lists kept in one text column: items separated by U+001F (unit separator), a rating's
/// system and value by U+001E. Neither can appear in XML 1.0 text.
enum ListColumn {
    static func encode(_ items: [String]) -> String { items.joined(separator: "\u{1F}") }

    static func decode(_ text: String?) -> [String] {
        guard let text, !text.isEmpty else { return [] }
        return text.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
    }

    static func encode(ratings: [Rating]) -> String {
        encode(ratings.map { "\($0.system ?? "")\u{1E}\($0.value)" })
    }

    static func decodeRatings(_ text: String?) -> [Rating] {
        decode(text).map { item in
            let parts = item.split(separator: "\u{1E}", maxSplits: 1, omittingEmptySubsequences: false)
            let system = parts.count == 2 && !parts[0].isEmpty ? String(parts[0]) : nil
            return Rating(system: system, value: String(parts.last ?? ""))
        }
    }
}

/// What an import did.
public struct GuideImportSummary: Sendable, Hashable, Codable {
    public var sources: [String]
    /// Programmes and channels stored (after dropping programmes with no length).
    public var programmes = 0
    public var channels = 0
    /// Programmes read from the files, and the ones skipped as unusable.
    public var programmesRead = 0
    public var skipped = 0
    /// `SOURCE: line N: reason` for the first few skipped programmes.
    public var skipReasons: [String] = []
    public var seconds: Double = 0

    public init(sources: [String]) { self.sources = sources }

    mutating func add(_ outcome: XMLTVParser.Outcome, from source: String) {
        programmesRead += outcome.programmes
        skipped += outcome.skipped
        skipReasons += outcome.skipReasons.map { "\(source): \($0)" }
    }
}

/// Where the stored guide came from, when, and how big it is.
public struct StoredGuideInfo: Sendable, Hashable {
    public var sources: [String]
    public var importedAt: Date
    public var programmes: Int
    public var channels: Int
}
