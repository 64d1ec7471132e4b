import Foundation
import Hummingbird

/// Answers of the serving endpoints: JSON (HDHomeRun clients read it), text, and errors as
/// `{"error": message}` with a status that says what went wrong.
enum ServeResponse {
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data(#"{"error":"could not encode the response"}"#.utf8)
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func text(_ text: String, contentType: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: contentType, .cacheControl: "no-store"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func error(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) -> Response {
        var response = json(["error": message], status: status)
        for field in headers { response.headers[field.name] = field.value }
        return response
    }

    /// `X-HDHomeRun-Error: 805 All Tuners In Use`.
    static var allTunersInUse: HTTPFields {
        var fields = HTTPFields()
        if let name = HTTPFields.Element.Name("X-HDHomeRun-Error") { fields[name] = "805 All Tuners In Use" }
        return fields
    }

    static func error(_ error: ServeError) -> Response {
        switch error.code {
        case .unknownChannel: return Self.error(.notFound, error.message)
        case .tooManyClients, .stopped: return Self.error(.serviceUnavailable, error.message, headers: [.retryAfter: "5"])
        case .failed: return Self.error(.badGateway, error.message)
        // What an HDHomeRun answers when every tuner is busy: its clients (and Flipbox's pools)
        // read the header, not the body.
        case .tunersInUse:
            return Self.error(.serviceUnavailable, error.message, headers: allTunersInUse)
        case .locked:
            var fields = ["error": error.message]
            fields["channel"] = error.channel
            fields["reason"] = error.reason
            return json(fields, status: .forbidden)
        }
    }
}
