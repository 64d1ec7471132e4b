import FlipboxCore
import Hummingbird

/// Lets a request to the serving endpoints through when it comes from loopback or an allowed
/// network (`--serve-allow`), or carries the token (`Authorization: Bearer TOKEN` or
/// `?token=TOKEN`, since players open URLs without headers). Anything else gets 403 with a
/// message naming the client's address and the option that allows it.
struct ServeAccessMiddleware: RouterMiddleware {
    typealias Context = ServeRequestContext
    let access: ServeAccess

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let address = context.remoteAddress?.ipAddress
        if access.allowsWithoutToken(address) { return try await next(request, context) }
        if let token = access.token {
            let presented = BearerToken.parse(request.headers[.authorization]) ?? request.uri.queryParameters.get("token")
            if let presented, BearerToken.matches(presented, token) { return try await next(request, context) }
        }
        let who = address ?? "an unknown address"
        let allow = access.token == nil
            ? "allow its network with --serve-allow (e.g. --serve-allow \(address.map { $0.contains(":") ? "\($0)/128" : "\($0)/32" } ?? "192.168.1.0/24"))"
            : "allow its network with --serve-allow, or send the token"
        return ServeResponse.error(.forbidden, "refused: \(who) may not watch this head-end; \(allow)")
    }
}
