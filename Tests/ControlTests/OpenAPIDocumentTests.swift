@testable import Control
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import Yams

/// docs/openapi.yaml describes exactly the API the router serves, and the box serves it.
@Suite("Control API: OpenAPI document")
struct OpenAPIDocumentTests {
    static var documentURL: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/openapi.yaml")
    }

    /// (path, method) of every operation in the document.
    static func documentedRoutes() throws -> Set<String> {
        let yaml = try String(contentsOf: documentURL, encoding: .utf8)
        let document = try #require(try Yams.load(yaml: yaml) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: Any])
        var routes = Set<String>()
        for (path, item) in paths {
            let operations = try #require(item as? [String: Any])
            for method in operations.keys where ["get", "put", "post", "delete", "patch", "head", "options"].contains(method) {
                routes.insert("\(method.uppercased()) \(path)")
            }
        }
        return routes
    }

    @Test func documentListsExactlyTheServedRoutes() throws {
        let api = try ControlAPI(player: FakePlayer(), configuration: ControlServerConfiguration(), guide: nil, metrics: ControlMetrics(), logger: quietLogger)
        let served = Set(api.routes.served.map(\.description))
        let documented = try Self.documentedRoutes()
        #expect(documented.subtracting(served).isEmpty, "documented but not served: \(documented.subtracting(served).sorted())")
        #expect(served.subtracting(documented).isEmpty, "served but not documented: \(served.subtracting(documented).sorted())")
        // Everything on the router went through the table: served, or a 405 for another method.
        let registered = Set(api.router.routes.filter { $0.method != .head }.map { "\($0.method) \($0.path)" })
        let tabled = served.union(api.routes.refused.map(\.description))
        #expect(registered == tabled, "registered outside the table: \(registered.symmetricDifference(tabled).sorted())")
    }

    @Test func embeddedCopyIsTheDocument() throws {
        let file = try String(contentsOf: Self.documentURL, encoding: .utf8)
        #expect(OpenAPIDocument.yaml + "\n" == file, "docs/openapi.yaml changed: run make openapi")
    }

    @Test func servedAsJSON() async throws {
        try await withControlAPI(FakePlayer()) { client in
            let response = try await client.execute(uri: "/api/v1/openapi.json", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json; charset=utf-8")
            let json = try jsonObject(response)
            #expect(json["openapi"] as? String == "3.1.0")
            let paths = try #require(json["paths"] as? [String: Any])
            #expect(paths.count == 59)
            let status = try #require((paths["/api/v1/status"] as? [String: Any])?["get"] as? [String: Any])
            let responses = try #require(status["responses"] as? [String: Any])
            #expect(responses["200"] != nil, "status codes stay strings")
            let limit = ((paths["/api/v1/snapshot.png"] as? [String: Any])?["get"] as? [String: Any])?["parameters"] as? [[String: Any]]
            #expect((limit?.first?["schema"] as? [String: Any])?["maximum"] as? Int == 7680, "numbers stay numbers")
        }
    }
}

@Suite("Control API: guide endpoints without a guide")
struct NoGuideTests {
    /// The guide paths are always served (the document lists them); without a guide they say so.
    @Test func withoutAGuideTheyAnswer404SayingSo() async throws {
        try await withControlAPI(FakePlayer()) { client in
            for (uri, method) in [("/api/v1/guide", HTTPRequest.Method.get), ("/api/v1/guide/refresh", .post)] {
                let response = try await client.execute(uri: uri, method: method)
                #expect(response.status == .notFound)
                #expect((try jsonObject(response)["error"] as? String)?.contains("no programme guide") == true)
            }
        }
    }
}
