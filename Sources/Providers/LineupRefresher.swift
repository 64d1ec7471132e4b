import Foundation
import Synchronization
import Lineup
import Logging

/// Reads a sourced lineup again while the box plays (every `lineup-refresh`): the provider's
/// playlist with `If-None-Match` / `If-Modified-Since`, the Xtream account, the HDHomeRun, the
/// Tvheadend server. Each reading refreshes the copy kept in the state directory, so a restart
/// without network starts from the newest lineup; what changed against the last reading is told.
/// A reading that fails (the source down, an HTML page, a playlist that lost every channel)
/// keeps the last good lineup and says why.
public struct LineupRefresher: Sendable {
    /// What one reading gave.
    public enum Outcome: Sendable {
        /// The source answered: its lineup, and what changed against the one before.
        case read(Lineup, LineupChange)
        /// The source did not answer or gave no usable lineup: why (the last good one stays).
        case failed(String)
    }

    public let argument: String
    public let stateDirectory: String?
    public let logger: Logger
    let environment: [String: String]

    public init(argument: String, stateDirectory: String?, logger: Logger,
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.argument = argument
        self.stateDirectory = stateDirectory
        self.logger = logger
        self.environment = environment
    }

    /// The source as messages name it (never with a password).
    var shown: String {
        if let url = URL(string: argument), ["http", "https"].contains(url.scheme?.lowercased() ?? "") {
            return PlaylistDownload.shown(url)
        }
        return SourceText.shown(argument)
    }

    /// Reads the source once, against `last` (the lineup read before).
    public func refresh(against last: Lineup) async -> Outcome {
        let report: LineupReport
        let fallback: (reason: String, file: String)?
        do {
            (report, fallback) = try await SourcedLineup.reading(argument, stateDirectory: stateDirectory, logger: logger,
                                                                 environment: environment)
        } catch {
            return .failed("\(error)")
        }
        if let fallback { return .failed(fallback.reason) }
        guard let lineup = report.lineup else {
            let errors = report.diagnostics.filter { $0.severity == .error }.prefix(3).map(\.description)
            return .failed(errors.isEmpty ? "it gave no lineup" : errors.joined(separator: "; "))
        }
        return .read(lineup, LineupChange(from: last, to: lineup))
    }

    /// Reads the source every `interval` until the task is cancelled, starting from `lineup`
    /// (the one playing); `changed` is told each change (a reading with no change is not told).
    /// `now`: asked, the next reading is made within a second instead of at the interval (the
    /// box's `SIGHUP`).
    public func keepFresh(from lineup: Lineup, every interval: Duration, now: LineupReadNow? = nil,
                          changed: @escaping @Sendable (Lineup, LineupChange) async -> Void) async {
        var last = lineup
        while !Task.isCancelled {
            var waited = Duration.zero
            let step = min(interval, .seconds(1))
            while waited < interval, now?.take() != true {
                do { try await Task.sleep(for: step) } catch { return }
                waited += step
            }
            switch await refresh(against: last) {
            case .failed(let reason):
                logger.warning("lineup \(shown): reading it again failed: \(reason); the last lineup read stays")
            case .read(let lineup, let change):
                guard !change.isEmpty else {
                    logger.info("lineup \(shown): read again, no change")
                    continue
                }
                logger.notice("lineup \(shown): read again: \(change.summary)")
                last = lineup
                await changed(lineup, change)
            }
        }
    }
}

/// A request to read a lineup again now, instead of at its next `lineup-refresh` (any thread).
public final class LineupReadNow: Sendable {
    private let asked = Mutex(false)

    public init() {}

    /// Asks for a reading now.
    public func ask() { asked.withLock { $0 = true } }

    /// Whether a reading was asked for since the last `take`.
    func take() -> Bool { asked.withLock { was in defer { was = false }; return was } }
}
