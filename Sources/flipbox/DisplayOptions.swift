import ArgumentParser
import Display
import Foundation
import Logging
import Output
import Switcher

/// `play`'s display options: which connector and mode the kms output uses.
struct DisplayOptions: ParsableArguments {
    @Option(help: "The display mode for --output kms: auto (the display's preferred mode) or WIDTHxHEIGHT[@HZ], e.g. 1920x1080@60. The output's size is the mode's; its frame rate follows the refresh unless --fps is given.")
    var mode: String?

    @Option(help: "The connector for --output kms, e.g. HDMI-A-1 (`flipbox doctor` lists them). Default: the first with a display connected.")
    var connector: String?

    /// The directory of DRM devices (tests point it elsewhere).
    static let deviceDirectory = ProcessInfo.processInfo.environment["FLIPBOX_DRI_DIR"] ?? "/dev/dri"

    /// The mode `--mode` asks for, `--size` when only that is given, else the preferred one.
    func modeRequest(size: String?) throws -> ModeRequest {
        guard let text = mode ?? size else { return .automatic }
        guard let request = ModeRequest(text) else {
            throw ValidationError("--mode must be auto or WIDTHxHEIGHT[@HZ], e.g. 1920x1080@60, not '\(text)'")
        }
        return request
    }

    /// `--output auto`: a window under X11/Wayland; KMS when a display is connected and Flipbox
    /// runs as a service (no terminal) or on a text console; headless otherwise.
    func automaticSink() -> OutputSink {
        OutputSink.automatic(stdinIsTerminal: isatty(0) == 1,
                             displayConnected: !DisplayProbe.cards(in: Self.deviceDirectory).cards.allSatisfy { $0.connectedConnectors.isEmpty })
    }

    /// For the kms sink: probes the displays and fills in the size, the frame rate (the mode's
    /// refresh unless `fps` was given) and the target. Throws a message naming the devices and
    /// modes found when the request cannot be met.
    func resolveKMS(into options: inout PlayerOptions, size: String?, fps: Int?, logger: Logger) throws {
        let request = try modeRequest(size: size)
        let choice: DisplayChoice
        do { choice = try DisplayProbe.choose(in: Self.deviceDirectory, connectorName: connector, mode: request) } catch {
            throw ValidationError("--output kms: \(error)")
        }
        options.width = choice.mode.width
        options.height = choice.mode.height
        options.fps = fps ?? choice.mode.refresh
        options.kms = KMSTarget(devicePath: choice.card.path, connectorID: choice.connector.id)
        logger.notice("display: \(choice)")
        let set = choice.modeKMSSinkSets
        if set != choice.mode {
            logger.warning("display: kmssink sets the first \(set.width)x\(set.height) mode the display lists, \(set), not \(choice.mode)")
        }
    }
}
