import Display
import Foundation
import Logging
import ServiceLifecycle

/// For a service that started with no display connected (the TV off at boot) and settled for
/// headless: looks for a connected display every `interval` and, when one comes, ends the service
/// group so systemd (`Restart=always`) starts Flipbox again, now on the display and on the last
/// channel. The output's sink is fixed for the life of its pipeline; a restart takes about as
/// long as the TV takes to show its input.
struct DisplayArrival: Service {
    let deviceDirectory: String
    let logger: Logger
    var interval: Duration = .seconds(2)

    /// The first connected display's name and device (`HDMI-A-1 on /dev/dri/card0`), if any.
    static func connectedDisplay(in directory: String) -> String? {
        for card in DisplayProbe.cards(in: directory).cards {
            if let connector = card.connectedConnectors.first { return "\(connector.name) on \(card.path)" }
        }
        return nil
    }

    /// Returns when a display is connected (the group then shuts down), or on shutdown.
    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                if let display = Self.connectedDisplay(in: deviceDirectory) {
                    logger.notice("display: \(display) connected; restarting to draw on it (the service comes back on the last channel)")
                    return
                }
                try? await Task.sleep(for: interval)
            }
        }
    }
}
