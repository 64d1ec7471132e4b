import Foundation
import Hummingbird

/// Keeps web pages from driving a box that has no token (docs/security.md):
///
/// - DNS rebinding: a request whose `Host` does not name this box (``AllowedHosts``) gets 403.
/// - Cross-site requests: a POST, PUT, DELETE or PATCH whose `Origin` (or, without one, `Referer`)
///   is not this box's own origin gets 403. The web remote served at `/` calls the API from its
///   own origin, so it passes; programs such as curl send neither header and pass too.
///
/// Installed only when there is no token: with one, a page cannot supply `Authorization`.
struct SameOriginMiddleware<Context: RequestContext>: RouterMiddleware {
    let hosts: AllowedHosts

    static var stateChanging: Set<HTTPRequest.Method> { [.post, .put, .delete, .patch] }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        // HTTP/1.0 may omit Host; browsers never do, and a rebound page always sends its own name.
        let authority = request.head.authority
        if let authority, !hosts.contains(authority: authority) {
            return JSONResponse.error(.forbidden, """
                refused: the Host header '\(authority)' does not name this box (DNS rebinding defence). \
                Without a token the API answers to \(hosts.description). To reach it by this name, start \
                flipbox play with --allow-host \(AllowedHosts.host(ofAuthority: authority) ?? "NAME") \
                (or list it in the lineup's settings: allow-hosts), or set a token with --token
                """)
        }
        if Self.stateChanging.contains(request.method), let origin = Self.pageOrigin(request) {
            let own = authority.map { "http://\($0.lowercased())" }
            if origin.lowercased() != own, origin.lowercased() != own.map({ "https" + $0.dropFirst(4) }) {
                return JSONResponse.error(.forbidden, """
                    refused: \(request.method) \(request.uri.path) from the web page at \(origin) \
                    (cross-site request defence); without a token only pages this box serves \
                    (\(own ?? "its own origin")) may change what it plays. To drive the box from \
                    another page or program, set a token with --token and send 'Authorization: Bearer TOKEN'
                    """)
            }
        }
        return try await next(request, context)
    }

    /// The origin of the page that made the request: `Origin`, else the scheme and authority of
    /// `Referer`; nil when the request carries neither (not made by a web page). An opaque origin
    /// (`null`) or an unreadable referrer is returned as it is and never matches.
    static func pageOrigin(_ request: Request) -> String? {
        if let origin = request.headers[.origin] { return origin }
        guard let referer = request.headers[.referer] else { return nil }
        guard let url = URL(string: referer), let scheme = url.scheme, let host = url.host else { return referer }
        let name = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(name)\(url.port.map { ":\($0)" } ?? "")"
    }
}
