import ArgumentParser
import Display
import Foundation
import Lineup
import Logging
import Output
import Switcher

/// `play`'s display options: which connector and mode the kms output uses.
struct DisplayOptions: ParsableArguments {
    @Option(help: "The display mode for --output kms: auto (the display's preferred mode) or WIDTHxHEIGHT[@HZ], e.g. 1920x1080@60. The output's size is the mode's; its frame rate follows the refresh unless --fps is given.")
    var mode: String?

    @Option(help: "The connector for --output kms, e.g. HDMI-A-1 (`flipbox devices` lists them). Default: the first with a display connected.")
    var connector: String?

    @Flag(inversion: .prefixedNo, help: "The window output covers the screen with no cursor; its size is the screen's unless --size is given. Default: full screen when there is no terminal (a service, a kiosk session), a normal window otherwise.")
    var fullscreen: Bool?

    @Option(help: "Where the sound goes: an ALSA playback device as hw:CARD,DEVICE or its name, e.g. hw:0,3 or 'HDMI 0' (`flipbox devices` lists them). Setting: audio-device. Default: the system's default device.")
    var audioDevice: String?

    @Flag(inversion: .prefixedNo, help: "Bring every channel's sound to one loudness, so a flip does not jump in volume. Setting: normalize-audio. Default: off.")
    var normalizeAudio: Bool?

    @Option(help: "Send Dolby sound undecoded, for the AV receiver or TV behind HDMI or S/PDIF to decode (surround sound): ac3 (AC-3 as sent), eac3 (E-AC-3 re-encoded as AC-3), ac3,eac3, or off. Setting: audio-passthrough. Default: off.")
    var audioPassthrough: String?

    /// What `--audio-passthrough` (else the lineup's `audio-passthrough`) sends on undecoded.
    func resolvePassthrough(settings: LineupSettings?) throws -> AudioPassthrough {
        guard let text = audioPassthrough else { return settings?.audioPassthrough ?? .off }
        switch AudioPassthrough.parse(text) {
        case .success(let value): return value
        case .failure(let problem): throw ValidationError("--audio-passthrough: \(problem)")
        }
    }

    /// The playback device `--audio-device` (else the lineup's `audio-device`) names, or nil for
    /// the default one. A device that is not there is said once, with the ones there are, and
    /// the box plays on the default device: a missing sound card never keeps the picture off.
    func resolveAudio(lineup: Lineup, path: String, logger: Logger,
                      devices: [AudioDevice] = AudioDevice.playbackDevices()) -> AudioDevice? {
        guard let spec = audioDevice ?? lineup.settings.audioDevice else { return nil }
        do {
            let device = try AudioDevice.find(spec, in: devices)
            logger.info("sound: \(device)")
            return device
        } catch {
            let origin = audioDevice != nil ? "--audio-device" : lineup.settingOrigin("audio-device", path: path)
            logger.warning("\(origin) '\(spec)': \(error.reason); \(error.listing). Playing on the default sound device.")
            return nil
        }
    }

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

    /// How long Flipbox started by systemd waits for a display: the GPU's driver can load after
    /// the service starts (udev loads it while the boot goes on).
    static let serviceDisplayWait: Duration = .seconds(30)

    /// Started by systemd (which sets `INVOCATION_ID` for every service it runs).
    static var startedBySystemd: Bool { ProcessInfo.processInfo.environment["INVOCATION_ID"] != nil }

