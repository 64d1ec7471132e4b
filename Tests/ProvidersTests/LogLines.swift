import Logging
import Synchronization

/// Log lines a source wrote, to check what they say and that no password is in them.
final class LogLines: Sendable {
    let all = Mutex<[String]>([])

    var logger: Logger {
        Logger(label: "test") { _ in Handler(lines: self) }
    }

    struct Handler: LogHandler {
        let lines: LogLines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? { get { nil } set {} }
        func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String, function: String, line: UInt) {
            lines.all.withLock { $0.append("\(level): \(message)") }
        }
    }
}

extension LogLines {
    /// Whether any line holds any of `secrets`.
    func mention(anyOf secrets: [String]) -> Bool {
        let text = all.withLock { $0 }.joined(separator: "\n")
        return secrets.contains { text.contains($0) }
    }
}
