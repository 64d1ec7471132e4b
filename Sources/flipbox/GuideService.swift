import Foundation
import Guide
import Lineup
import Logging
import ServiceLifecycle

/// Keeps the lineup's guide fresh while the box plays: refreshes at start when the stored guide
/// is stale, then every `guide-refresh`; stops on graceful shutdown.
struct GuideService: Service {
    let guide: Guide

    func run() async throws {
        await cancelWhenGracefulShutdown { await guide.keepFresh() }
    }
}

/// The lineup's guide from the state directory, or nil when the lineup names none or the
/// store cannot be opened (the box plays or serves without a guide and says why).
func openGuide(lineup: Lineup, stateDir: String?, logger: Logger) -> Guide? {
    guard !lineup.guideURLs.isEmpty else { return nil }
    do {
        return try Guide(stateDirectory: StateDirectory.resolve(stateDir), lineup: lineup, logger: logger)
    } catch {
        logger.error("no guide: \(error)")
        return nil
    }
}
