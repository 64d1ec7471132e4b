import Foundation
import Headend
import Lineup
import Serve
import Testing

extension ServeTests {
    /// A thousand clients at once: the limit's worth are served, the rest told 503, nothing
    /// crashes, and the head-end serves again once they are gone.
    @Suite struct ClientLimit {
        @Test func aThousandClientsAtOnceGet200UpToTheLimitAnd503Beyond() async throws {
            _ = ProcessResources.raiseFileLimit()
            let limit = 40
            let harness = try await ServeHarness(channels: [makeChannel("test://color/ffff00?size=160x90&fps=30&gop=15", number: 1)]) {
                $0.streams.maxClients = limit
            }
            let source = harness.headend.sources[0]
            _ = await eventually(within: 10) { source.state == .warm && source.cache.hasKeyframe }
            let port = harness.port
            // One thread connects all of them, then reads each answer's status line; those
            // served hold their places until all have answered.
            let statuses: [Int?] = await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    let clients = (0..<1000).map { _ in try? RawHTTPClient(port: port, path: "/stream/1.ts") }
                    let statuses = clients.map { $0?.status(timeout: 60) }
                    for client in clients { client?.close() }
                    continuation.resume(returning: statuses)
                }
            }
            let served = statuses.filter { $0 == 200 }.count
            let refused = statuses.filter { $0 == 503 }.count
            #expect(served == limit, "exactly \(limit) served at once (none leaves before all have answered), got \(served)")
            #expect(served + refused >= 990, "everyone got an answer: \(served) 200, \(refused) 503, \(statuses.count - served - refused) other")
            let emptied = await eventually(within: 15) { await harness.server.clientCount == 0 }
            #expect(emptied, "every place is given back")
            let again = try await runTool("curl", ["-s", "-o", "/dev/null", "-m", "3", "-w", "%{http_code}", harness.url("/stream/1.ts")], timeout: 10)
            #expect(again.text == "200", "and the next client is served: \(again.text)")
            await harness.stop()
        }
    }
}
