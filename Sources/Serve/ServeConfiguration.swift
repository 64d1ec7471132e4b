import ConnectionGuard
/// Where the head-end's serving endpoints listen and who may use them.
///
/// The serving endpoints (streams, HLS, HDHomeRun, the lineup and guide exports, logos) are
/// read-only and listen apart from the control API, on `host:port` (default `127.0.0.1:5004`).
/// Media clients (TVs, Plex, VLC) cannot send a token, so off loopback the networks allowed to
/// watch without one are named (`allowed`, `--serve-allow 192.168.1.0/24`); anyone else needs the
/// token (`Authorization: Bearer` or `?token=`). A non-loopback host with neither is refused at
/// start. The control routes are never served here.
public struct ServeConfiguration: Sendable {
    public static let defaultHost = "127.0.0.1"
    public static let defaultPort = 5004

    public var host: String
    public var port: Int
    /// Networks whose clients need no token (loopback always may).
    public var allowed: [NetworkRange]
    /// Lets any other client in with `Authorization: Bearer TOKEN` or `?token=TOKEN`; a request
    /// with it is trusted like the box's owner (parental locks do not apply to it).
    public var token: String?
    /// Proxies whose `X-Forwarded-For` / `Forwarded` headers name the client to judge
    /// (`--serve-trusted-proxy`). A forwarded request from any other peer is refused without the token.
    public var trustedProxies: [NetworkRange] = []
    /// The parental locks on everything served (`parental:`, `locked:`).
    public var locks = ServeLocks()
    /// Connections at once, from one address, and the time a request's head may take; nil: the
    /// client limit plus 1024 connections, 64 from one address (loopback and the trusted proxies
    /// excepted), 10 s.
    public var connections: ConnectionLimits?

    /// The connection limits in force.
    public var connectionLimits: ConnectionLimits {
        connections ?? ConnectionLimits(maxConnections: streams.maxClients + 1024)
    }
    public var streams: StreamServer.Settings
    public var device: HDHomeRunDevice
    /// Answer HDHomeRun discovery (UDP) and control (TCP) on `hdhomerunPort` of `host`.
    public var hdhomerunProtocol: Bool
    /// 65001 for real clients (they cannot be told another port).
    public var hdhomerunPort: Int
    /// A control connection (TCP 65001) that sends nothing for this long is closed.
    public var hdhomerunIdleTimeout: Duration = .seconds(30)
    /// HDHomeRun control (TCP 65001) connections held at once; one more is closed at once. A
    /// client asks a question or two and goes: a real device holds a handful.
    public var hdhomerunMaxConnections = 16
    /// The URL clients are told to use (`BaseURL`, playlist URLs); nil: `http://host:port`, with
    /// the address a request came in on when `host` is a wildcard.
    public var baseURL: String?
    /// Send every channel to a multicast group too (nil: no multicast).
    public var multicast: MulticastPlan?

    public init(host: String = ServeConfiguration.defaultHost, port: Int = ServeConfiguration.defaultPort,
                allowed: [NetworkRange] = [], token: String? = nil, streams: StreamServer.Settings = StreamServer.Settings(),
                device: HDHomeRunDevice = HDHomeRunDevice(deviceID: HDHomeRunDevice.derivedID(seed: "flipbox")),
                hdhomerunProtocol: Bool = true, hdhomerunPort: Int = 65001, baseURL: String? = nil, multicast: MulticastPlan? = nil) {
        self.host = host
        self.port = port
        self.allowed = allowed
        self.token = token
        self.streams = streams
        self.device = device
        self.hdhomerunProtocol = hdhomerunProtocol
        self.hdhomerunPort = hdhomerunPort
        self.baseURL = baseURL
        self.multicast = multicast
    }

    /// Whether `host` reaches this machine only.
    public var isLoopback: Bool {
        host == "localhost" || NetworkRange.isLoopback(host)
    }

    /// Throws when the head-end must not start like this.
    public func validate() throws(ServeConfigurationError) {
        guard (0...65535).contains(port) else { throw ServeConfigurationError(.badValue, "serving port \(port) is not between 0 and 65535") }
        guard (0...65535).contains(hdhomerunPort) else { throw ServeConfigurationError(.badValue, "HDHomeRun port \(hdhomerunPort) is not between 0 and 65535") }
        if !isLoopback && allowed.isEmpty && token == nil {
            throw ServeConfigurationError(
                .unguarded,
                "serving on \(host) reaches the network: name the networks that may watch with --serve-allow "
                    + "(e.g. --serve-allow 192.168.1.0/24), or set a token, or serve on 127.0.0.1")
        }
        if let token, token.isEmpty || !token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) {
            throw ServeConfigurationError(.badValue, "the token must be non-empty printable ASCII without spaces")
        }
        guard (1...100_000).contains(streams.maxClients) else { throw ServeConfigurationError(.badValue, "the client limit must be from 1 to 100000") }
        guard hdhomerunIdleTimeout > .zero, hdhomerunIdleTimeout <= .seconds(3600) else {
            throw ServeConfigurationError(.badValue, "the HDHomeRun control idle timeout must be over 0 and at most an hour")
        }
        let connections = connectionLimits
        guard (1...1_000_000).contains(connections.maxConnections), (1...connections.maxConnections).contains(connections.maxPerAddress),
              connections.headerTimeout > .zero else {
            throw ServeConfigurationError(.badValue, "the connection limits must allow 1 to 1000000 connections, at least 1 per address, and a header time over 0")
        }
    }

    /// Parses `HOST:PORT` (`[::1]:5004` for IPv6).
    public static func parseAddress(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        return (host, port)
    }
}
