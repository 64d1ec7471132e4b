import Control
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Snapshots: never wider than the output, and encoded on the still-image thread so that big
/// pictures never hold Swift's cooperative pool (two threads here) that every request needs.
@Suite("Control API: snapshots")
struct SnapshotTests {
    @Test func widthIsCappedAtTheOutputWidth() async throws {
        let player = FakePlayer() // output 1280x720
        try await withControlAPI(player) { client in
            for width in [7680, 1281, 1280, 640, 16] {
                let response = try await client.execute(uri: "/api/v1/snapshot.png?width=\(width)", method: .get)
                #expect(response.status == .ok)
            }
            _ = try await client.execute(uri: "/api/v1/snapshot.png", method: .get)
        }
        #expect(player.snapshotRequests == [1280, 1280, 1280, 640, 16, nil])
    }

    @Test func encodingRunsOnTheStillImageThread() async throws {
        let player = FakePlayer()
        try await withControlAPI(player) { client in
            for _ in 0..<3 { _ = try await client.execute(uri: "/api/v1/snapshot.png?width=320", method: .get) }
        }
        #expect(player.snapshotsOnStillImageThread == [true, true, true])
    }

    /// Four snapshots that each hold their thread for 1.2 s (as a 7680-wide PNG did) must not
    /// hold up `/status`: every one answers at once while they are still being made, one after
    /// the other (4.8 s in all). The
    /// clients run on threads of their own, so only the server's threads are measured.
    @Test func bigSnapshotsDoNotStallOtherRequests() async throws {
        let player = FakePlayer(snapshotBlocks: .milliseconds(1200))
        try await SameOriginTests.live(player) { port in
            let (snapshots, times) = try await RawHTTPClient.blocking { () throws -> ([Int], [Duration]) in
                let statuses = StatusList()
                let clients = (0..<4).map { _ in
                    Thread {
                        statuses.append((try? RawHTTPClient.exchangeBlocking(port: port, "GET /api/v1/snapshot.png?width=7680 HTTP/1.1\r\nHost: 127.0.0.1"))?.status ?? 0)
                    }
                }
                clients.forEach { $0.start() }
                Thread.sleep(forTimeInterval: 0.3)
                var times: [Duration] = []
                for _ in 0..<5 {
                    let started = ContinuousClock.now
                    let status = try RawHTTPClient.exchangeBlocking(port: port, "GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1")
                    times.append(status.status == 200 ? ContinuousClock.now - started : .seconds(99))
                }
                while statuses.values.count < 4 { Thread.sleep(forTimeInterval: 0.05) }
                return (statuses.values, times)
            }
            #expect(snapshots == [200, 200, 200, 200])
            // Without the still-image thread the first /status waited for the pool: 2.1 s.
            #expect(times.max()! < .milliseconds(600), "/status while snapshots encode: \(times)")
        }
        #expect(player.snapshotRequests.count == 4)
    }
}

/// Statuses collected from client threads.
final class StatusList: @unchecked Sendable {
    // Sendable: `list` is only touched under `lock`.
    private let lock = NSLock()
    private var list: [Int] = []
    func append(_ status: Int) { lock.withLock { list.append(status) } }
    var values: [Int] { lock.withLock { list } }
}
