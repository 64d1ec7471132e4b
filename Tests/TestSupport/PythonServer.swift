import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A small loopback server written in Python for a test: `script` binds a port on 127.0.0.1 and
/// prints its number on the first line, then serves. Stopped with SIGKILL (children of the test
/// process inherit its blocked SIGTERM).
public final class PythonServer: @unchecked Sendable {
    public let process = Process()
    public let port: Int

    public init(script: String) throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", "-c", script]
        process.standardOutput = output
        try process.run()
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    public func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
