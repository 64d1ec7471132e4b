import Hummingbird
import Switcher

/// The HTTP status for a flip result. The body always carries the whole result.
///
/// `FlipResult` has no machine-readable failure kind yet, so failed results are told apart by the
/// start of `error` (case-insensitive), a convention the player keeps:
/// - `unknown channel…` → 404
/// - `timed out…` or `timeout…` → 504
/// - anything else → 502
/// A superseded flip is 409; a completed one 200.
enum FlipHTTPStatus {
    static func of(_ result: FlipResult) -> HTTPResponse.Status {
        switch result.outcome {
        case .completed:
            return .ok
        case .superseded:
            return .conflict
        case .failed:
            let error = (result.error ?? "").lowercased()
            if error.hasPrefix("unknown channel") { return .notFound }
            if error.hasPrefix("timed out") || error.hasPrefix("timeout") { return .gatewayTimeout }
            return .badGateway
        }
    }
}
