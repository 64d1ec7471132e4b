import Hummingbird
import Logging

/// Turns every error a handler throws into a JSON error response: `{"error": "message"}`.
///
/// `HTTPError`s keep their status (a not-found route becomes `404` naming the path); anything else is
/// logged and becomes `500`.
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            let message = error.body ?? Self.defaultMessage(error.status, request: request)
            return JSONResponse.error(error.status, message, headers: error.headers)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            logger.error("control API request failed", metadata: [
                "path": "\(request.uri.path)", "error": "\(error)",
            ])
            return JSONResponse.error(.internalServerError, "internal error: \(error)")
        }
    }

    static func defaultMessage(_ status: HTTPResponse.Status, request: Request) -> String {
        switch status {
        case .notFound: "no such endpoint: \(request.method) \(request.uri.path)"
        default: status.reasonPhrase.lowercased()
        }
    }
}