    /// `--output auto`: a window under X11/Wayland; KMS when a display is connected and Flipbox
    /// runs as a service (no terminal) or on a text console; headless otherwise. Started by
    /// systemd, it waits up to `serviceDisplayWait` for a display before it settles for headless
    /// (and `DisplayArrival` restarts it onto a display that comes later).
    func automaticSink(logger: Logger?) -> OutputSink {
        let stdinIsTerminal = isatty(0) == 1
        func connected() -> Bool {
            DisplayProbe.cards(in: Self.deviceDirectory).cards.contains { !$0.connectedConnectors.isEmpty }
        }
        let sink = OutputSink.automatic(stdinIsTerminal: stdinIsTerminal, displayConnected: connected())
        guard sink == .headless, waitsForDisplayWhenHeadless else { return sink }
        logger?.notice("display: none connected yet; waiting up to \(Self.serviceDisplayWait) for one (a GPU driver may still be loading)")
        guard Self.waitFor(Self.serviceDisplayWait, connected) else {
            logger?.notice("display: none connected: playing headless (the HTTP API and snapshots work) until one is, then restarting onto it")
            return .headless
        }
        return .kms
    }

    /// Whether `--output auto` would draw on a display if one were connected, as a service does
    /// (started by systemd, no terminal): then a headless start was for want of a display, and
    /// one that comes later is worth a restart (`DisplayArrival`).
    var waitsForDisplayWhenHeadless: Bool {
        Self.startedBySystemd && OutputSink.automatic(stdinIsTerminal: isatty(0) == 1, displayConnected: true) == .kms
    }

    /// Polls `condition` every 250 ms until it holds or `limit` passed; whether it held.
    static func waitFor(_ limit: Duration, _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + limit
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.25)
        }
        return true
    }

    /// For the kms sink: probes the displays and fills in the size, the frame rate (the mode's
    /// refresh unless `fps` was given) and the target. Throws a message naming the devices and
    /// modes found when the request cannot be met.
    func resolveKMS(into options: inout PlayerOptions, size: String?, fps: Int?, logger: Logger) throws {
        let request = try modeRequest(size: size)
        func attempt() -> Result<DisplayChoice, DisplayError> {
            Result { () throws(DisplayError) in try DisplayProbe.choose(in: Self.deviceDirectory, connectorName: connector, mode: request) }
        }
        var outcome = attempt()
        // A service waits for its display (the GPU's driver may still be loading); a mode the
        // display lacks does not come by waiting.
        if case .failure(let error) = outcome, error.code != .noSuchMode, Self.startedBySystemd {
            logger.notice("display: \(error.message); waiting up to \(Self.serviceDisplayWait)")
            _ = Self.waitFor(Self.serviceDisplayWait) {
                outcome = attempt()
                if case .failure(let e) = outcome { return e.code == .noSuchMode }
                return true
            }
        }
        let choice: DisplayChoice
        switch outcome {
        case .success(let c): choice = c
        case .failure(let error): throw ValidationError("--output kms: \(error)")
        }
        options.width = choice.mode.width
        options.height = choice.mode.height
        options.fps = fps ?? choice.mode.refresh
        options.kms = KMSTarget(devicePath: choice.card.path, connectorID: choice.connector.id, connectorName: choice.connector.name)
        logger.notice("display: \(choice)")
        let set = choice.modeKMSSinkSets
        if set != choice.mode {
            logger.warning("display: kmssink sets the first \(set.width)x\(set.height) mode the display lists, \(set), not \(choice.mode)")
        }
    }

    /// For the window sink: whether it is full screen (`--fullscreen`/`--no-fullscreen`, else
    /// when stdin is not a terminal: a box has none) and, full screen without `--size`, the
    /// output's size is the screen's, so the picture covers it.
    func resolveWindow(into options: inout PlayerOptions, size: String?, stdinIsTerminal: Bool = isatty(0) == 1,
                       logger: Logger) throws {
        options.fullscreen = fullscreen ?? !stdinIsTerminal
        guard options.fullscreen, size == nil, !OutputSink.waylandOnly() else { return }
        do {
            let screen = try FullscreenWindow.screenSize()
            // The output's size must be even (I420); an odd screen leaves a line of black.
            options.width = screen.width & ~1
            options.height = screen.height & ~1
            logger.notice("display: full-screen window at \(options.width)x\(options.height)")
        } catch {
            throw ValidationError("--fullscreen: \(error)")
        }
    }
}
