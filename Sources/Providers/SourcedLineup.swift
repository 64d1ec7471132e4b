import Foundation
import Lineup
import Logging

/// Lineups a source describes instead of a file: an HDHomeRun's (`hdhomerun://…`). Each is kept
/// in the state directory (`lineups/NAME.yaml`, a lineup file like any other) when read, so the
/// box starts with the last one read when the source cannot be reached.
public enum SourcedLineup {
    /// Whether `argument` names a source this reads (else it is a file or a playlist URL).
    public static func isSource(_ argument: String) -> Bool {
        argument.lowercased().hasPrefix("hdhomerun://")
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
    public static func load(_ argument: String, stateDirectory: String?, logger: Logger) async throws -> LineupReport? {
        guard let source = try HDHomeRunSource(argument) else { return nil }
        let kept = stateDirectory.map { (keptDirectory($0) as NSString).appendingPathComponent("\(source.keptName).yaml") }
        let yaml: String
        do {
            let device = try await source.fetch()
            logger.notice("\(source.description): \(device.name) (HDHomeRun \(device.device.deviceIDText)) at \(device.baseURL), \(device.tunerCount.map { "\($0) tuners" } ?? "tuner count not said"), \(device.entries.count) channels")
            for other in device.others {
                logger.info("\(source.description): HDHomeRun \(other.deviceIDText) at \(other.address) answered too; play it with hdhomerun://\(other.deviceIDText)")
            }
            for skipped in device.skipped.prefix(20) { logger.warning("\(source.description): left out \(skipped)") }
            if device.skipped.count > 20 { logger.warning("\(source.description): \(device.skipped.count - 20) more entries left out") }
            yaml = device.yaml
            if let kept {
                do { try keep(yaml, at: kept) } catch {
                    logger.warning("\(source.description): cannot keep a copy of its lineup in \(kept) (the box needs the device to start): \(error)")
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
        var report = LineupLoader.check(text: yaml, file: source.description, format: .yaml)
        if var lineup = report.lineup {
            // The tuner count is the device's word, whether read now or kept.
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
    }
}
