import Foundation
import Lineup
import Logging

/// Lineups a source describes instead of a file: an HDHomeRun's (`hdhomerun://…`), an Xtream
/// Codes account's (`xtream://USER@HOST`), a Tvheadend server's (`tvheadend://USER@HOST`). Each is kept
/// in the state directory (`lineups/NAME.yaml`, a lineup file like any other) when read, so the
/// box starts with the last one read when the source cannot be reached.
public enum SourcedLineup {
    /// Whether `argument` names a source this reads (else it is a file or a playlist URL).
    public static func isSource(_ argument: String) -> Bool {
        let lower = argument.lowercased()
        return ["hdhomerun://", "xtream://", "xtreams://", "tvheadend://", "tvheadends://"].contains { lower.hasPrefix($0) }
    }

    /// The lineup `argument` names, read as every command reads it: a source such as
    /// `hdhomerun://auto` (or its kept lineup), an http(s) playlist URL (or its kept copy, said as
    /// the report's first warning), else a file. Throws a message when a source or URL cannot be
    /// read and nothing of it is kept.
    public static func report(for argument: String, stateDirectory: String?, logger: Logger) async throws -> LineupReport {
        if let report = try await load(argument, stateDirectory: stateDirectory, logger: logger) { return report }
        guard let url = URL(string: argument), url.scheme == "http" || url.scheme == "https" else {
            return LineupLoader.check(path: argument)
        }
        let read = try await PlaylistDownload(url: url, stateDirectory: stateDirectory).read()
        let shown = PlaylistDownload.shown(url)
        var report = LineupLoader.check(data: read.data, file: shown, format: LineupFormat(path: url.path))
        if case .kept(let reason) = read.origin {
            report.diagnostics.insert(LineupDiagnostic(.warning, file: shown, line: 0, "\(reason); playing the copy kept from its last download"), at: 0)
        }
        return report
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
            if let warning = XtreamSource.account.fileWarning(in: environment) { logger.warning("\(warning)") }
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
        if let source = try TvheadendSource(argument, environment: environment) {
            if source.username != nil, let warning = TvheadendSource.account.fileWarning(in: environment) { logger.warning("\(warning)") }
            return try await load(source.description, keptName: source.keptName, stateDirectory: stateDirectory, logger: logger) {
                let lineup = try await source.fetch()
                logger.notice("\(source.description): \(lineup.entries.count) channels in profile \(source.profile), \(source.streams.map { "\($0) streams at once" } ?? "streams at once not given (learned as the server refuses them)")")
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
        var fallback: String?
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
            fallback = "\(error); playing its lineup as read at \(when) (\(kept))"
            yaml = text
        }
        var report = LineupLoader.check(text: yaml, file: description, format: .yaml)
        // Why the kept lineup plays (an expired account, a tuner off the network) is the first
        // warning, which every command shows: play and serve log it, doctor and `lineup check` print it.
        if let fallback { report.diagnostics.insert(LineupDiagnostic(.warning, file: description, line: 0, fallback), at: 0) }
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
        try KeptFile.write(Data(text.utf8), to: path)
    }
}
