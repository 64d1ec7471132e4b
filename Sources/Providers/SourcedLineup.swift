import Foundation
import Lineup
import Logging

/// Lineups a source describes instead of a file: an HDHomeRun's (`hdhomerun://…`), an Xtream
/// Codes account's (`xtream://USER@HOST`). Each is kept
/// in the state directory (`lineups/NAME.yaml`, a lineup file like any other) when read, so the
/// box starts with the last one read when the source cannot be reached.
public enum SourcedLineup {
    /// Whether `argument` names a source this reads (else it is a file or a playlist URL).
    public static func isSource(_ argument: String) -> Bool {
        let lower = argument.lowercased()
        return lower.hasPrefix("hdhomerun://") || lower.hasPrefix("xtream://") || lower.hasPrefix("xtreams://")
    }

    /// The directory of kept lineups in `stateDirectory`.
    public static func keptDirectory(_ stateDirectory: String) -> String {
        (stateDirectory as NSString).appendingPathComponent("lineups")
    }

    /// The lineup `argument` names, with its warnings; nil when it names no source (a file, a URL).
    /// Throws a message for the person running the box when the source cannot be read and nothing
    /// is kept of it.
    public static func load(_ argument: String, stateDirectory: String?, logger: Logger,
                            environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> LineupReport? {
        if let source = try HDHomeRunSource(argument) {
            return try await load(source.description, keptName: source.keptName, stateDirectory: stateDirectory, logger: logger) {
                let device = try await source.fetch()
                logger.notice("\(source.description): \(device.name) (HDHomeRun \(device.device.deviceIDText)) at \(device.baseURL), \(device.tunerCount.map { "\($0) tuners" } ?? "tuner count not said"), \(device.entries.count) channels")
                for other in device.others {
                    logger.info("\(source.description): HDHomeRun \(other.deviceIDText) at \(other.address) answered too; play it with hdhomerun://\(other.deviceIDText)")
                }
                for skipped in device.skipped.prefix(20) { logger.warning("\(source.description): left out \(skipped)") }
                if device.skipped.count > 20 { logger.warning("\(source.description): \(device.skipped.count - 20) more entries left out") }
                return device.yaml
            }
        }
        if let source = try XtreamSource(argument, environment: environment) {
            if environment[XtreamSource.passwordVariable]?.isEmpty ?? true, let file = environment[XtreamSource.passwordFileVariable],
               let warning = try? XtreamSource.readPassword(file: file).warning {
                logger.warning("\(warning)")
            }
            return try await load(source.description, keptName: source.keptName, stateDirectory: stateDirectory, logger: logger) {
                let lineup = try await source.fetch()
                let account = lineup.account
                let expiry = account.expires.map { " until \(ISO8601DateFormatter.string(from: $0, timeZone: .current, formatOptions: [.withFullDate]))" } ?? ""
                logger.notice("\(source.description): account \(account.status ?? "active")\(expiry), \(account.maxConnections.map { "\($0) connections" } ?? "no connection limit told")\(account.activeConnections.map { " (\($0) in use)" } ?? ""), \(lineup.entries.count) channels as .\(account.streamExtension)")
                for note in lineup.notes.prefix(20) { logger.warning("\(source.description): \(note)") }
                if lineup.notes.count > 20 { logger.warning("\(source.description): \(lineup.notes.count - 20) more channels left out or renumbered") }
                return lineup.yaml
            }
        }
        return nil
    }

    /// The lineup `read` gives, kept as `keptName.yaml` (the owner's only: it may hold a
    /// password); the kept one, and why, when `read` fails.
    private static func load(_ description: String, keptName: String, stateDirectory: String?, logger: Logger,
                             read: () async throws -> String) async throws -> LineupReport {
        let kept = stateDirectory.map { (keptDirectory($0) as NSString).appendingPathComponent("\(keptName).yaml") }
        let yaml: String
        do {
            yaml = try await read()
            if let kept {
                do { try keep(yaml, at: kept) } catch {
                    logger.warning("\(description): cannot keep a copy of its lineup in \(kept) (the box needs the source to start): \(error)")
                }
            }
        } catch {
            guard let kept, let text = try? String(contentsOfFile: kept, encoding: .utf8) else { throw error }
            let when = (try? FileManager.default.attributesOfItem(atPath: kept)[.modificationDate] as? Date).map {
                ISO8601DateFormatter().string(from: $0)
            } ?? "an earlier start"
            logger.warning("\(error); playing its lineup as read at \(when) (\(kept))")
            yaml = text
        }
        var report = LineupLoader.check(text: yaml, file: description, format: .yaml)
        if var lineup = report.lineup {
            // The pool's limit is the source's word (tuners, connections), whether read now or kept.
            for index in lineup.pools.indices where lineup.pools[index].streams != nil { lineup.pools[index].toldBySource = true }
            lineup.file = kept
            report.lineup = lineup
        }
        return report
    }

    /// Writes `text` to `path` whole or not at all (a temporary file renamed over it).
    static func keep(_ text: String, at path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        // A source's stream URLs may carry an account's password: the owner's only.
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }
}
