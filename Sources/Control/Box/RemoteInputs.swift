import Foundation
import Lineup
import Logging

/// Which inputs produce keys for the remote: the terminal, evdev devices, HDMI-CEC, lircd (`--input`).
/// Every input feeds the same ``Key`` stream, so a key means the same thing from any of them.
public struct RemoteInputs: Sendable, Hashable {
    public var terminal: Bool
    /// The directory watched for `event*` devices; nil: no evdev input.
    public var evdevDirectory: String?
    /// The TV's remote over HDMI-CEC (libcec), and the TV's power.
    public var cec: Bool
    /// lircd's socket; nil: no LIRC input.
    public var lircSocket: String?

    public init(terminal: Bool, evdevDirectory: String?, cec: Bool = false, lircSocket: String? = nil) {
        self.terminal = terminal
        self.evdevDirectory = evdevDirectory
        self.cec = cec
        self.lircSocket = lircSocket
    }

    /// Whether any input looks keys up in the key map (evdev and LIRC do).
    public var usesKeyMap: Bool { evdevDirectory != nil || lircSocket != nil }

    /// The default: the terminal when standard input is one, plus evdev when `/dev/input` can be read.
    public static func standard(stdinIsTerminal: Bool, devInputReadable: Bool) -> RemoteInputs {
        RemoteInputs(terminal: stdinIsTerminal, evdevDirectory: devInputReadable ? "/dev/input" : nil)
    }

    /// Parses `terminal`, `evdev`, `evdev:DIR`, `cec`, `lirc`, `lirc:SOCKET`, comma-separated; `none` for no keys.
    public init(parsing text: String) throws(RemoteInputsError) {
        terminal = false
        evdevDirectory = nil
        cec = false
        lircSocket = nil
        for part in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if part == "terminal" {
                terminal = true
            } else if part == "evdev" {
                evdevDirectory = "/dev/input"
            } else if part.hasPrefix("evdev:"), part.count > "evdev:".count {
                evdevDirectory = String(part.dropFirst("evdev:".count))
            } else if part == "cec" {
                cec = true
            } else if part == "lirc" {
                lircSocket = LircKeys.defaultSocket
            } else if part.hasPrefix("lirc:"), part.count > "lirc:".count {
                lircSocket = String(part.dropFirst("lirc:".count))
            } else if part == "none" {
                continue
            } else {
                throw .unknownInput(String(part))
            }
        }
    }
}

/// An `--input` that names no input; the message says which ones there are.
public typealias RemoteInputsError = Failure<RemoteInputsCode>

public enum RemoteInputsCode: String, FailureCode {
    /// A part of `--input` is not one of the inputs.
    case unknownInput

    public var kind: FailureKind { .badRequest }
}

extension Failure where Code == RemoteInputsCode {
    /// `text`, a part of `--input`, names no input.
    static func unknownInput(_ text: String) -> RemoteInputsError {
        RemoteInputsError(.unknownInput, "--input takes terminal, evdev, evdev:DIR, cec, lirc or lirc:SOCKET (comma-separated, e.g. evdev,cec), or none; not '\(text)'")
    }
}

/// Merges key streams into one, in arrival order. The result ends when every input has ended;
/// stopping its iteration stops reading the inputs.
public func mergeKeys(_ streams: [AsyncStream<Key>]) -> AsyncStream<Key> {
    let (merged, sink) = AsyncStream.makeStream(of: Key.self)
    let forwarding = Task {
        await withTaskGroup(of: Void.self) { group in
            for stream in streams {
                group.addTask {
                    for await key in stream { sink.yield(key) }
                }
            }
        }
        sink.finish()
    }
    sink.onTermination = { _ in forwarding.cancel() }
    return merged
}
