import Hummingbird

/// Registers the API's endpoints on a router and remembers what it serves.
///
/// Each path gets its handlers, and a 405 with `Allow` for the other common methods (HEAD
/// follows GET: the router answers it like GET without a body). ``served`` is what the API
/// offers; the OpenAPI document must list exactly these (ControlTests/OpenAPIDocumentTests).
final class APIRouteTable {
    typealias Handler = @Sendable (Request, BasicRequestContext) async throws -> Response

    struct Route: Hashable, Comparable, CustomStringConvertible {
        var path: String
        var method: HTTPRequest.Method

        static func < (a: Route, b: Route) -> Bool { (a.path, a.method.rawValue) < (b.path, b.method.rawValue) }
        var description: String { "\(method) \(path)" }
    }

    let router: Router<BasicRequestContext>
    private(set) var served: [Route] = []
    /// The 405 answers registered for the methods a path does not serve.
    private(set) var refused: [Route] = []

    init(router: Router<BasicRequestContext>) {
        self.router = router
    }

    /// Registers `handlers` for `path`, and 405 for GET, POST, PUT, DELETE and PATCH when not among them.
    func on(_ path: String, _ handlers: [HTTPRequest.Method: Handler]) {
        for (method, handler) in handlers {
            router.on(RouterPath(stringLiteral: path), method: method, use: handler)
            served.append(Route(path: path, method: method))
        }
        let allowed = handlers.keys.map(\.rawValue).sorted().joined(separator: ", ")
        for other in [HTTPRequest.Method.get, .post, .put, .delete, .patch] where handlers[other] == nil {
            router.on(RouterPath(stringLiteral: path), method: other) { request, _ in
                JSONResponse.error(.methodNotAllowed, "\(request.method) is not allowed on \(request.uri.path); use \(allowed)",
                                   headers: [.allow: allowed])
            }
            refused.append(Route(path: path, method: other))
        }
    }
}
