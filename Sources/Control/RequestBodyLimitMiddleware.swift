import Hummingbird
import NIOCore

/// Refuses a request body larger than ``RequestLimits/bodyBytes`` with 413 and a JSON message:
/// at once when `Content-Length` says so, and when a handler reading the body finds it too long
/// (a chunked body has no length up front). Handlers that read no body never buffer one.
struct RequestBodyLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let limit: Int

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            return tooLarge(length)
        }
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            return tooLarge(nil)
        } catch is NIOTooManyBytesError {
            return tooLarge(nil)
        }
    }

    private func tooLarge(_ length: Int?) -> Response {
        let size = length.map { "of \($0) bytes " } ?? ""
        return JSONResponse.error(.contentTooLarge, """
            the request body \(size)is larger than the \(limit) bytes this API reads; \
            its only body is the small JSON object of POST /api/v1/pip
            """, headers: [.connection: "close"])
    }
}
