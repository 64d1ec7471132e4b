import ArgumentParser
import Control
import Display
import Foundation
import Output
import Providers

/// `flipbox devices`: what `play` can use on this machine, with the names its options take:
/// displays (`--connector`, `--mode`), sound devices (`--audio-device`), input devices
/// (`--input evdev`), lircd (`--input lirc`), the HDMI-CEC adapter (`--input cec`) and the
/// HDHomeRun tuners on the LAN (`play hdhomerun://ID`).
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the displays, sound devices, input devices, lircd, the HDMI-CEC adapter and the HDHomeRun tuners play can use.")

    @Option(help: "The input devices' directory.")
    var inputDirectory = "/dev/input"

    @Option(help: "lircd's socket.")
    var lircSocket = LircKeys.defaultSocket

    @Option(help: ArgumentHelp("Where HDHomeRun discovery is sent: broadcast on the LAN, or an address (a tuner on another subnet).", valueName: "ADDRESS"))
    var hdhomerun: String?

    func run() async throws {
        let target: HDHomeRunDiscovery.Target = hdhomerun.map { .address($0) } ?? .broadcast
        let tuners: Result<[HDHomeRunFound], any Error>
        do { tuners = .success(try await HDHomeRunDiscovery.discover(target)) } catch { tuners = .failure(error) }
        print(Self.report(displays: DisplayProbe.cards(in: DisplayOptions.deviceDirectory), displayDirectory: DisplayOptions.deviceDirectory,
                          sound: AudioDevice.playbackDevices(), inputs: EvdevKeys.survey(directory: inputDirectory),
                          inputDirectory: inputDirectory, lirc: Self.lirc(socket: lircSocket), lircSocket: lircSocket, cec: CECRemote.findAdapter(),
                          hdhomeruns: tuners))
    }

    /// lircd's socket and why it does not answer (nil: it answers); nil when there is no socket.
    static func lirc(socket: String) -> (socket: String, problem: String?)? {
        LircKeys.socketPresent(socket) ? (socket, LircKeys.connectionProblem(socket)) : nil
    }

    /// The listing, one section per kind; an empty section says what is missing.
    static func report(displays: (cards: [DisplayCard], problems: [DisplayError]), displayDirectory: String, sound: [AudioDevice],
                       inputs: [InputDeviceReport], inputDirectory: String, lirc: (socket: String, problem: String?)? = nil,
                       lircSocket: String = LircKeys.defaultSocket, cec: Result<String?, CECError>,
                       hdhomeruns: Result<[HDHomeRunFound], any Error> = .success([])) -> String {
        var lines = ["Displays (\(displayDirectory); --connector NAME, --mode WIDTHxHEIGHT@HZ):"]
        for card in displays.cards {
            for connector in card.connectors {
                let state = connector.connection == .connected ? DisplayChoice.modeList(connector.modes, limit: 8) : "\(connector.connection)"
                lines.append("  \(connector.name) on \(card.path) (\(card.driver)): \(state)")
            }
        }
        lines += displays.problems.map { "  \($0.message)" }
        if displays.cards.isEmpty && displays.problems.isEmpty { lines.append("  none: no DRM device (--output kms cannot be used)") }

        lines.append("Sound (ALSA playback; --audio-device hw:CARD,DEVICE or its name):")
        lines += sound.isEmpty ? ["  none: no sound card (plays without sound)"] : sound.map { "  \($0)" }

        lines.append("Inputs (\(inputDirectory); --input evdev):")
        for device in inputs {
            let node = (device.path as NSString).lastPathComponent
            lines.append("  \(node): " + (device.problem.map { "not readable: \($0)" + (device.permissionDenied ? " (join the input group)" : "") }
                                          ?? (device.name ?? "unnamed")))
        }
        if inputs.isEmpty { lines.append("  none") }

        lines.append("LIRC (--input lirc[:SOCKET]):")
        switch lirc {
        case (let socket, nil)?: lines.append("  lircd at \(socket): answering (its remotes can drive the box)")
        case (let socket, let problem?)?: lines.append("  lircd's socket \(socket) does not answer: \(problem)")
        case nil: lines.append("  none: no lircd socket at \(lircSocket) (install and start lircd for IR remotes)")
        }

        lines.append("HDMI-CEC (--input cec):")
        switch cec {
        case .success(let port?): lines.append("  adapter on \(port)")
        case .success(nil): lines.append("  none: no adapter (the TV's remote does not reach the box)")
        case .failure(let error): lines.append("  \(error)")
        }

        lines.append("HDHomeRun tuners (play hdhomerun://DEVICEID):")
        switch hdhomeruns {
        case .success(let found) where found.isEmpty:
            lines.append("  none answered discovery (UDP 65001); one on another subnet: --hdhomerun ADDRESS")
        case .success(let found):
            for tuner in found {
                lines.append("  \(tuner.deviceIDText) at \(tuner.address): \(tuner.tunerCount.map { "\($0) tuners" } ?? "tuners not said")"
                             + (tuner.baseURL.map { ", \($0)" } ?? ""))
            }
        case .failure(let error): lines.append("  discovery failed: \(error)")
        }
        return lines.joined(separator: "\n")
    }
}
