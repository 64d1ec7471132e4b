import Lineup
import Logging
import Providers
import ServiceLifecycle

/// Reads a sourced lineup again every `lineup-refresh` while the box plays or serves
/// (``LineupRefresher``): its kept copy stays fresh for the next start, and what changed is
/// logged. The channels playing now stay as they were read at start: a change takes effect at
/// the next start. Stops on graceful shutdown.
struct LineupRefreshService: Service {
    let refresher: LineupRefresher
    let lineup: Lineup
    let interval: Duration

    /// The service for `path`'s lineup, or nil when it is a file of this box or its
    /// `lineup-refresh` is off.
    static func make(path: String, lineup: Lineup, stateDirectory: String?, logger: Logger) -> LineupRefreshService? {
        guard SourcedLineup.isRefreshable(path), case .every(let interval) = lineup.settings.lineupRefresh else { return nil }
        return LineupRefreshService(refresher: LineupRefresher(argument: path, stateDirectory: stateDirectory, logger: logger),
                                    lineup: lineup, interval: interval)
    }

    func run() async throws {
        let logger = refresher.logger
        await cancelWhenGracefulShutdown {
            await refresher.keepFresh(from: lineup, every: interval) { _, _ in
                logger.notice("the channels playing now stay as read at start; the new lineup applies at the next start")
            }
        }
    }
}
