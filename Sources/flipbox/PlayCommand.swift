import ArgumentParser
import CommandSupport
import Control
import Display
import Foundation
import GStreamer
import Headend
import Lineup
import Logging
import Output
import ServiceLifecycle
import RecordingWiring
import Serve
import Switcher

extension Player: PlayerControl {}

struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a lineup: flip with the keys or the HTTP API.",
        discussion: """
            Keys: Up/PageUp/+ next, Down/PageDown/- previous, digits then Enter (or wait 1.5 s) to tune, \
            Backspace for the last channel, i for info, g for the guide, q to quit; on a lock card, digits are the PIN. Remotes and keyboards on /dev/input \
            work too (--input evdev; key map in docs/box.md).
            """)

    @Argument(help: "The lineup: a file (.m3u, .m3u8, .yaml), a playlist URL, an HDHomeRun (hdhomerun://auto, hdhomerun://DEVICEID, hdhomerun://ADDRESS), an Xtream Codes account (xtream://USER@HOST[:PORT], xtreams:// for https; the password in $FLIPBOX_XTREAM_PASSWORD or a file named by $FLIPBOX_XTREAM_PASSWORD_FILE) or a Tvheadend server (tvheadend://USER@HOST[:PORT], port 9981 by default, tvheadends:// for https, tvheadend://HOST[:PORT] for its anonymous user; the password in $FLIPBOX_TVHEADEND_PASSWORD or a file named by $FLIPBOX_TVHEADEND_PASSWORD_FILE). Default: the demo lineup in Channels/.")
    var lineup: String?

    @Option(help: "auto, kms, window or headless.")
    var output: String = "auto"

    @OptionGroup(title: "Picture")
    var picture: OutputSizeOptions

    @OptionGroup(title: "Display")
    var display: DisplayOptions

    @Option(help: "Control API address HOST:PORT (loopback unless a --token is given).")
    var http: String = "127.0.0.1:8642"

    @Option(help: ArgumentHelp("Most connections the control API holds at once (more get 503). Default: 256.", valueName: "N"))
    var httpMaxConnections: Int?

    @Option(help: "Bearer token for the control API (required off loopback). Better: --token-file, or FLIPBOX_TOKEN in /etc/flipbox/flipbox.env.")
    var token: String?

    @Option(help: ArgumentHelp("A file (mode 0600) whose first line is the control API's token. Also FLIPBOX_TOKEN_FILE.", valueName: "PATH"))
    var tokenFile: String?

    @Option(help: "Bearer token for the served streams of --serve (TVs and players off loopback and --serve-allow); not the control token. Better: --serve-token-file, or FLIPBOX_SERVE_TOKEN.")
    var serveToken: String?

    @Option(help: ArgumentHelp("A file (mode 0600) whose first line is the served streams' token. Also FLIPBOX_SERVE_TOKEN_FILE.", valueName: "PATH"))
    var serveTokenFile: String?

    @Option(name: .customLong("allow-host"), help: ArgumentHelp(
        "A host name (or address) the control API answers to besides loopback and the --http host, when there is no token. Repeatable. Only on the command line: a lineup cannot set it.",
        valueName: "NAME"))
    var allowHosts: [String] = []

    @OptionGroup(title: "Warm channels")
    var warmth: WarmOptions

    @Option(help: "Start channel number. Default: the lineup's settings.start, else the last channel played, else the first.")
    var start: String?

    @Option(help: "Logo corner: top-left, top-right, bottom-left, bottom-right.")
    var logoCorner: String = "top-right"

    @Option(help: "Logo height as a fraction of the output height.")
    var logoSize: Double = 0.12

    @Option(help: "Logo opacity, 0 to 1.")
    var logoOpacity: Double = 0.9

    @Option(help: "Seconds the info banner stays after a flip; 0: none after flips (i still shows it). Default: the lineup's banner-seconds, else 4.")
    var bannerSeconds: Double?

    @OptionGroup(title: "Switcher")
    var switcher: SwitcherOptions

    @Option(help: "Key inputs: terminal, evdev, evdev:DIR, cec (the TV's remote over HDMI-CEC), lirc[:SOCKET] (lircd; default socket /var/run/lirc/lircd) (comma-separated) or none. Default: terminal when stdin is one, plus evdev when /dev/input can be read.")
    var input: String?

    @Flag(help: "Grab evdev devices so their keys do not also reach a console.")
    var grabInput = false

    @Option(help: "A key-map file for evdev devices and LIRC buttons: 'KEY_F1: info' a line (see docs/box.md).")
    var keymap: String?

    @Flag(help: "Do not read keys (same as --input none).")
    var noKeys = false

    @Flag(help: "Also serve the lineup to other screens (HTTP MPEG-TS, HLS, HDHomeRun, M3U, XMLTV; see docs/serve.md).")
    var serve = false

    @OptionGroup(title: "Serving (with --serve)")
    var serving: ServeOptions

    @OptionGroup(title: "Logos")
    var logoOptions: LogoOptions

    @Option(help: ArgumentHelp("Where recordings are written. Setting: recordings-dir. Default: STATE/recordings (the state directory's).", valueName: "DIR"))
    var recordingsDir: String?

    @OptionGroup(title: "Recordings")
    var retention: RetentionOptions

    @Flag(help: "Log more.")
    var verbose = false

    func run() async throws {
        let logger = makeLogger(verbose: verbose)
        var options = try playerOptions(logger: logger)
        if options.sink == .kms { try display.resolveKMS(into: &options, size: picture.size, fps: picture.fps, logger: logger) }
        if options.sink == .window { try display.resolveWindow(into: &options, size: picture.size, logger: logger) }
        let path = try lineupPath(self.lineup)
        let lineup = try await loadLineup(path: path, stateDirectory: StateDirectory.resolve(switcher.stateDir), logger: logger)
        var resolved = options
        resolved.audioDevice = display.resolveAudio(lineup: lineup, path: path, logger: logger)
        resolved.normalizeAudio = display.normalizeAudio ?? lineup.settings.normalizeAudio ?? false
        resolved.audioPassthrough = try display.resolvePassthrough(settings: lineup.settings)
        if resolved.audioPassthrough.isOn {
            let what = [resolved.audioPassthrough.ac3 ? "AC-3 is passed through undecoded" : nil,
                        resolved.audioPassthrough.eac3 ? "E-AC-3 is re-encoded as AC-3" : nil].compactMap { $0 }.joined(separator: " and ")
            if let device = resolved.audioDevice, !device.isDigitalLink {
                logger.warning("sound: \(what), but \(device) looks like an analog output, which plays it as noise; name the HDMI or S/PDIF device with --audio-device (`flipbox devices` lists them), or turn passthrough off")
            } else if let device = resolved.audioDevice {
                logger.info("sound: \(what), for the receiver behind \(device) to decode")
            } else if resolved.sink != .headless {
                logger.warning("sound: \(what), for the default sound device; name the HDMI or S/PDIF device with --audio-device (a sound server in between can turn the passed-through sound into noise)")
            }
        }
        (resolved.warm, resolved.warmBudget) = try warmth.resolve(lineup.settings)
        resolved.pools = try warmth.pools(lineup, stateDirectory: StateDirectory.resolve(switcher.stateDir))
        if bannerSeconds == nil, let seconds = lineup.settings.bannerSeconds { resolved.bannerSeconds = seconds }
        try switcher.apply(to: &resolved, lineup: lineup, lineupPath: path)
        let inputs = try remoteInputs()
        var keyMap = EvdevKeyMap.standard
        if inputs.usesKeyMap {
            let problems: [String]
            (keyMap, problems) = evdevKeyMap(settings: lineup.settings.keymap, lineupPath: path)
            for problem in problems { logger.error("keymap: \(problem)") }
        }
        let control = try controlConfiguration()
        do { try control.validate() } catch {
            FileHandle.standardError.write(Data("flipbox: \(error)\n".utf8))
            throw ExitCode(2)
        }

        // Every warm channel holds sockets and pipes; take the open-file room the system allows.
        var ownPorts = [control.port]
        if serve, let listen = ServeConfiguration.parseAddress(serving.listen) { ownPorts += [listen.port, 65001] }
        let logos = LogoCache(policy: try logoOptions.policy(ownPorts: ownPorts))
        let fileLimit = ProcessResources.raiseFileLimit()
        logger.debug("open-file limit: \(fileLimit)")
        try GStreamer.initialize()
        let guide = openGuide(lineup: lineup, stateDir: switcher.stateDir, logger: logger)
        // The composition root: the parts (output, head-end, cards...) are made here, the player
        // drives them, and what else needs the head-end or the output gets it from the parts.
        let parts: PlayerParts
        let player: Player
        var notifier: SystemdNotifier<Player>?
        do {
            parts = try PlayerParts.make(lineup: lineup, options: resolved, logoCache: logos, logger: logger)
            player = Player(lineup: lineup, options: resolved, parts: parts, programmes: guide.map(GuideProgrammes.init),
                            reminders: guide.map { GuideReminders(store: $0.reminders) }, logger: logger)
            let refreshed = player
            guide?.onRefresh { Task { await refreshed.guideChanged() } }
            notifier = SystemdNotifier(environment: ProcessInfo.processInfo.environment, player: player,
                                       events: player.events(), logger: logger)
            try await player.start()
        } catch {
            FileHandle.standardError.write(Data("flipbox: \(error)\n".utf8))
            throw ExitCode(1)
        }
        logger.notice("playing \(lineup.channels.count) channels from \(path) on \(resolved.sink.rawValue) \(resolved.width)x\(resolved.height)@\(resolved.fps), warm: \(resolved.warm)")

        let metrics = ControlMetrics()
        let clips = ClipLibrary(headend: parts.headend, logger: logger) { player.publishClip($0) }
        // Clips of locked content are refused, as the screen refuses it.
        await clips.setLocks { number, range in await player.clipLockReason(number, range: range) }
        // The picture and the keys do not need the API: an address it cannot listen on (taken, or
        // a LAN address not up yet at boot) is said, with the fix, and tried again while the box
        // plays. The configuration was validated above, so making the server does not throw.
        // Recordings: a --recordings-dir that cannot be written stops the box (it was asked for);
        // the default one is said and the box plays without recordings.
        var recordings: RecordingService?
        do {
            recordings = try RecordingLoop.make(headend: parts.headend, guide: guide,
                                                stateDirectory: StateDirectory.resolve(switcher.stateDir),
                                                directory: recordingsDirectory(lineup.settings, lineupPath: path), retention: try retention.policy(settings: lineup.settings),
                                                logger: logger)
        } catch {
            if recordingsDirectory(lineup.settings, lineupPath: path) != nil || error is ValidationError {
                await player.shutdown()
                FileHandle.standardError.write(Data("flipbox: \(error)\n".utf8))
                throw ExitCode(2)
            }
            logger.error("no recordings: \(error)")
        }
        let recordingAccess = recordings.map { RecordingAccess(service: $0, lineup: { player.lineup }) }
        if let recordings {
            await player.setGuideRecording(GuideRecordings(service: recordings))
            await player.setRecordingShelf(RecordingShelfOnStore(service: recordings, lineup: lineup))
        }
        let (host, port) = (control.host, control.port)
        let api = ListenRetry(
            name: "control API", address: ListenAddressCheck.address(host: host, port: port), logger: logger,
            problem: {
                await ListenAddressCheck.checkOffThePool(host: host, port: port)
                    .explanation(host: host, port: port, service: DisplayOptions.startedBySystemd)
            },
            server: { listening in
                try makeControlApplication(player: player, configuration: control, guide: guide, logger: logger, clips: clips,
                                           recordings: recordingAccess, metrics: metrics, onListening: listening)
            })
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: PlayerService(player: player)),
            .init(service: api),
        ]
        if let recordings { services.append(.init(service: RecordingLoop(recordings: recordings, player: player))) }
        if let guide { services.append(.init(service: GuideService(guide: guide))) }
        if let refresh = LineupRefreshService.make(path: path, lineup: lineup, taker: .player(player), guide: guide, recordings: recordings, stateDirectory: StateDirectory.resolve(switcher.stateDir),
                                                   logger: logger) {
            services.append(.init(service: refresh))
        }
        if resolved.sink == .kms, let kms = resolved.kms, let connector = kms.connectorName {
            services.append(.init(service: DisplayHotplug(
                output: parts.output, connector: connector,
                statusPath: ConnectorPresence.statusPath(devicePath: kms.devicePath, connector: connector), logger: logger)))
        }
        if resolved.sink == .headless, output == "auto", display.waitsForDisplayWhenHeadless {
            // Started with the TV off: a display that comes later restarts the service onto it.
            services.append(.init(service: DisplayArrival(deviceDirectory: DisplayOptions.deviceDirectory, logger: logger),
                                  successTerminationBehavior: .gracefullyShutdownGroup))
        }
        if serve {
            do {
                // Stream clients get a token of their own: a TV given a stream URL cannot drive the box.
                let streamToken = try TokenSource(option: "serve-token", variable: "FLIPBOX_SERVE_TOKEN")
                    .resolve(value: serveToken, file: serveTokenFile) { logger.warning("\($0)") }
                let configuration = try serving.configuration(lineup: lineup, path: path, token: streamToken,
                                                              locks: ServeLocks(rules: resolved.parental, lockedChannels: resolved.locked))
                let server = StreamServer(headend: parts.headend, settings: configuration.streams, logger: logger)
                metrics.addFigures { await server.metricFigures() }
                services += try makeServeServices(server: server, configuration: configuration, guide: guide, logos: logos,
                                                  recordings: recordings.map { StoredRecordings(store: $0.store, directory: $0.directory) },
                                                  logger: logger).map { .init(service: $0) }
            } catch {
                await player.shutdown()
                FileHandle.standardError.write(Data("flipbox: \(error)\n".utf8))
                throw ExitCode(2)
            }
        }
        let terminal = inputs.terminal ? TerminalKeys() : nil
        let evdev = inputs.evdevDirectory.map { EvdevKeys(directory: $0, map: keyMap, grab: grabInput, logger: logger) }
        let cec = inputs.cec ? CECRemote(logger: logger) : nil
        let lirc = inputs.lircSocket.map { LircKeys(socket: $0, map: keyMap, logger: logger) }
        if let cec {
            services.append(.init(service: CECPowerRelay(player: player, events: cec.power), successTerminationBehavior: .ignore))
        }
        let keyStreams = [terminal?.keys, evdev?.keys, cec?.keys, lirc?.keys].compactMap { $0 }
        if !keyStreams.isEmpty {
            services.append(.init(service: KeyboardRemote(player: player, keys: mergeKeys(keyStreams), logger: logger),
                                  successTerminationBehavior: .gracefullyShutdownGroup))
        }
        // Last, so it hears the shutdown first and says STOPPING=1 before the player stops.
        if let notifier { services.append(.init(service: notifier)) }
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            terminal?.restore()
            evdev?.stop()
            cec?.stop()
            lirc?.stop()
            throw error
        }
        terminal?.restore()
        evdev?.stop()
        cec?.stop()
        lirc?.stop()
    }

    func remoteInputs() throws -> RemoteInputs {
        if noKeys { return RemoteInputs(terminal: false, evdevDirectory: nil) }
        guard let input else {
            return .standard(stdinIsTerminal: isatty(0) == 1, devInputReadable: EvdevKeys.canRead())
        }
        do { return try RemoteInputs(parsing: input) } catch { throw ValidationError("\(error)") }
    }

    /// The standard evdev key map with the lineup's `keymap.*` settings and then the --keymap file
    /// applied. An entry that cannot be read is skipped, and so is a file that cannot be read; each
    /// is said in `problems` with its place (FILE:LINE, the setting or the file) and what play does
    /// instead. A bad key map never stops the box.
    /// Where recordings go when asked: `--recordings-dir` over the lineup's `recordings-dir`
    /// (relative to the lineup file's directory); nil for the default, `STATE/recordings`.
    func recordingsDirectory(_ settings: LineupSettings, lineupPath: String?) -> String? {
        if let recordingsDir { return recordingsDir }
        guard let written = settings.recordingsDir else { return nil }
        if (written as NSString).isAbsolutePath { return written }
        let base = lineupPath.flatMap { SourceScheme(url: $0) == nil ? ($0 as NSString).deletingLastPathComponent : nil }
            ?? StateDirectory.resolve(switcher.stateDir)
        return (base as NSString).appendingPathComponent(written)
    }

    func evdevKeyMap(settings: [String: String], lineupPath path: String) -> (map: EvdevKeyMap, problems: [String]) {
        var map = EvdevKeyMap.standard
        var skipped = map.apply(settings: settings, lineupPath: path)
        var problems: [String] = []
        if let keymap {
            if let text = try? String(contentsOfFile: keymap, encoding: .utf8) {
                skipped += map.apply(file: text, path: keymap)
            } else {
                let rest = settings.keys.contains { $0.hasPrefix("keymap.") } ? " with the lineup's keymap entries" : ""
                problems.append("--keymap \(keymap): \(Self.unreadable(keymap)); the default key map applies\(rest)")
            }
        }
        problems = skipped.map { "\($0); this entry is skipped, the others apply" } + problems
        return (map, problems)
    }

    /// Why the file at `path` cannot be read as text.
    static func unreadable(_ path: String) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return "there is no such file" }
        if isDirectory.boolValue { return "it is a directory, not a file" }
        guard FileManager.default.isReadableFile(atPath: path) else { return "this user may not read it" }
        return "it is not UTF-8 text"
    }

    func playerOptions(logger: Logger? = nil) throws -> PlayerOptions {
        let sink: OutputSink
        if output == "auto" { sink = display.automaticSink(logger: logger) } else {
            guard let s = OutputSink(rawValue: output) else { throw ValidationError("--output must be auto, kms, window or headless, not '\(output)'") }
            sink = s
        }
        let (w, h, fps) = try picture.resolved()
        guard let corner = LogoPlacement.Corner(rawValue: logoCorner) else {
            throw ValidationError("--logo-corner must be one of \(LogoPlacement.Corner.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard (0.02...0.5).contains(logoSize) else { throw ValidationError("--logo-size must be between 0.02 and 0.5") }
        guard (0...1).contains(logoOpacity) else { throw ValidationError("--logo-opacity must be between 0 and 1") }
        var options = PlayerOptions(sink: sink, width: w, height: h, fps: fps,
                                    logo: LogoPlacement(corner: corner, size: logoSize, opacity: logoOpacity))
        if let bannerSeconds {
            guard (0...3600).contains(bannerSeconds) else { throw ValidationError("--banner-seconds must be from 0 (no banner after flips) to 3600") }
            options.bannerSeconds = bannerSeconds
        }
        if let start {
            guard let n = ChannelNumber(start) else { throw ValidationError("--start must be a channel number like 7 or 9.1") }
            options.startChannel = n
        }
        return options
    }

    /// The control API's configuration: `--http`, the token, and the hosts `--allow-host` names
    /// (never the lineup: docs/security.md).
    func controlConfiguration() throws -> ControlServerConfiguration {
        guard let colon = http.lastIndex(of: ":"), let port = Int(http[http.index(after: colon)...]), (0...65535).contains(port) else {
            throw ValidationError("--http must be HOST:PORT, e.g. 127.0.0.1:8642, not '\(http)'")
        }
        var host = String(http[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let token = try TokenSource(option: "token", variable: "FLIPBOX_TOKEN").resolve(value: self.token, file: tokenFile) {
            FileHandle.standardError.write(Data("flipbox: warning: \($0)\n".utf8))
        }
        var configuration = ControlServerConfiguration(host: host, port: port, token: token, allowedHosts: allowHosts)
        configuration.connections = try ConnectionLimitOptions(maxConnections: (httpMaxConnections, "--http-max-connections"))
            .limits(default: configuration.connections)
        return configuration
    }
}

/// Runs the player for the lifetime of the service group and shuts it down gracefully.
struct PlayerService: Service {
    let player: Player
    func run() async throws {
        try? await gracefulShutdown()
        await player.shutdown()
    }
}
