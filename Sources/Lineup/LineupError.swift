import Foundation

/// Why a lineup could not be loaded: every problem found, not just the first.
///
/// `description` renders one `FILE:LINE: message` per line, errors and warnings
/// in line order, ready to print for the user.
public struct LineupError: Error, Hashable, Sendable, CustomStringConvertible {
    /// All diagnostics of the file, warnings included; at least one is an error.
    public var diagnostics: [LineupDiagnostic]

    public init(diagnostics: [LineupDiagnostic]) {
        self.diagnostics = diagnostics
    }

    /// A single file-level error, e.g. for a file that cannot be read.
    public init(file: String, line: Int = 0, _ message: String) {
        self.diagnostics = [LineupDiagnostic(.error, file: file, line: line, message)]
    }

    public var errors: [LineupDiagnostic] { diagnostics.filter { $0.severity == .error } }
    public var warnings: [LineupDiagnostic] { diagnostics.filter { $0.severity == .warning } }

    public var description: String {
        diagnostics.map(\.description).joined(separator: "\n")
    }
}
