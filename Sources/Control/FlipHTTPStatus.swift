import FlipboxCore
import Hummingbird
import Switcher

/// The HTTP status for a flip result. The body always carries the whole result.
///
/// Completed 200, superseded 409; failed by `FlipResult.failure`: unknown channel 404, timed out
/// 504, nothing to flip to 409, a source that failed 502, a locked channel 403, a cancelled
/// request 499 (the client went away): the failure's kind (FailureKind+HTTP.swift).
enum FlipHTTPStatus {
    static func of(_ result: FlipResult) -> HTTPResponse.Status {
        switch result.outcome {
        case .completed:
            return .ok
        case .superseded:
            return .conflict
        case .failed:
            return (result.failure ?? .sourceFailed).kind.httpStatus
        }
    }
}
