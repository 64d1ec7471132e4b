import Headend
import Lineup
import Logging
import Providers
import ServiceLifecycle

/// Reads a sourced lineup again every `lineup-refresh` while the box plays or serves
/// (``LineupRefresher``): its kept copy stays fresh for the next start, and what changed is
/// logged. New stream addresses of the channels are taken at once (`Headend.readdress`: the
/// stream open now goes on, the next connection takes them); channels added, removed,
/// renumbered or renamed apply at the next start. Stops on graceful shutdown.
struct LineupRefreshService: Service {
    let refresher: LineupRefresher
    let lineup: Lineup
    let interval: Duration
    let headend: Headend

    /// The service for `path`'s lineup, or nil when it is a file of this box or its
    /// `lineup-refresh` is off.
    static func make(path: String, lineup: Lineup, headend: Headend, stateDirectory: String?, logger: Logger) -> LineupRefreshService? {
        guard SourcedLineup.isRefreshable(path), case .every(let interval) = lineup.settings.lineupRefresh else { return nil }
        return LineupRefreshService(refresher: LineupRefresher(argument: path, stateDirectory: stateDirectory, logger: logger),
                                    lineup: lineup, interval: interval, headend: headend)
    }

    func run() async throws {
        let logger = refresher.logger, headend = self.headend, start = lineup
        await cancelWhenGracefulShutdown {
            await refresher.keepFresh(from: lineup, every: interval) { refreshed, _ in
                // Against the lineup the box plays: what it has not taken yet is said again.
                let change = LineupChange(from: start, to: refreshed)
                let readdressing = await headend.readdress(change)
                for later in readdressing.later { logger.notice("lineup: \(later); it applies at the next start") }
                var rest = change
                rest.readdressed = []
                if !rest.isEmpty {
                    logger.notice("lineup: \(rest.summary): this applies at the next start")
                }
            }
        }
    }
}
