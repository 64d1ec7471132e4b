import Hummingbird
import Lineup

/// The one place where the domain's failures become HTTP statuses.
extension FailureKind {
    var httpStatus: HTTPResponse.Status {
        switch self {
        case .badRequest: .badRequest
        case .notFound: .notFound
        case .conflict: .conflict
        case .forbidden: .forbidden
        case .tooManyAttempts: .tooManyRequests
        case .upstream: .badGateway
        case .timedOut: .gatewayTimeout
        case .unavailable: .serviceUnavailable
        case .unsupported: .notImplemented
        case .internalFailure: .internalServerError
        case .abandoned: .init(code: 499, reasonPhrase: "Client Closed Request")
        }
    }
}

extension JSONResponse {
    /// `{"error": message}` with the status of the failure's kind (`prefix` before the message);
    /// an error that is not a `DomainFailure` is the box's own fault: 500. A failure that says
    /// when to try again carries `Retry-After`.
    static func failure(_ error: any Error, prefix: String = "") -> Response {
        guard let failure = error as? any DomainFailure else {
            return self.error(.internalServerError, prefix + "\(error)")
        }
        var headers = HTTPFields()
        if let wait = failure.retryAfter { headers[.retryAfter] = "\(Int(wait.rounded(.up)))" }
        return self.error(failure.kind.httpStatus, prefix + failure.message, headers: headers)
    }

    /// 200 with what `body` returns, or its failure's status and message.
    static func answer(_ body: () async throws -> some Encodable & Sendable) async -> Response {
        do {
            return make(.ok, try await body())
        } catch {
            return failure(error)
        }
    }
}
