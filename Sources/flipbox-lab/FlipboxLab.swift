import ArgumentParser
import CommandSupport

/// `flipbox-lab`: the harness that measures and strains the box (the bench, the soak and the
/// replay sender of the bench's channels), with the loopback channels they make; kept out of
/// `flipbox`, which runs it for `flipbox bench|soak|replay`.
@main
struct FlipboxLab: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flipbox-lab",
        abstract: "Flipbox's bench, soak and replay, with their loopback channels (flipbox bench|soak|replay run it).",
        subcommands: [BenchCommand.self, SoakCommand.self, ReplayCommand.self]
    )

    static func main() async { await runAsRoot() }
}
