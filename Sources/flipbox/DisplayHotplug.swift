import Display
import Foundation
import Logging
import Output
import ServiceLifecycle

/// Follows the kms output's connector (its kernel status, read every second) and, when a display
/// comes back after being unplugged or switched off, starts the output's display side again so
/// the kms sink sets the mode anew: a TV switched off and on shows the picture again by itself.
struct DisplayHotplug: Service {
    let output: OutputPipeline
    let connector: String
    let statusPath: String
    let logger: Logger
    var interval: Duration = .seconds(1)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var presence = ConnectorPresence()
            while !Task.isCancelled {
                if let status = try? String(contentsOfFile: statusPath, encoding: .utf8) {
                    switch presence.read(status) {
                    case .lost?:
                        logger.warning("display: \(connector) disconnected (the TV is off or the cable out); the box plays on and sets the mode again when it is back")
                    case .back?:
                        logger.notice("display: \(connector) connected again; setting its mode")
                        do { try await output.restartDisplay() } catch {
                            logger.error("display: \(connector) is back but the output did not start again: \(error)")
                        }
                    case nil: break
                    }
                }
                try? await Task.sleep(for: interval)
            }
        }
    }
}
