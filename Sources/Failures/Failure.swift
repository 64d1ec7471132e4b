/// What kind of failure a request met, as whoever asked sees it: the domain decides the kind,
/// and the control API turns a kind into an HTTP status in one place (Control's
/// `FailureKind+HTTP.swift`), so no route maps errors by hand.
public enum FailureKind: Sendable, Hashable {
    /// The request itself is wrong (a bad value, a malformed PIN).
    case badRequest
    /// What it names does not exist (a channel, a track).
    case notFound
    /// It cannot be done in the present state (nothing open, not warm, not locked).
    case conflict
    /// It is not allowed (locked content, a wrong PIN).
    case forbidden
    /// Too many tries: wait.
    case tooManyAttempts
    /// A source or decoder behind the box failed.
    case upstream
    /// A source or decoder behind the box took too long.
    case timedOut
    /// Busy or unable for now; try again.
    case unavailable
    /// This player does not do that.
    case unsupported
    /// The box itself failed (its storage).
    case internalFailure
    /// Whoever asked stopped waiting for the answer.
    case abandoned
}

/// An error of the domain with a kind and a message for the person asking.
public protocol DomainFailure: Error, Sendable, CustomStringConvertible {
    var kind: FailureKind { get }
    var message: String { get }
    /// Seconds before trying again is allowed, when tries must wait.
    var retryAfter: Double? { get }
}

extension DomainFailure {
    public var retryAfter: Double? { nil }
}

/// The codes of one kind of domain failure; each says which `FailureKind` it is.
public protocol FailureCode: Sendable, Hashable {
    var kind: FailureKind { get }
}

/// A domain failure made of a code (for programs) and a message (for people); `description`
/// is the message. The usual shape: `typealias OverlayError = Failure<OverlayFailureCode>`.
public struct Failure<Code: FailureCode>: DomainFailure, Equatable {
    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var kind: FailureKind { code.kind }
    public var description: String { message }
}
