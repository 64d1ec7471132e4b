import Foundation
import Lineup
import Logging

/// Lineups a source describes instead of a file: an HDHomeRun's (`hdhomerun://…`), an Xtream
/// Codes account's (`xtream://USER@HOST`), a Tvheadend server's (`tvheadend://USER@HOST`), a
/// playlist URL's, each perhaps under a YAML lineup that names it and adds the box's own settings
/// (``LineupOverlay``). A source's lineup is kept
/// in the state directory (`lineups/NAME.yaml`, a lineup file like any other) when read, so the
/// box starts with the last one read when the source cannot be reached.
public enum SourcedLineup {
    /// Whether `argument` names a source this reads (else it is a file or a playlist URL).
    public static func isSource(_ argument: String) -> Bool {
        let lower = argument.lowercased()
        return ["hdhomerun://", "xtream://", "xtreams://", "tvheadend://", "tvheadends://"].contains { lower.hasPrefix($0) }
    }

    /// The lineup `argument` names, read as every command reads it: a source such as
    /// `hdhomerun://auto` (or its kept lineup), an http(s) playlist URL (or its kept copy), a
    /// YAML lineup that names its source (`lineup:`, `xtream:`, `tvheadend:`; ``LineupOverlay``), else a file.
    /// Why a kept copy plays is the report's first warning. Throws a message when a source or
    /// URL cannot be read and nothing of it is kept.
    public static func report(for argument: String, stateDirectory: String?, logger: Logger,
                              environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> LineupReport {
        var (report, fallback) = try await reading(argument, stateDirectory: stateDirectory, logger: logger, environment: environment)
        if let fallback { report.say(fallback.reason, file: fallback.file) }
        return report
    }

    /// The lineup `argument` names, and apart from it why a kept copy was read instead of the
    /// source, and the source's name (nil: the source answered, or `argument` is a plain file).
    static func reading(_ argument: String, stateDirectory: String?, logger: Logger,
                        environment: [String: String]) async throws -> (LineupReport, fallback: (reason: String, file: String)?) {
        if let overlay = LineupLoader.overlay(path: argument) {
            if overlay.hasErrors { return (LineupReport(lineup: nil, diagnostics: overlay.diagnostics), nil) }
            let read: SourceRead
            switch overlay.source {
            case .argument(let named):
                guard let found = try await self.read(named, stateDirectory: stateDirectory, logger: logger, environment: environment)
                        ?? (try localFile(named, beside: overlay.file)) else {
                    return (LineupReport(lineup: nil, diagnostics: overlay.diagnostics + [
                        LineupDiagnostic(.error, file: argument, line: 0, "`lineup: \(SourceText.shown(named))` names no playlist URL, source or file"),
                    ]), nil)
                }
                read = found
            case .xtream(let server, let username, let passwordFile):
                let source = try XtreamSource(server: server, username: username, passwordFile: passwordFile, logger: logger)
                read = try await self.read(source, stateDirectory: stateDirectory, logger: logger)
            case .tvheadend(let server, let username, let passwordFile, let profile, let streams):
                let source = try TvheadendSource(server: server, username: username, passwordFile: passwordFile,
                                                 profile: profile, streams: streams, logger: logger)
                read = try await self.read(source, stateDirectory: stateDirectory, logger: logger)
            }
            let report = LineupLoader.check(text: read.text, file: read.description, format: read.format, overlay: overlay,
                                            sourceTellsLimits: read.tellsLimits)
            return (report, read.fallback.map { ($0, read.description) })
        }
        guard let read = try await self.read(argument, stateDirectory: stateDirectory, logger: logger, environment: environment) else {
            return (LineupLoader.check(path: argument), nil)
        }
        return (read.report(sayingFallback: false), read.fallback.map { ($0, read.description) })
    }

    /// Whether `argument` is read from a source that can change while the box plays (a URL, an
    /// HDHomeRun, an Xtream account, a Tvheadend server, or a YAML lineup naming one), rather
    /// than from a file of this box.
    public static func isRefreshable(_ argument: String) -> Bool {
        if isSource(argument) { return true }
        if let url = URL(string: argument), ["http", "https"].contains(url.scheme?.lowercased() ?? "") { return true }
        guard let overlay = LineupLoader.overlay(path: argument), !overlay.hasErrors else { return false }
        switch overlay.source {
        case .argument(let named): return isRefreshable(named)
        case .xtream, .tvheadend: return true
        }
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
        guard isSource(argument) else { return nil }
        return try await read(argument, stateDirectory: stateDirectory, logger: logger, environment: environment)?.report()
    }

    /// What a source said of its lineup (or its kept copy, and why).
    struct SourceRead {
        var text: String
        /// The source in messages (never with a password).
        var description: String
        var format: LineupFormat?
        /// Why the kept copy plays instead of a fresh one.
        var fallback: String?
        /// The kept copy, which the lineup is then read from.
        var kept: String?
        /// Whether its pools' limits are the source's word (a tuner count, an account's connections).
        var tellsLimits: Bool

        func report(sayingFallback: Bool = true) -> LineupReport {
            var report = LineupLoader.check(text: text, file: description, format: format)
            if var lineup = report.lineup {
                if tellsLimits {
                    for index in lineup.pools.indices where lineup.pools[index].streams != nil { lineup.pools[index].toldBySource = true }
                }
                if let kept { lineup.file = kept }
                report.lineup = lineup
            }
            if sayingFallback { report.say(fallback, file: description) }
            return report
        }
    }

    /// The lineup of a source (`hdhomerun://`, `xtream://`) or a playlist URL; nil when
    /// `argument` is neither.
    static func read(_ argument: String, stateDirectory: String?, logger: Logger, environment: [String: String]) async throws -> SourceRead? {
        if let source = try HDHomeRunSource(argument) {
            return try await read(source.description, keptName: source.keptName, stateDirectory: stateDirectory, logger: logger) {
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
            return try await read(source, stateDirectory: stateDirectory, logger: logger)
        }
        if let source = try TvheadendSource(argument, environment: environment) {
            if source.username != nil, let warning = TvheadendSource.account.fileWarning(in: environment) { logger.warning("\(warning)") }
            return try await read(source, stateDirectory: stateDirectory, logger: logger)
        }
        guard let url = URL(string: argument), url.scheme == "http" || url.scheme == "https" else { return nil }
        let download = try await PlaylistDownload(url: url, stateDirectory: stateDirectory).read()
        var fallback: String?
        if case .kept(let reason) = download.origin { fallback = "\(reason); playing the copy kept from its last download" }
        let text = try LineupLoader.text(download.data, file: PlaylistDownload.shown(url))
        return SourceRead(text: text, description: PlaylistDownload.shown(url), format: LineupFormat(path: url.path),
                          fallback: fallback, kept: nil, tellsLimits: false)
    }

    /// An Xtream Codes account's lineup.
    static func read(_ source: XtreamSource, stateDirectory: String?, logger: Logger) async throws -> SourceRead {
        try await read(source.description, keptName: source.keptName, stateDirectory: stateDirectory, logger: logger) {
            let lineup = try await source.fetch()
            let account = lineup.account
            let expiry = account.expires.map { " until \(ISO8601DateFormatter.string(from: $0, timeZone: .current, formatOptions: [.withFullDate]))" } ?? ""
            logger.notice("\(source.description): account \(account.status ?? "active")\(expiry), \(account.maxConnections.map { "\($0) connections" } ?? "no connection limit told")\(account.activeConnections.map { " (\($0) in use)" } ?? ""), \(lineup.entries.count) channels as .\(account.streamExtension)")
            for note in lineup.notes.prefix(20) { logger.warning("\(source.description): \(note)") }
            if lineup.notes.count > 20 { logger.warning("\(source.description): \(lineup.notes.count - 20) more channels left out or renumbered") }
            return lineup.yaml
        }
    }

    /// A Tvheadend server's lineup.
    static func read(_ source: TvheadendSource, stateDirectory: String?, logger: Logger) async throws -> SourceRead {
        try await read(source.description, keptName: source.keptName, stateDirectory: stateDirectory, logger: logger) {
            let lineup = try await source.fetch()
            logger.notice("\(source.description): \(lineup.entries.count) channel\(lineup.entries.count == 1 ? "" : "s") in profile \(source.profile), \(source.streams.map { "\($0) streams at once" } ?? "streams at once not given (learned as the server refuses them)")")
            for note in lineup.notes.prefix(20) { logger.warning("\(source.description): \(note)") }
            if lineup.notes.count > 20 { logger.warning("\(source.description): \(lineup.notes.count - 20) more channels left out or renumbered") }
            return lineup.yaml
        }
    }

    /// `lineup: FILE` of an overlay (made absolute when the overlay was read); nil when `named`
    /// is a URL.
    static func localFile(_ named: String, beside overlay: String) throws -> SourceRead? {
        guard named.hasPrefix("/") else { return nil }
        guard named != overlay else { throw LineupError(file: overlay, "`lineup:` names this same file") }
        let read = try LineupLoader.text(path: named)
        return SourceRead(text: read.text, description: named, format: LineupFormat(path: named), fallback: nil, kept: nil, tellsLimits: false)
    }

    /// The lineup `read` gives, kept as `keptName.yaml` (the owner's only: it may hold a
    /// password); the kept one, and why, when `read` fails.
    private static func read(_ description: String, keptName: String, stateDirectory: String?, logger: Logger,
                             read: () async throws -> String) async throws -> SourceRead {
        let kept = stateDirectory.map { (keptDirectory($0) as NSString).appendingPathComponent("\(keptName).yaml") }
        var fallback: String?
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
            fallback = "\(error); playing its lineup as read at \(when) (\(kept))"
            yaml = text
        }
        return SourceRead(text: yaml, description: description, format: .yaml, fallback: fallback, kept: kept, tellsLimits: true)
    }

    static func keep(_ text: String, at path: String) throws {
        try KeptFile.write(Data(text.utf8), to: path)
    }
}

extension LineupReport {
    /// `fallback` (why a kept copy plays) as the first warning, which every command shows: play
    /// and serve log it, doctor and `lineup check` print it.
    mutating func say(_ fallback: String?, file: String) {
        guard let fallback else { return }
        diagnostics.insert(LineupDiagnostic(.warning, file: file, line: 0, fallback), at: 0)
    }
}
