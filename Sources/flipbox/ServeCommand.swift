import ArgumentParser
import CommandSupport
import Foundation
import Providers
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GStreamer
import Guide
import Headend
import Lineup
import Logging
import Serve
import ServiceLifecycle

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a lineup to other screens, with no picture here: HTTP MPEG-TS, HLS, HDHomeRun, M3U and XMLTV.",
        discussion: """
            Every channel is remuxed from its warm ingest, never re-encoded; one ingest per channel however many \
            clients, and a new client starts at the channel's cached keyframe. See docs/serve.md.
            """)

    @Argument(help: "The lineup: a file (.m3u, .m3u8, .yaml), a playlist URL, an HDHomeRun (hdhomerun://auto, hdhomerun://DEVICEID, hdhomerun://ADDRESS), an Xtream Codes account (xtream://USER@HOST[:PORT], xtreams:// for https; the password in $FLIPBOX_XTREAM_PASSWORD or a file named by $FLIPBOX_XTREAM_PASSWORD_FILE) or a Tvheadend server (tvheadend://USER@HOST[:PORT], port 9981 by default, tvheadends:// for https, tvheadend://HOST[:PORT] for its anonymous user; the password in $FLIPBOX_TVHEADEND_PASSWORD or a file named by $FLIPBOX_TVHEADEND_PASSWORD_FILE). Default: the demo lineup in Channels/.")
    var lineup: String?

    @OptionGroup(title: "Serving")
    var serving: ServeOptions

    @OptionGroup(title: "Logos")
    var logoOptions: LogoOptions

    @Option(help: "Bearer token that lets clients outside loopback and --serve-allow in. Better: --token-file, or FLIPBOX_TOKEN in /etc/flipbox/flipbox.env.")
    var token: String?

    @Option(help: ArgumentHelp("A file (mode 0600) whose first line is the token. Also FLIPBOX_TOKEN_FILE.", valueName: "PATH"))
    var tokenFile: String?

    @OptionGroup(title: "Warm channels")
    var warmth: WarmOptions

    @Option(help: "Where the guide is stored, and the list of recordings when the box records. Default: ~/.local/state/flipbox.")
    var stateDir: String?

    @Option(help: ArgumentHelp("Where the box's recordings are (as `flipbox play --recordings-dir`), offered at /recordings.m3u. Default: STATE/recordings.",
                               valueName: "DIR"))
    var recordingsDir: String?

    @Flag(help: "Log more.")
    var verbose = false

    func run() async throws {
        let logger = makeLogger(verbose: verbose)
        let path = try lineupPath(self.lineup)
        let lineup = try await loadLineup(path: path, stateDirectory: StateDirectory.resolve(stateDir), logger: logger)
        let (policy, budget) = try warmth.resolve(lineup.settings)
        let pools = try warmth.pools(lineup, stateDirectory: StateDirectory.resolve(stateDir))
        let given = try TokenSource(option: "token", variable: "FLIPBOX_TOKEN").resolve(value: token, file: tokenFile) { logger.warning("\($0)") }
        let configuration = try serving.configuration(lineup: lineup, path: path, token: given)
        do { try configuration.validate() } catch {
            FileHandle.standardError.write(Data("flipbox: \(error)\n".utf8))
            throw ExitCode(2)
        }

        _ = ProcessResources.raiseFileLimit()
        try GStreamer.initialize()
        let guide = openGuide(lineup: lineup, stateDir: stateDir, logger: logger)
        // Nothing is decoded here: the decode target only sizes decoders that never start.
        let reports = MediaReports()
        let headend = Headend(lineup: lineup, policy: policy, budget: budget, target: DecodeTarget(width: 160, height: 90),
                              logger: logger, reports: reports, pools: pools)
        // Channel states, for the debug log (nothing else reports here: nothing is shown).
        Task {
            for await case .sourceState(let channel, let state) in reports.stream {
                logger.debug("channel \(channel.number) \(channel.name): \(state)")
            }
        }
        await headend.applyPolicy(current: nil, last: nil)
        logger.notice("head-end: \(lineup.channels.count) channels from \(path), warm: \(policy)")
        let server = StreamServer(headend: headend, settings: configuration.streams, logger: logger)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: HeadendService(headend: headend))]
        if let guide { services.append(.init(service: GuideService(guide: guide))) }
        if let refresh = LineupRefreshService.make(path: path, lineup: lineup, taker: .headend(headend), guide: guide, stateDirectory: StateDirectory.resolve(stateDir), logger: logger) {
            services.append(.init(service: refresh))
        }
        let serving: [any Service]
        do {
            let logos = LogoCache(policy: try logoOptions.policy(ownPorts: [configuration.port, configuration.hdhomerunPort]))
            let recordings = openRecordings(stateDirectory: StateDirectory.resolve(stateDir), logger: logger)
            serving = try makeServeServices(server: server, configuration: configuration, guide: guide, logos: logos,
                                            recordings: recordings, logger: logger)
        } catch {
            await headend.shutdown()
            FileHandle.standardError.write(Data("flipbox: \(error)\n".utf8))
            throw ExitCode(2)
        }
        services += serving.map { .init(service: $0) }
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}

extension ServeCommand {
    /// The recordings `flipbox play` keeps in `stateDirectory`, offered to other screens; nil
    /// when the box keeps none, or (logged, with what to do) when they cannot be read.
    func openRecordings(stateDirectory: String, logger: Logger) -> StoredRecordings? {
        let folder = RecordingLoop.folder(stateDirectory: stateDirectory, given: recordingsDir)
        do {
            let library = try StoredRecordings.open(stateDirectory: stateDirectory, directory: folder)
            if library != nil { logger.notice("offering the recordings of \(folder.path) at /recordings.m3u") }
            return library
        } catch {
            logger.error("the recordings are not offered: \(error); check that \(stateDirectory) can be read")
            return nil
        }
    }
}

/// Runs the head-end for the lifetime of the service group and shuts it down last.
struct HeadendService: Service {
    let headend: Headend
    func run() async throws {
        try? await gracefulShutdown()
        await headend.shutdown()
    }
}

/// The lineup at `path` (a file, an http(s) URL such as another head-end's `/lineup.m3u`, or a
/// source such as `hdhomerun://auto`, kept in `stateDirectory`), its warnings logged; its errors
/// printed and exit 2.
func loadLineup(path: String, stateDirectory: String?, logger: Logger) async throws -> Lineup {
    let report: LineupReport
    do {
        report = try await SourcedLineup.report(for: path, stateDirectory: stateDirectory, logger: logger)
    } catch {
        FileHandle.standardError.write(Data("flipbox: \(error)\n".utf8))
        throw ExitCode(2)
    }
    for w in report.warnings { logger.warning("\(w)") }
    do {
        return try report.get()
    } catch {
        for d in error.errors { FileHandle.standardError.write(Data("\(d)\n".utf8)) }
        throw ExitCode(2)
    }
}

/// `given`, else the demo lineup.
func lineupPath(_ given: String?) throws -> String {
    if let given { return given }
    guard let demo = DemoLineup.locate() else {
        throw ValidationError("no lineup given and the demo lineup (Channels/demo.yaml) was not found; pass a lineup file")
    }
    return demo
}

