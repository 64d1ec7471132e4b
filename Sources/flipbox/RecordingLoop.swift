import Foundation
import Guide
import Headend
import Lineup
import Logging
import RecordingWiring
import Recordings
import ServiceLifecycle

/// Runs the box's recordings (`RecordingService`) while it plays; on graceful shutdown the
/// recordings stop and the next start resumes them.
struct RecordingLoop: Service {
    let recordings: RecordingService

    func run() async throws {
        await withGracefulShutdownHandler {
            await recordings.run()
        } onGracefulShutdown: { [recordings] in
            recordings.shutdown()
        }
    }

    /// The recording service over the head-end, the lineup and its guide: files under
    /// `directory` (default `STATE/recordings`), the schedule in `STATE/recordings.sqlite`. Throws
    /// when the directory cannot be written or the store opened, saying how to fix it.
    static func make(headend: Headend, lineup: Lineup, guide: Guide?, stateDirectory: String, directory: String?,
                     logger: Logger) throws(RecordingError) -> RecordingService {
        let folder = URL(fileURLWithPath: directory ?? (stateDirectory as NSString).appendingPathComponent("recordings"))
        let sources = RecordingService.Sources(
            channel: { lineup.channel(number: $0) },
            channels: { Set(lineup.channels.map(\.number)) },
            programmes: { from, to in
                guard let guide else { return [] }
                return try RecordingGuide.programmes(lineup: guide.lineup, match: guide.match, store: guide.store, from: from, to: to)
            })
        let service = try RecordingService(stateDirectory: stateDirectory, directory: folder, headend: headend, sources: sources,
                                           logger: logger)
        guide?.onRefresh { service.guideChanged() }
        return service
    }
}
