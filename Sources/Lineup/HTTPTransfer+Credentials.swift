import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTP Basic credentials for the transfers made here (a Tvheadend server's playlist and guide).
extension HTTPTransfer {
    /// The `Authorization` value of `user` and `password` (RFC 7617: `Basic` and the base64 of
    /// `user:password` in UTF-8).
    public static func basicAuthorization(user: String, password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// `request` with its URL's user-info (`http://USER:PASSWORD@host/…`, percent-decoded) moved
    /// into an `Authorization: Basic` header, and its URL without it; `request` unchanged when its
    /// URL has none. The session is not left to send the user-info itself, and a redirect to
    /// another server does not take the header along (see ``sameOrigin(_:_:)``).
    public static func authorizingFromUserInfo(_ request: URLRequest) -> URLRequest {
        guard let url = request.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let user = components.user, !user.isEmpty else { return request }
        let password = components.password ?? ""
        components.user = nil
        components.password = nil
        guard let bare = components.url else { return request }
        var authorized = request
        authorized.url = bare
        authorized.setValue(basicAuthorization(user: user, password: password), forHTTPHeaderField: "Authorization")
        return authorized
    }

    /// Whether `a` and `b` have one scheme, host and port (the port defaulted by scheme): where
    /// credentials given for one may be sent to the other.
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func origin(_ url: URL) -> String {
            let scheme = url.scheme?.lowercased() ?? ""
            return "\(scheme)://\(url.host?.lowercased() ?? ""):\(url.port ?? (scheme == "https" ? 443 : 80))"
        }
        return origin(a) == origin(b)
    }
}
