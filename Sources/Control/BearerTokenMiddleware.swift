import FlipboxCore
import Foundation
import Hummingbird

/// Lets a request through only with the configured bearer token, except for the public paths
/// (the web remote's page, which holds nothing and reads the token from its own URL).
///
/// Deny by default: the check does not try to know which paths the router serves. Paths are
/// compared as the router sees them (empty segments dropped, so `//api/v1/tune/2` is
/// `/api/v1/tune/2`), and anything that is not a public path needs the token, whatever it spells.
///
/// The token is taken from `Authorization: Bearer TOKEN`, or, for the URLs a browser opens without
/// headers (the event stream, the snapshot and thumbnails), from `?token=TOKEN`. A missing or wrong token gets
/// 401 with a JSON error and `WWW-Authenticate: Bearer`.
struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String
    /// Paths that also accept `?token=`.
    let queryTokenPaths: Set<String>
    /// Paths served without a token (the web remote's pages; they call the API with it).
    let publicPaths: Set<String> = ["/", "/guide"]

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard !publicPaths.contains(Self.routedPath(request.uri.path)) else {
            return try await next(request, context)
        }
        let presented = Self.bearerToken(request.headers[.authorization])
            ?? (acceptsQueryToken(request) ? request.uri.queryParameters.get("token") : nil)
        guard let presented else {
            return Self.unauthorized("this API needs a token: send 'Authorization: Bearer TOKEN'")
        }
        guard Self.constantTimeEquals(presented, token) else {
            return Self.unauthorized("the token is wrong")
        }
        return try await next(request, context)
    }

    /// The event stream, the snapshot and channel thumbnails (what `<img>` and `EventSource`
    /// open without headers) may carry the token in the query.
    private func acceptsQueryToken(_ request: Request) -> Bool {
        let path = Self.routedPath(request.uri.path)
        return queryTokenPaths.contains(path)
            || (request.method == .get && path.hasPrefix("/api/v1/channels/") && path.hasSuffix("/thumbnail.jpg"))
    }

    /// The path as the router matches it: segments split on `/` with the empty ones dropped.
    static func routedPath(_ path: String) -> String {
        "/" + path.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
    }

    static func bearerToken(_ header: String?) -> String? { BearerToken.parse(header) }

    static func constantTimeEquals(_ a: String, _ b: String) -> Bool { BearerToken.matches(a, b) }

    private static func unauthorized(_ message: String) -> Response {
        JSONResponse.error(.unauthorized, message, headers: [.wwwAuthenticate: #"Bearer realm="flipbox""#])
    }
}
