import ConnectionGuard
import Foundation
import NIOCore
import NIOPosix

/// How clients reach the head-end's serving endpoints: the URL put in `discover.json`, discovery
/// replies, `lineup.json` and `/lineup.m3u`. The configured `baseURL` when there is one; else
/// the `Host` a request was sent to; else the serving host and the port it listens on (the local
/// address toward the client when the host is a wildcard). Thread-safe.
public final class HeadendAddress: @unchecked Sendable {
    public let configuration: ServeConfiguration
    private let lock = NSLock()
    private var bound: Int?

    public init(configuration: ServeConfiguration) {
        self.configuration = configuration
    }

    /// The HTTP port listened on (the configured one until the server reports it).
    public var port: Int { lock.withLock { bound } ?? configuration.port }

    /// Called once the HTTP server listens (port 0 picks one).
    public func listening(on port: Int) { lock.withLock { bound = port } }

    /// The base URL for a request that named `requestHost` (its `Host` header).
    public func baseURL(requestHost: String?) -> String {
        if let base = configuration.baseURL { return base }
        if let requestHost, !requestHost.isEmpty, requestHost.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "/" && $0 != "@" }) {
            return "http://\(requestHost)"
        }
        return url(host: configuration.host)
    }

    /// The base URL for a client at `peer` that sent no `Host` (HDHomeRun discovery, control).
    public func baseURL(toward peer: SocketAddress) async -> String {
        if let base = configuration.baseURL { return base }
        var host = configuration.host
        if host == "0.0.0.0" || host == "::" {
            host = (try? await Self.localAddress(toward: peer)) ?? host
        }
        return url(host: host)
    }

    private func url(host: String) -> String {
        "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// The local address the system would use to reach `peer` (a connected UDP socket's name).
    static func localAddress(toward peer: SocketAddress) async throws -> String? {
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(to: peer).get()
        defer { channel.close(promise: nil) }
        return channel.localAddress?.ipAddress
    }
}

/// Who may use the serving endpoints: loopback and the allowed networks without a token,
/// anyone with the token. Behind a declared proxy (`trustedProxies`) the client its forwarded
/// header names is judged, never the proxy (`ForwardedClient`).
struct ServeAccess: Sendable {
    let allowed: [NetworkRange]
    let token: String?
    let trustedProxies: [NetworkRange]

    init(configuration: ServeConfiguration) {
        allowed = configuration.allowed
        token = configuration.token
        trustedProxies = configuration.trustedProxies
    }

    func allowsWithoutToken(_ address: String?) -> Bool {
        guard let address else { return false }
        return NetworkRange.isLoopback(address) || allowed.contains { $0.contains(address) }
    }
}
