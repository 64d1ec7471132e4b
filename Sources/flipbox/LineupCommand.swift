import ArgumentParser
import CommandSupport
import Foundation
import Guide
import Lineup
import Providers

struct LineupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lineup", abstract: "Work with lineup files.", subcommands: [Check.self])

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate a lineup (M3U or YAML) and print it as a table.",
            discussion: """
                Every problem is printed as FILE:LINE: message. Exit status 2 when the lineup has errors. \
                When the lineup names a guide, the stored guide (imported first if it is missing or stale) \
                is matched and channels without programmes are listed as warnings.
                """)

        @Argument(help: "The lineup: a file (.m3u, .m3u8, .yaml), a playlist URL, an HDHomeRun (hdhomerun://auto, hdhomerun://DEVICEID, hdhomerun://ADDRESS), an Xtream Codes account (xtream://USER@HOST[:PORT], its password in $FLIPBOX_XTREAM_PASSWORD or a file named by $FLIPBOX_XTREAM_PASSWORD_FILE) or a Tvheadend server (tvheadend://USER@HOST[:PORT], its password in $FLIPBOX_TVHEADEND_PASSWORD or a file named by $FLIPBOX_TVHEADEND_PASSWORD_FILE).")
        var file: String

        @Option(help: "Where the guide is stored. Default: $FLIPBOX_STATE_DIR, $XDG_STATE_HOME/flipbox or ~/.local/state/flipbox.")
        var stateDir: String?

        @Flag(help: "Do not read the guide.")
        var noGuide = false

        @Flag(help: "Probe every channel's sources with libavformat and report what each holds.")
        var probe = false

        @Option(help: "With --probe: how long to wait for each source (e.g. 10s).")
        var probeTimeout = "10s"

        func run() async throws {
            let report: LineupReport
            do {
                report = try await SourcedLineup.report(for: file, stateDirectory: StateDirectory.resolve(stateDir), logger: makeLogger(verbose: false))
            } catch {
                FileHandle.standardError.write(Data("\(error)\n".utf8))
                throw ExitCode(2)
            }
            for d in report.diagnostics { FileHandle.standardError.write(Data("\(d)\n".utf8)) }
            guard let lineup = report.lineup else {
                FileHandle.standardError.write(Data("\(file): \(report.errors.count) error(s); the lineup cannot be used\n".utf8))
                throw ExitCode(2)
            }
            print(LineupTable.render(lineup))
            print(LineupTable.summary(lineup))
            if !noGuide, !lineup.guideURLs.isEmpty { await checkGuide(lineup) }
            if probe {
                let timeout = try SwitcherOptions.duration(probeTimeout, "--probe-timeout", within: .milliseconds(100)...Duration.seconds(600))
                let failed = await SourceProbeReport.run(lineup, file: file, timeout: timeout)
                if failed > 0 { throw ExitCode(1) }
            }
        }

        /// Prints `FILE:LINE: warning: …` for every channel the guide has no programmes for.
        func checkGuide(_ lineup: Lineup) async {
            func warn(_ text: String) { FileHandle.standardError.write(Data("\(text)\n".utf8)) }
            do {
                let guide = try Guide(stateDirectory: StateDirectory.resolve(stateDir), lineup: lineup)
                if guide.needsRefresh() {
                    do { try await guide.refresh() } catch { warn("\(file): warning: guide not imported: \(error)") }
                }
                let unmatched = guide.match.unmatched(in: lineup)
                for channel in unmatched {
                    let id = channel.guideID.map { "no guide channel with id '\($0)' or " } ?? "no guide channel with "
                    warn("\(channel.location): warning: channel \(channel.number) '\(channel.name)' has no guide match (\(id)a name like '\(channel.name)')")
                }
                print("guide: \(lineup.channels.count - unmatched.count) of \(lineup.channels.count) channels matched")
            } catch {
                warn("\(file): warning: guide not read: \(error)")
            }
        }
    }
}

/// Finds the demo lineup shipped in `Channels/`: next to the working directory, the executable
/// (`.build/debug/flipbox` in a checkout) or an installed copy.
enum DemoLineup {
    static func locate() -> String? {
        let env = ProcessInfo.processInfo.environment
        var candidates: [String] = []
        if let dir = env["FLIPBOX_CHANNELS"] { candidates.append("\(dir)/demo.yaml") }
        candidates.append(FileManager.default.currentDirectoryPath + "/Channels/demo.yaml")
        let exe = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        var dir = exe
        for _ in 0..<5 {
            candidates.append(dir.appendingPathComponent("Channels/demo.yaml").path)
            dir = dir.deletingLastPathComponent()
        }
        candidates.append("/usr/local/share/flipbox/Channels/demo.yaml")
        candidates.append("/usr/share/flipbox/Channels/demo.yaml")
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }
}
