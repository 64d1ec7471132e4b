import Foundation

/// One problem found in a lineup file, rendered as `FILE:LINE: message`.
public struct LineupDiagnostic: Hashable, Sendable, CustomStringConvertible {
    public enum Severity: String, Hashable, Sendable {
        /// The lineup cannot be used until this is fixed.
        case error
        /// The lineup works, but probably not as the author meant.
        case warning
    }

    public var severity: Severity
    public var file: String
    /// 1-based line; 0 when the problem concerns the whole file.
    public var line: Int
    public var message: String

    public init(_ severity: Severity, file: String, line: Int, _ message: String) {
        self.severity = severity
        self.file = file
        self.line = line
        self.message = message
    }

    public var location: SourceLocation { SourceLocation(file: file, line: line) }

    /// `FILE:LINE: message` for errors, `FILE:LINE: warning: message` for warnings;
    /// the line is left out when it is 0.
    public var description: String {
        let place = line > 0 ? "\(file):\(line)" : file
        switch severity {
        case .error: return "\(place): \(message)"
        case .warning: return "\(place): warning: \(message)"
        }
    }
}

/// Collects diagnostics for one file while it is parsed and checked.
struct DiagnosticLog {
    let file: String
    private(set) var entries: [LineupDiagnostic] = []

    init(file: String) { self.file = file }

    mutating func error(_ line: Int, _ message: String) {
        entries.append(LineupDiagnostic(.error, file: file, line: line, message))
    }

    mutating func warning(_ line: Int, _ message: String) {
        entries.append(LineupDiagnostic(.warning, file: file, line: line, message))
    }

    var hasErrors: Bool { entries.contains { $0.severity == .error } }

    /// Takes `other`'s entries (each keeps its file).
    mutating func append(_ other: DiagnosticLog) { entries += other.entries }

    /// Entries ordered by line, keeping the order of discovery within a line; another file's
    /// entries (`append(_:)`) after this file's, each file by line.
    var sorted: [LineupDiagnostic] {
        entries.enumerated()
            .sorted { ($0.element.file == file ? 0 : 1, $0.element.line, $0.offset) < ($1.element.file == file ? 0 : 1, $1.element.line, $1.offset) }
            .map(\.element)
    }
}
