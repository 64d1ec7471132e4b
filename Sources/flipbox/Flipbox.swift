import ArgumentParser
import Headend

@main
struct Flipbox: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flipbox",
        abstract: "A live-TV box: keeps a lineup of live channels warm and flips between them instantly.",
        subcommands: [PlayCommand.self, ServeCommand.self, LineupCommand.self, GuideCommand.self, PINCommand.self, DoctorCommand.self, DevicesCommand.self, BenchCommand.self, SoakCommand.self, ProbeCommand.self, ClipCommand.self, RecordCommand.self, ReplayCommand.self],
        defaultSubcommand: PlayCommand.self
    )

    /// ArgumentParser's entry point, after the allocator is set up for a process of many threads.
    static func main() async {
        ProcessResources.limitAllocatorArenas()
        do {
            var command = try parseAsRoot()
            if var async = command as? AsyncParsableCommand {
                try await async.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
