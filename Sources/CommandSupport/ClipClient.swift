import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The few requests `flipbox clip` and `flipbox record` make (and `flipbox-lab bench`'s restarts
/// of a recording box), each with 30 s to be answered.
public struct ClipClient: Sendable {
    public let base: String
    public let token: String?

    public init(base: String, token: String?) {
        self.base = base
        self.token = token
    }

    public struct Failure: Error {
        public var text: String
        public init(text: String) { self.text = text }
    }

    public func send(_ method: String, _ path: String, body: Data? = nil) async throws -> (Int, Data) {
        guard let url = URL(string: base + path) else { throw Failure(text: "'\(base)' is not a URL") }
        var request = URLRequest(url: url, timeoutInterval: 30)
        request.httpMethod = method
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// Runs `body`; a refusal or an unreachable box becomes a line on stderr
    /// (`flipbox COMMAND: …`) and exit status 1.
    public func reporting(as command: String, url: String, _ body: (ClipClient) async throws -> Void) async throws {
        do {
            try await body(self)
        } catch let failure as Failure {
            FileHandle.standardError.write(Data("flipbox \(command): \(failure.text)\n".utf8))
            throw ExitCode(1)
        } catch let error as URLError {
            FileHandle.standardError.write(Data("flipbox \(command): cannot reach the box at \(url): \(error.localizedDescription)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// The box's own message (`{"error": …}`), with the status.
    public static func refusal(_ status: Int, _ data: Data) -> Failure {
        let message = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["error"] as? String
        return Failure(text: "the box answered \(status): \(message ?? String(decoding: data.prefix(300), as: UTF8.self))")
    }
}

extension ClipClient {
    /// Sends `json` (when given) and returns the body when the status is `status`; else the box's refusal.
    public func expect(_ status: Int, _ method: String, _ path: String, json: [String: Any]? = nil) async throws -> Data {
        let body = try json.map { try JSONSerialization.data(withJSONObject: $0) }
        let (got, data) = try await send(method, path, body: body)
        guard got == status else { throw Self.refusal(got, data) }
        return data
    }

    /// The box's answer as a JSON object.
    public static func object(_ data: Data) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Failure(text: "the box answered something that is not a JSON object")
        }
        return object
    }
}
