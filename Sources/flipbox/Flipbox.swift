import ArgumentParser

@main
struct Flipbox: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flipbox",
        abstract: "A live-TV box: keeps a lineup of live channels warm and flips between them instantly.",
        subcommands: [PlayCommand.self, LineupCommand.self, GuideCommand.self, DoctorCommand.self, BenchCommand.self, SoakCommand.self],
        defaultSubcommand: PlayCommand.self
    )
}
