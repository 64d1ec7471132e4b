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
    /// hold up `/status`: it answers while they are still being made, one after the other.
    @Test func bigSnapshotsDoNotStallOtherRequests() async throws {
        let player = FakePlayer(snapshotBlocks: .milliseconds(1200))
        try await SameOriginTests.live(player) { port in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let answer = try await RawHTTPClient.exchange(port: port, "GET /api/v1/snapshot.png?width=7680 HTTP/1.1\r\nHost: 127.0.0.1")
                        #expect(answer.status == 200)
                    }
                }
                // Let the snapshots start, then time /status.
                try await Task.sleep(for: .milliseconds(300))
                var times: [Duration] = []
                for _ in 0..<5 {
                    let started = ContinuousClock.now
                    let status = try await RawHTTPClient.exchange(port: port, "GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1")
                    times.append(ContinuousClock.now - started)
                    #expect(status.status == 200)
                }
                #expect(times.sorted()[2] < .milliseconds(400), "median /status while snapshots encode: \(times)")
                try await group.waitForAll()
            }
        }
        #expect(player.snapshotRequests.count == 4)
    }
}
