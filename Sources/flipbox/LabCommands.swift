import ArgumentParser
import CommandSupport
import Foundation

/// `flipbox bench`, `soak` and `replay`: the measuring harness is the `flipbox-lab` executable,
/// built beside this one (and not needed on a box), so that the product links none of the
/// harness's loopback channels. Each runs it in this process's place (`execv`: the output and the
/// exit status are the lab's) with the same arguments, `--help` among them.
protocol LabForwarding: ParsableCommand {
    /// Everything after the command's name, as given.
    var arguments: [String] { get }
}

extension LabForwarding {
    /// A forwarding command's configuration: its own `--help` is off, so that `--help` reaches
    /// the lab (`flipbox help NAME` still prints this command's text).
    static func forwarding(_ name: String, abstract: String, shouldDisplay: Bool = true) -> CommandConfiguration {
        CommandConfiguration(
            commandName: name,
            abstract: "\(abstract) Runs flipbox-lab \(name).",
            discussion: """
                Runs `flipbox-lab \(name)` from the directory of this flipbox with the same arguments; \
                `flipbox \(name) --help` prints its options. `swift build` builds flipbox-lab beside \
                flipbox; a box does not need it.
                """,
            shouldDisplay: shouldDisplay,
            helpNames: [])
    }

    /// Replaces this process with `flipbox-lab NAME ARGUMENTS`; returns only by throwing.
    func forward() throws -> Never {
        let name = Self.configuration.commandName ?? ""
        let lab: String
        do {
            lab = try SiblingExecutable.path("flipbox-lab")
        } catch {
            FileHandle.standardError.write(Data("flipbox \(name): \(error)\n".utf8))
            throw ExitCode(127)
        }
        let argv = ([lab, name] + arguments).map { strdup($0) } + [nil]
        execv(lab, argv)
        let reason = String(cString: strerror(errno))
        FileHandle.standardError.write(Data("flipbox \(name): cannot run \(lab): \(reason)\n".utf8))
        throw ExitCode(126)
    }
}

struct LabBench: LabForwarding {
    static let configuration = forwarding("bench", abstract: "Measure flips through the real output pipeline, headless.")

    @Argument(parsing: .captureForPassthrough, help: "flipbox-lab bench's arguments.")
    var arguments: [String] = []

    func run() throws { try forward() }
}

struct LabSoak: LabForwarding {
    static let configuration = forwarding("soak", abstract: "Flip through hostile loopback channels for a long time; report crashes, lost answers and drift.")

    @Argument(parsing: .captureForPassthrough, help: "flipbox-lab soak's arguments.")
    var arguments: [String] = []

    func run() throws { try forward() }
}

struct LabReplay: LabForwarding {
    static let configuration = forwarding("replay", abstract: "Send MPEG-TS files as live channels on loopback UDP (for benchmarks).", shouldDisplay: false)

    @Argument(parsing: .captureForPassthrough, help: "flipbox-lab replay's arguments.")
    var arguments: [String] = []

    func run() throws { try forward() }
}
