import Foundation

/// The outcome of checking a lineup: the lineup when it has no errors, and every diagnostic.
public struct LineupReport: Sendable, Hashable {
    /// Present exactly when `diagnostics` holds no error.
    public var lineup: Lineup?
    /// Errors and warnings, in line order.
    public var diagnostics: [LineupDiagnostic]

    public init(lineup: Lineup?, diagnostics: [LineupDiagnostic]) {
        self.lineup = lineup
        self.diagnostics = diagnostics
    }

    public var errors: [LineupDiagnostic] { diagnostics.filter { $0.severity == .error } }
    public var warnings: [LineupDiagnostic] { diagnostics.filter { $0.severity == .warning } }

    /// The lineup, or a `LineupError` holding all diagnostics.
    public func get() throws(LineupError) -> Lineup {
        guard let lineup else { throw LineupError(diagnostics: diagnostics) }
        return lineup
    }
}
