import ArgumentParser
import CommandSupport
import Control
import Display
import FlipboxCore
import Foundation
import Providers
import Logging
import GStreamer
import Headend
import Lineup
import Output

/// `flipbox doctor`: checks what the box needs, one line each with the fix, and exits 0 when the
/// box can play (1 when it cannot).
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check what the box needs: display, inputs, sound, GStreamer, the lineup, the key map, the state directory, the API.",
        discussion: """
            Without arguments, checks what the installed service runs (its unit and /etc/flipbox/flipbox.env), \
            or `flipbox play`'s defaults when no service is installed. With arguments, checks that `play` \
            command line: flipbox doctor -- lineup.yaml --output kms --mode 1920x1080@60. \
            Each line is ok, NOTE (plays, with less) or FAIL (cannot play), with the fix. \
            Exit status 0 when the box can play, 1 when it cannot.
            """)

    @Option(help: "The service's unit file.")
    var unit: String = "/etc/systemd/system/flipbox.service"

    @Argument(parsing: .captureForPassthrough, help: "A `flipbox play` command line to check instead of the service's.")
    var playArguments: [String] = []

    func run() async throws {
        var arguments = playArguments.first == "--" ? Array(playArguments.dropFirst()) : playArguments
        var asService = false
        var findings: [DoctorFinding] = []
        if arguments.isEmpty, let service = ServiceCommandLine.read(unit: unit) {
            arguments = service.arguments
            asService = true
            findings.append(.ok("service", "\(unit): flipbox play \(arguments.joined(separator: " "))"))
            findings += Self.serviceUser()
        }
        let play: PlayCommand
        do { play = try PlayCommand.parse(arguments) } catch {
            let text = PlayCommand.message(for: error)
            print(DoctorFinding.problem("options", "flipbox play \(arguments.joined(separator: " ")): \(text)"))
            print(DoctorReport(findings: [.problem("options", text)]).summary)
            throw ExitCode(1)
        }
        findings += await Self.check(play, asService: asService)
        let report = DoctorReport(findings: findings)
        for finding in report.findings { print(finding) }
        print(report.summary)
        if !report.canPlay { throw ExitCode(1) }
    }

    static func check(_ play: PlayCommand, asService: Bool) async -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        // The lineup first: the elements it needs depend on it.
        var lineup: Lineup?
        var lineupPath: String?
        do {
            let path = try flipbox.lineupPath(play.lineup)
            lineupPath = path
            let quiet = Logger(label: "flipbox.doctor") { _ in SwiftLogNoOpLogHandler() }
            let report = try await SourcedLineup.report(for: path, stateDirectory: StateDirectory.resolve(play.switcher.stateDir), logger: quiet)
            if let checked = report.lineup {
                lineup = checked
                let warnings = report.warnings.count
                findings.append(warnings == 0
                    ? .ok("lineup", "\(path): \(checked.channels.count) channels")
                    : .note("lineup", "\(path): \(checked.channels.count) channels, \(warnings) warning\(warnings == 1 ? "" : "s"), e.g. \(report.warnings[0])",
                            fix: "flipbox lineup check \(path) lists them"))
            } else {
                findings.append(.problem("lineup", "\(report.errors.count) error\(report.errors.count == 1 ? "" : "s"), e.g. \(report.errors.first.map { "\($0)" } ?? path)",
                                         fix: "flipbox lineup check \(path) lists every problem with its line"))
            }
        } catch {
            findings.append(.problem("lineup", PlayCommand.message(for: error), fix: "pass a lineup file, or set FLIPBOX_LINEUP in /etc/flipbox/flipbox.env"))
        }

        let sink = outputSink(play, asService: asService)
        findings += display(play, sink: sink, asService: asService)
        findings += inputs(play, asService: asService)
        if sink != .headless {
            let passthrough = (try? play.display.resolvePassthrough(settings: lineup?.settings)) ?? .off
            findings.append(sound(device: play.display.audioDevice ?? lineup?.settings.audioDevice, passthrough: passthrough))
        }
        findings.append(gstreamer(lineup: lineup, sink: sink))
        findings += keyMap(play, lineup: lineup, lineupPath: lineupPath)
        if let lineup { findings += pools(play, lineup: lineup) }
        findings.append(stateDirectory(play, asService: asService))
        findings.append(recordings(play, directory: play.recordingsDirectory(lineup?.settings ?? LineupSettings(), lineupPath: lineupPath),
                                   asService: asService))
        findings.append(api(play, lineup: lineup, asService: asService))
        return findings
    }

    /// The key map's entries (the lineup's and the --keymap file's) that play skips, one NOTE
    /// each: the box plays with the default map and the entries that read.
    static func keyMap(_ play: PlayCommand, lineup: Lineup?, lineupPath: String?) -> [DoctorFinding] {
        let problems = play.evdevKeyMap(settings: lineup?.settings.keymap ?? [:], lineupPath: lineupPath ?? "the lineup").problems
        guard !problems.isEmpty else { return [] }
        let shown = 5
        var findings = problems.prefix(shown).map { problem in
            DoctorFinding.note("keymap", problem, fix: problem.hasPrefix("--keymap ")
                ? "write the file (one 'KEY_NAME: key' a line, docs/box.md), or leave --keymap out"
                : "use a Linux key code name (as evtest prints it) and a key from docs/box.md")
        }
        if problems.count > shown { findings.append(.note("keymap", "\(problems.count - shown) more entries are skipped", fix: "flipbox play logs each")) }
        return findings
    }

    /// The pools of rationed streams the lineup's sources are in, each with its limit and where
    /// it came from (given, or learned and kept in the state directory), one line each.
    static func pools(_ play: PlayCommand, lineup: Lineup) -> [DoctorFinding] {
        let directory = StateDirectory.resolve(play.switcher.stateDir)
        guard let settings = try? play.warmth.pools(lineup, stateDirectory: directory) else {
            return [.problem("pools", "--max-streams is not HOST[:PORT]=N", fix: "e.g. --max-streams 192.168.1.20:5004=4")]
        }
        let learned = settings.learnedFile?.load() ?? [:]
        var seen: [StreamPoolID] = []
        for channel in lineup.channels {
            for url in channel.sources { if let pool = settings.map.pool(for: url), !seen.contains(pool) { seen.append(pool) } }
        }
        return seen.map { pool in
            let channels = lineup.channels.filter { $0.sources.contains { settings.map.pool(for: $0) == pool } }.count
            if let given = settings.map.givenLimit(of: pool) {
                return .ok("pools", "\(pool): \(channels) channels, \(given.streams) streams at once (\(given.origin.rawValue))")
            }
            if let known = learned[pool.name] {
                return .ok("pools", "\(pool): \(channels) channels, \(known.streams) streams at once (learned: the source \(known.evidence == .refusal ? "refused more" : "ended the oldest"))")
            }
            return .ok("pools", "\(pool): \(channels) channels, limit not known yet (learned at its first refusal or stream ended; docs/pools.md)")
        }
    }

    /// The output `play` would use; `auto` as the service sees it (no terminal).
    static func outputSink(_ play: PlayCommand, asService: Bool) -> OutputSink {
        if let sink = OutputSink(rawValue: play.output) { return sink }
        return OutputSink.automatic(stdinIsTerminal: !asService && isatty(0) == 1,
                                    displayConnected: DisplayProbe.cards(in: DisplayOptions.deviceDirectory).cards.contains { !$0.connectedConnectors.isEmpty })
    }

    static func display(_ play: PlayCommand, sink: OutputSink, asService: Bool = false) -> [DoctorFinding] {
        let directory = DisplayOptions.deviceDirectory
        let found = DisplayProbe.cards(in: directory)
        var findings: [DoctorFinding] = []
        for card in found.cards {
            for connector in card.connectors where connector.connection == .connected {
                findings.append(.ok("display", "\(connector.name) on \(card.path) (\(card.driver)): \(DisplayChoice.modeList(connector.modes, limit: 6))"))
            }
            let others = card.connectors.filter { $0.connection != .connected }.map(\.name)
            if card.connectedConnectors.isEmpty {
                findings.append(.note("display", "\(card.path) (\(card.driver)): nothing connected\(others.isEmpty ? "" : " to \(others.joined(separator: ", "))")",
                                      fix: "connect the TV and turn it on"))
            }
        }
        for problem in found.problems {
            findings.append(.note("display", problem.message, fix: problem.code == .cannotOpen ? "add the service's user to the video group" : nil))
        }
        switch sink {
        case .kms:
            do {
                let request = try play.display.modeRequest(size: play.picture.size)
                let choice = try DisplayChoice.choose(cards: found.cards, connectorName: play.display.connector, mode: request,
                                                      problems: found.problems, directory: directory)
                findings.append(.ok("output", "kms: \(choice)"))
            } catch let error as DisplayError {
                let fix: String? = switch error.code {
                case .noSuchMode: "use --mode auto or one of the modes listed"
                case .noConnectedDisplay, .noSuchConnector: "connect the TV and turn it on, or name a connector listed above with --connector"
                case .cannotOpen: "add the service's user to the video group"
                case .noDevice, .notModeSetting: nil
                }
                findings.append(.problem("output", "kms: \(error.message)", fix: fix))
            } catch {
                findings.append(.problem("output", PlayCommand.message(for: error)))
            }
        case .headless:
            findings.append(play.output == "auto"
                ? .note("output", "auto: no display connected, so headless (the HTTP API and snapshots work)", fix: "connect the TV and turn it on: the service moves onto it by itself; `flipbox play` by hand: start it again")
                : .ok("output", "headless: no display used"))
        case .window:
            let fullscreen = play.display.fullscreen ?? (asService || isatty(0) != 1)
            findings.append(.ok("output", "\(fullscreen ? "full-screen window" : "window") on \(ProcessInfo.processInfo.environment["WAYLAND_DISPLAY"] ?? ProcessInfo.processInfo.environment["DISPLAY"] ?? "the desktop")"))
        }
        return findings
    }

    static func inputs(_ play: PlayCommand, asService: Bool) -> [DoctorFinding] {
        let inputs: RemoteInputs
        do { inputs = try play.remoteInputs() } catch { return [.problem("input", PlayCommand.message(for: error))] }
        var findings: [DoctorFinding] = []
        if inputs.cec {
            switch CECRemote.findAdapter() {
            case .success(let port?): findings.append(.ok("cec", "HDMI-CEC adapter on \(port): the TV's remote drives the box"))
            case .success(nil): findings.append(.note("cec", "no HDMI-CEC adapter: the TV's remote does not reach the box (other remotes do)",
                                                      fix: "a Raspberry Pi's HDMI port or a USB-CEC adapter (Pulse-Eight) between the box and the TV"))
            case .failure(let error): findings.append(.note("cec", "HDMI-CEC: \(error)", fix: "sudo apt-get install libcec6"))
            }
        }
        if let socket = inputs.lircSocket { findings.append(lirc(socket: socket)) }
        guard let directory = inputs.evdevDirectory else {
            // With LIRC, its own line says where the keys come from.
            if inputs.lircSocket != nil { return findings }
            findings.append(inputs.terminal ? .ok("input", "the terminal's keys and the HTTP API (no evdev)")
                : .note("input", "no key input from remotes: only the HTTP API and the web remote", fix: "use --input evdev for remotes"))
            return findings
        }
        let devices = EvdevKeys.survey(directory: directory)
        let readable = devices.filter { $0.problem == nil }
        let denied = devices.filter(\.permissionDenied)
        if readable.isEmpty {
            findings.append(.note("input", "no input device in \(directory): only the HTTP API and the web remote until a remote is plugged in",
                                  fix: "plug in a USB remote or keyboard (picked up without a restart)"))
        } else {
            let names = readable.map { "\($0.name ?? "unnamed") (\(($0.path as NSString).lastPathComponent))" }
            findings.append(.ok("input", "\(readable.count) device\(readable.count == 1 ? "" : "s"): \(names.prefix(6).joined(separator: ", "))\(names.count > 6 ? ", …" : "")"))
        }
        if !denied.isEmpty {
            findings.append(.note("input", "\(denied.count) device\(denied.count == 1 ? "" : "s") not readable here (\(denied[0].path): \(denied[0].problem ?? "denied"))",
                                  fix: asService ? "the service's user reads them through the input group (sudo usermod -aG input flipbox)" : "sudo usermod -aG input $USER, then log in again"))
        }
        return findings
    }

    /// lircd's socket: there and accepting, else a NOTE (the box plays; LIRC remotes wait for lircd).
    static func lirc(socket: String) -> DoctorFinding {
        guard LircKeys.socketPresent(socket) else {
            let fix = socket == LircKeys.defaultSocket ? "sudo apt-get install lirc, then configure and start lircd"
                : "start lircd with --output=\(socket), or give its socket with --input lirc:SOCKET"
            return .note("lirc", "no lircd socket at \(socket): LIRC remotes do not reach the box until lircd runs (other remotes do)", fix: fix)
        }
        guard let problem = LircKeys.connectionProblem(socket) else { return .ok("lirc", "lircd at \(socket): its remotes drive the box") }
        return .note("lirc", "lircd's socket \(socket) does not answer: \(problem)",
                     fix: "sudo systemctl restart lircd; the service's user must be allowed to connect to \(socket)")
    }

    /// ALSA's playback devices (`/proc/asound/pcm`), and the one `device` names.
    static func sound(device spec: String?, passthrough: AudioPassthrough = .off, pcmList: String = AudioDevice.pcmListFile) -> DoctorFinding {
        let devices = AudioDevice.playbackDevices(pcmListFile: pcmList)
        guard !devices.isEmpty else {
            return .note("sound", "no sound card: plays without sound", fix: "connect HDMI audio or a USB sound card; `aplay -l` lists what ALSA sees")
        }
        let digital = devices.filter(\.isDigitalLink).map(\.description)
        let nameDigital = "give --audio-device the HDMI or S/PDIF device (\(digital.isEmpty ? "this machine lists none" : digital.joined(separator: ", "))), or turn passthrough off"
        if let spec {
            let device: AudioDevice
            do { device = try AudioDevice.find(spec, in: devices) } catch {
                return .note("sound", "\(error)", fix: "give --audio-device one of the devices listed (the box plays on the default one meanwhile)")
            }
            guard passthrough.isOn else { return .ok("sound", "on \(device)") }
            guard device.isDigitalLink else {
                return .note("sound", "on \(device), with Dolby sound passed through: an analog output plays it as noise", fix: nameDigital)
            }
            return .ok("sound", "on \(device), Dolby sound passed through as AC-3 for the receiver to decode")
        }
        if passthrough.isOn {
            return .note("sound", "Dolby sound is passed through to the default device, which may not reach a receiver", fix: nameDigital)
        }
        return .ok("sound", "\(devices.count) playback device\(devices.count == 1 ? "" : "s"): \(devices.prefix(4).map(\.description).joined(separator: ", "))")
    }

    static func gstreamer(lineup: Lineup?, sink: OutputSink) -> DoctorFinding {
        do { try GStreamer.initialize() } catch {
            return .problem("gstreamer", "cannot start GStreamer: \(error)", fix: "sudo deploy/install-deps.sh")
        }
        let needed = RequiredElements.needed(by: lineup, sink: sink)
        let missing = needed.filter { !GStreamer.hasElement($0) }
        guard missing.isEmpty else {
            let packages = Set(missing.map(RequiredElements.package(of:))).sorted()
            return .problem("gstreamer", "\(GStreamer.version): missing \(missing.joined(separator: ", "))",
                            fix: "sudo apt-get install \(packages.joined(separator: " "))")
        }
        return .ok("gstreamer", "\(GStreamer.version): the \(needed.count) elements the lineup and the output need are installed")
    }

    static func stateDirectory(_ play: PlayCommand, asService: Bool) -> DoctorFinding {
        let directory = StateDirectory.resolve(play.switcher.stateDir)
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            return asService
                ? .ok("state", "\(directory): systemd makes it at the first start (StateDirectory=)")
                : .ok("state", "\(directory): made at the first start")
        }
        guard isDirectory.boolValue else {
            return .note("state", "\(directory) is not a directory: the last channel is not remembered", fix: "remove it or pass --state-dir")
        }
        guard FileManager.default.isWritableFile(atPath: directory) else {
            return .note("state", "\(directory) is not writable here: the last channel is not remembered",
                         fix: asService ? "sudo chown flipbox: \(directory)" : "pass a writable --state-dir")
        }
        return .ok("state", "\(directory): the last channel is remembered there")
    }

    /// Where recordings go: a directory that can be made and written, and the room on its disk.
    /// A `--recordings-dir` that cannot be written stops `play` (a problem); the default one
    /// leaves the box without recordings (a note).
    static func recordings(_ play: PlayCommand, directory: String?, asService: Bool) -> DoctorFinding {
        let state = StateDirectory.resolve(play.switcher.stateDir)
        let folder = RecordingLoop.folder(stateDirectory: state, given: directory).path
        // The nearest existing directory up the path: where it would be made.
        var existing = folder
        while !FileManager.default.fileExists(atPath: existing), existing != "/" {
            existing = (existing as NSString).deletingLastPathComponent
        }
        var isDirectory: ObjCBool = false
        FileManager.default.fileExists(atPath: existing, isDirectory: &isDirectory)
        guard isDirectory.boolValue, FileManager.default.isWritableFile(atPath: existing) else {
            let why = "\(folder) cannot be \(existing == folder ? "written" : "made (\(existing) is not a writable directory)")"
            let fix = asService ? "sudo install -d -o flipbox \(folder)" : "make it writable, or pass another --recordings-dir"
            return directory != nil
                ? .problem("recording", "\(why): play stops", fix: fix)
                : .note("recording", "\(why): the box plays without recordings", fix: fix)
        }
        let free = (try? FileManager.default.attributesOfFileSystem(forPath: existing)[.systemFreeSize] as? NSNumber)?.int64Value
        let room = free.map { ", \(ByteCountFormatter.string(fromByteCount: $0, countStyle: .file)) free" } ?? ""
        if let free, free < 100 * 1024 * 1024 {
            return .note("recording", "\(folder): only \(ByteCountFormatter.string(fromByteCount: free, countStyle: .file)) free; a recording stops when its disk is full",
                         fix: "free some room, or pass --recordings-dir on a larger disk")
        }
        return .ok("recording", "\(folder)\(existing == folder ? "" : " (made at the first recording)")\(room)")
    }

    /// The API's address: valid, and free to listen on (tried: bound and released at once). An
    /// address `play` cannot listen on is a note: the box plays without the API and tries again.
    static func api(_ play: PlayCommand, lineup: Lineup?, asService: Bool) -> DoctorFinding {
        let control: ControlServerConfiguration
        do { control = try play.controlConfiguration() } catch { return .problem("api", PlayCommand.message(for: error)) }
        do { try control.validate() } catch {
            return .problem("api", "\(error)", fix: "give a --token (or FLIPBOX_TOKEN), or listen on 127.0.0.1")
        }
        let reach = control.isLoopback ? "this box only" : "the network, with the token"
        let address = ListenAddressCheck.address(host: control.host, port: control.port)
        let meanwhile = "the box plays without the API, trying again until it can"
        let outcome = ListenAddressCheck.check(host: control.host, port: control.port)
        switch outcome {
        case .free:
            // Root may listen on any port; the service's user may not.
            let unprivileged = ListenAddressCheck.unprivilegedPortStart()
            if asService, geteuid() == 0, (1..<unprivileged).contains(control.port) {
                return .note("api", "port \(control.port) is below \(unprivileged): the service's user flipbox may not listen on it; \(meanwhile)",
                             fix: "use a port from \(unprivileged) up, e.g. 8642")
            }
            return .ok("api", "http://\(address)/ (\(reach))")
        case .inUse(byFlipbox: true) where asService:
            return .ok("api", "http://\(address)/ (\(reach)); a Flipbox answers there now (the service itself, when it runs)")
        default:
            guard let problem = outcome.problem(host: control.host, port: control.port, service: asService) else {
                return .ok("api", "http://\(address)/ (\(reach))")
            }
            return .note("api", "\(problem.detail); \(meanwhile)", fix: problem.fix)
        }
    }

    /// The `flipbox` user the unit runs as, and the groups it needs for the display, keys and sound.
    static func serviceUser(groupFile: String = "/etc/group", passwdFile: String = "/etc/passwd") -> [DoctorFinding] {
        let passwd = (try? String(contentsOfFile: passwdFile, encoding: .utf8)) ?? ""
        guard passwd.split(separator: "\n").contains(where: { $0.hasPrefix("flipbox:") }) else {
            return [.problem("service", "the unit runs as the user flipbox, which does not exist", fix: "sudo deploy/install.sh")]
        }
        var members: [String: Set<String>] = [:]
        for line in ((try? String(contentsOfFile: groupFile, encoding: .utf8)) ?? "").split(separator: "\n") {
            let fields = line.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count >= 4 else { continue }
            members[String(fields[0])] = Set(fields[3].split(separator: ",").map(String.init))
        }
        let wanted = ["video", "input", "audio", "render"].filter { members[$0] != nil }
        let missing = wanted.filter { members[$0]?.contains("flipbox") != true }
        guard missing.isEmpty else {
            return [.note("service", "the user flipbox is not in \(missing.joined(separator: ", "))",
                          fix: "sudo usermod -aG \(missing.joined(separator: ",")) flipbox")]
        }
        return [.ok("service", "the user flipbox is in \(wanted.joined(separator: ", "))")]
    }
}
