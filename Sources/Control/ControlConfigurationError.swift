import Lineup

/// Why the control server cannot start with the configuration it was given.
///
/// The message says what is wrong and what to do, then the code, stable for scripts:
/// `control API: port 70000 is not between 0 and 65535 [invalid-port]`.
public typealias ControlConfigurationError = Failure<ControlConfigurationCode>

public enum ControlConfigurationCode: String, FailureCode {
    /// The server would listen beyond this machine without a bearer token.
    case tokenRequired = "token-required"
    /// The port is outside 0...65535.
    case invalidPort = "invalid-port"
    /// The token is empty or contains characters a header cannot carry.
    case invalidToken = "invalid-token"
    /// A name given to `--allow-host` (or the lineup's `allow-hosts`) is not a host name.
    case invalidHost = "invalid-host"

    public var kind: FailureKind { .badRequest }
}

extension Failure where Code == ControlConfigurationCode {
    /// `control API: what [code]`.
    static func control(_ code: ControlConfigurationCode, _ what: String) -> ControlConfigurationError {
        ControlConfigurationError(code, "control API: \(what) [\(code.rawValue)]")
    }
}
