import Hummingbird
import NIOCore

/// The request context of the serving endpoints: Hummingbird's core context plus the connection,
/// so the access check sees the client's address and a dropped client's connection can be closed.
public struct ServeRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The client's connection.
    public let connection: any NIOCore.Channel
    /// The request sent the serve token: it is trusted like the box's owner (parental locks do
    /// not apply to it). Set by `ServeAccessMiddleware`.
    public var authenticated = false

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        connection = source.channel
    }

    public var remoteAddress: SocketAddress? { connection.remoteAddress }

    /// `127.0.0.1:51234`, for the log.
    public var peer: String {
        guard let address = remoteAddress else { return "?" }
        let ip = address.ipAddress ?? "?"
        return ip.contains(":") ? "[\(ip)]:\(address.port ?? 0)" : "\(ip):\(address.port ?? 0)"
    }
}
