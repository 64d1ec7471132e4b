import ArgumentParser
import Foundation
import Lineup

struct LineupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lineup", abstract: "Work with lineup files.", subcommands: [Check.self])

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate a lineup (M3U or YAML) and print it as a table.",
            discussion: "Every problem is printed as FILE:LINE: message. Exit status 2 when the lineup has errors.")

        @Argument(help: "The lineup file (.m3u, .m3u8, .yaml).")
        var file: String

        func run() async throws {
            let report = LineupLoader.check(path: file)
            for d in report.diagnostics { FileHandle.standardError.write(Data("\(d)\n".utf8)) }
            guard let lineup = report.lineup else {
                FileHandle.standardError.write(Data("\(file): \(report.errors.count) error(s); the lineup cannot be used\n".utf8))
                throw ExitCode(2)
            }
            print(LineupTable.render(lineup))
            print(LineupTable.summary(lineup))
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
