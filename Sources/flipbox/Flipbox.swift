import ArgumentParser
import CommandSupport

@main
struct Flipbox: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flipbox",
        abstract: "A live-TV box: keeps a lineup of live channels warm and flips between them instantly.",
        subcommands: [PlayCommand.self, ServeCommand.self, LineupCommand.self, GuideCommand.self, PINCommand.self, DoctorCommand.self, DevicesCommand.self, LabBench.self, LabSoak.self, ProbeCommand.self, ClipCommand.self, RecordCommand.self, LabReplay.self],
        defaultSubcommand: PlayCommand.self
    )

    static func main() async { await runAsRoot() }
}
