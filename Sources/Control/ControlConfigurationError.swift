/// Why the control server cannot start with the configuration it was given.
///
/// `code` is stable for scripts; `message` says what is wrong and what to do.
public struct ControlConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The server would listen beyond this machine without a bearer token.
        case tokenRequired = "token-required"
        /// The port is outside 0...65535.
        case invalidPort = "invalid-port"
        /// The token is empty or contains characters a header cannot carry.
        case invalidToken = "invalid-token"
        /// A name given to `--allow-host` (or the lineup's `allow-hosts`) is not a host name.
        case invalidHost = "invalid-host"
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "control API: \(message) [\(code.rawValue)]" }
}
