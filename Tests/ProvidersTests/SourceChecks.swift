import Foundation
import Lineup
@testable import Providers

/// Whether the first warning of `report` (which play logs and doctor and `lineup check` print)
/// says that the kept lineup plays, and `why`, without any of `secrets`.
func keptLineupPlays(_ report: LineupReport, because why: String, hiding secrets: [String]) -> Bool {
    let first = report.warnings.first.map { "\($0)" } ?? ""
    return first.contains(why) && first.contains("playing its lineup as read at") && !secrets.contains { first.contains($0) }
}

/// What `SourcedLineup.load` says when it cannot read `argument` (nothing kept); nil when it reads it.
func refusal(of argument: String, environment: [String: String]) async -> String? {
    await failure(of: argument, environment: environment)?.text
}

/// What reading `argument` throws, as shown and with its code when it is a `SourceFailure`; nil
/// when it reads.
func failure(of argument: String, environment: [String: String]) async -> (text: String, code: SourceFailureCode?)? {
    do {
        _ = try await SourcedLineup.load(argument, stateDirectory: nil, logger: LogLines().logger, environment: environment)
        return nil
    } catch {
        return ("\(error)", (error as? SourceFailure)?.code)
    }
}

/// Whether the file at `path` is its owner's only (0600): a kept lineup whose URLs carry a password.
func isOwnersOnly(_ path: String) -> Bool {
    let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber
    return mode?.intValue == 0o600
}
