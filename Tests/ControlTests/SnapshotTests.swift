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

    /// Snapshots that hold their thread (as encoding a 7680-wide PNG did, for seconds) must not
    /// hold up `/status`. Four snapshots block until the test lets them go; `/status` must answer
    /// before that. On the cooperative pool the first two would hold both of its threads and
    /// `/status` could not answer until they were let go. The clients run on threads of their
    /// own, so only the server's threads are tested, whatever the load.
    @Test func heldSnapshotsDoNotStallOtherRequests() async throws {
        let gate = ThreadGate()
        let player = FakePlayer(snapshotGate: gate)
        try await SameOriginTests.live(player) { port in
            let (snapshots, statuses) = try await RawHTTPClient.blocking { () throws -> ([Int], [Int]) in
                let snapshots = StatusList(), statuses = StatusList()
                for _ in 0..<4 {
                    Thread {
                        snapshots.append((try? RawHTTPClient.exchangeBlocking(port: port, "GET /api/v1/snapshot.png?width=7680 HTTP/1.1\r\nHost: 127.0.0.1"))?.status ?? 0)
                    }.start()
                }
                while player.snapshotRequests.isEmpty { Thread.sleep(forTimeInterval: 0.01) }
                Thread {
                    for _ in 0..<3 {
                        let answer = try? RawHTTPClient.exchangeBlocking(port: port, "GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1")
                        // 200 while the snapshots are held; -1 when it took their release.
                        statuses.append(gate.isOpen ? -1 : answer?.status ?? 0)
                    }
                }.start()
                let deadline = Date().addingTimeInterval(10)
                while statuses.values.count < 3 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
                gate.open()
                while statuses.values.count < 3 || snapshots.values.count < 4 { Thread.sleep(forTimeInterval: 0.01) }
                return (snapshots.values, statuses.values)
            }
            #expect(statuses == [200, 200, 200], "/status answered only once the snapshots were let go: \(statuses)")
            #expect(snapshots == [200, 200, 200, 200])
        }
        #expect(player.snapshotRequests.count == 4)
        #expect(player.snapshotsOnStillImageThread == [true, true, true, true])
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
