import ConnectionGuard
import FlipboxCore
import Hummingbird

/// Lets a request to the serving endpoints through when it comes from loopback or an allowed
/// network (`--serve-allow`), or carries the token (`Authorization: Bearer TOKEN` or
/// `?token=TOKEN`, since players open URLs without headers). The client is the connection's
/// peer, or behind a declared proxy (`--serve-trusted-proxy`) the one its forwarded header
/// names; a forwarded request from an undeclared proxy is judged by no address at all. A request
/// with the token is marked `authenticated` (trusted like the owner: parental locks step aside).
/// Anything else gets 403 with a message naming the client's address and the option that allows it.
struct ServeAccessMiddleware: RouterMiddleware {
    typealias Context = ServeRequestContext
    let access: ServeAccess

    static let xForwardedFor = HTTPFields.Element.Name("X-Forwarded-For")!
    static let forwarded = HTTPFields.Element.Name("Forwarded")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if let token = access.token {
            let presented = BearerToken.parse(request.headers[.authorization]) ?? request.uri.queryParameters.get("token")
            if let presented, BearerToken.matches(presented, token) {
                context.authenticated = true
                return try await next(request, context)
            }
        }
        let client = ForwardedClient.judge(peer: context.remoteAddress?.ipAddress,
                                           xForwardedFor: request.headers[values: Self.xForwardedFor],
                                           forwarded: request.headers[values: Self.forwarded], trusted: access.trustedProxies)
        switch client {
        case .address(let address):
            if access.allowsWithoutToken(address) { return try await next(request, context) }
            let allow = access.token == nil
                ? "allow its network with --serve-allow (e.g. --serve-allow \(address.contains(":") ? "\(address)/128" : "\(address)/32"))"
                : "allow its network with --serve-allow, or send the token"
            return ServeResponse.error(.forbidden, "refused: \(address) may not watch this head-end; \(allow)")
        case .unknown(let message):
            return ServeResponse.error(.forbidden, message)
        }
    }
}
