import ArgumentParser

@main
struct Flipbox: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flipbox",
        abstract: "A live-TV box: keeps a lineup of live channels warm and flips between them instantly.",
        subcommands: [PlayCommand.self, ServeCommand.self, LineupCommand.self, GuideCommand.self, PINCommand.self, DoctorCommand.self, DevicesCommand.self, BenchCommand.self, SoakCommand.self, ProbeCommand.self, ClipCommand.self, ReplayCommand.self],
        defaultSubcommand: PlayCommand.self
    )
}
