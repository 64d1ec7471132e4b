import ArgumentParser
import Control
import Foundation
import Parental

struct PINCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pin", abstract: "The parental PIN that unlocks locked content.",
        subcommands: [Set.self])

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set (or change) the PIN: 4 to 8 digits.",
            discussion: """
                On a terminal the PIN is asked twice and not shown; otherwise one line is read from standard \
                input. Only a salted scrypt hash is stored, in pin.json (mode 0600) in the state directory; \
                setting a PIN also clears the count of wrong PINs.
                """)

        @Option(help: "The state directory. Default: $FLIPBOX_STATE_DIR, $XDG_STATE_HOME/flipbox or ~/.local/state/flipbox.")
        var stateDir: String?

        func run() throws {
            let directory = StateDirectory.resolve(stateDir)
            guard let pin = SecretPrompt.read("New PIN (4-8 digits): ") else {
                throw Self.failure("no PIN given")
            }
            do { try PINStore.validate(pin) } catch { throw Self.failure("\(error)") }
            if SecretPrompt.isInteractive, SecretPrompt.read("The same PIN again: ") != pin {
                throw Self.failure("the two PINs differ; nothing was changed")
            }
            let gate = PINGate(directory: directory)
            do {
                try gate.store.set(pin)
                try? FileManager.default.removeItem(atPath: gate.attemptsPath)
            } catch {
                throw Self.failure("\(error)")
            }
            print("PIN set: stored salted and hashed in \(gate.store.path)")
        }

        static func failure(_ message: String) -> ExitCode {
            FileHandle.standardError.write(Data("flipbox: \(message)\n".utf8))
            return ExitCode(2)
        }
    }
}
