import Foundation
import Lineup

/// Why a rule, a request or the store could not be used: a code, a message for the person
/// running the box, and where (a rule's id, a pattern, the store's file).
public struct RecordingError: DomainFailure, Hashable {
    public enum Code: String, Sendable, Hashable, Codable {
        /// A title pattern that does not compile; the message says where it fails.
        case badPattern
        /// A rule or request whose values are out of bounds (padding, window, keep count).
        case badValue
        /// No such recording, rule or programme.
        case notFound
        /// The SQLite store could not be opened, written or read.
        case storage
        /// The change is not allowed in the recording's state (a part added to a finished one).
        case wrongState
    }

    public var code: Code
    public var message: String
    /// What it is about: a rule or recording id, a pattern, the store's path.
    public var source: String?

    public init(_ code: Code, _ message: String, source: String? = nil) {
        self.code = code
        self.message = message
        self.source = source
    }

    public var kind: FailureKind {
        switch code {
        case .badPattern, .badValue: .badRequest
        case .notFound: .notFound
        case .storage: .internalFailure
        case .wrongState: .conflict
        }
    }

    public var description: String { source.map { "\($0): \(message)" } ?? message }
}
