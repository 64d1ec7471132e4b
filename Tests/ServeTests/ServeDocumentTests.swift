import Foundation
import Headend
import Hummingbird
import Lineup
import Serve
import Testing
import Yams

extension ServeTests {
    /// docs/serve-openapi.yaml lists exactly the routes the serving router answers.
    @Suite struct ServeDocument {
        @Test func documentListsExactlyTheServedRoutes() async throws {
            let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("docs/serve-openapi.yaml")
            let document = try #require(try Yams.load(yaml: String(contentsOf: url, encoding: .utf8)) as? [String: Any])
            let paths = try #require(document["paths"] as? [String: Any])
            var documented = Set<String>()
            for (path, item) in paths {
                for method in (item as? [String: Any] ?? [:]).keys { documented.insert("\(method.uppercased()) \(path)") }
            }
            let headend = Headend(lineup: Lineup(channels: []), policy: .none, target: DecodeTarget(width: 160, height: 90),
                                  logger: testLogger)
            let server = StreamServer(headend: headend, logger: testLogger)
            let router = makeServeRouter(server: server, hls: HLSServer(streams: server, logger: testLogger),
                                         address: HeadendAddress(configuration: ServeConfiguration()), logger: testLogger)
            let served = Set(router.routes.filter { $0.method != .head }.map { "\($0.method) \($0.path)" })
            #expect(documented == served, "documented only: \(documented.subtracting(served).sorted()); served only: \(served.subtracting(documented).sorted())")
        }
    }
}
