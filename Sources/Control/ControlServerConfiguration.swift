import ConnectionGuard
/// Where the control API listens and who may use it.
///
/// On a loopback host (`127.0.0.0/8`, `::1`, `localhost`) the token is optional; on any other host
/// it is required, and ``validate()`` says so. When a token is set, every `/api` request must carry
/// `Authorization: Bearer TOKEN` (or `?token=TOKEN` on the event stream and snapshot URLs).
///
/// Without a token, browsers are kept out instead (docs/security.md): a request must name this box
/// in its `Host` header (a loopback name or address, the listen host, or one of `allowedHosts`), and
/// a state-changing request from a web page must come from a page this box served.
public struct ControlServerConfiguration: Sendable, Hashable {
    public static let defaultHost = "127.0.0.1"
    public static let defaultPort = 8642

    public var host: String
    public var port: Int
    /// The bearer token; nil means no authentication (loopback only).
    public var token: String?
    /// How often the event stream sends a `: keepalive` comment.
    public var keepaliveInterval: Duration
    /// Host names besides loopback and `host` that requests may name in `Host` when there is no
    /// token (`--allow-host`, the lineup's `allow-hosts`).
    public var allowedHosts: [String]
    /// How much one request and all requests together may take.
    public var limits: RequestLimits
    /// Connections at once (256), from one address (64, loopback excepted), and the time a
    /// request's head may take (10 s): beyond them 503 or 408 and the connection is closed.
    public var connections = ConnectionLimits(maxConnections: 256)

    public init(
        host: String = ControlServerConfiguration.defaultHost,
        port: Int = ControlServerConfiguration.defaultPort,
        token: String? = nil,
        keepaliveInterval: Duration = .seconds(15),
        allowedHosts: [String] = [],
        limits: RequestLimits = RequestLimits()
    ) {
        self.host = host
        self.port = port
        self.token = token
        self.keepaliveInterval = keepaliveInterval
        self.allowedHosts = allowedHosts
        self.limits = limits
    }

    /// Whether `host` names this machine only.
    public var isLoopback: Bool { LoopbackHost.contains(host) }

    /// Throws ``ControlConfigurationError`` when the server must not start like this.
    public func validate() throws(ControlConfigurationError) {
        guard (0...65535).contains(port) else {
            throw .control(.invalidPort, "port \(port) is not between 0 and 65535")
        }
        if let token {
            let printable = token.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F }
            guard !token.isEmpty, printable else {
                throw .control(.invalidToken, "the token must be non-empty printable ASCII without spaces")
            }
        } else if !isLoopback {
            throw .control(
                .tokenRequired,
                "listening on \(host) exposes the box to the network; set a token, "
                    + "or listen on 127.0.0.1"
            )
        }
        for name in allowedHosts where !AllowedHosts.isValidName(name) {
            throw .control(
                .invalidHost,
                "'\(name)' is not a host name to allow; give a name such as tv.lan or an address such as 192.168.1.20, without a port"
            )
        }
    }
}
