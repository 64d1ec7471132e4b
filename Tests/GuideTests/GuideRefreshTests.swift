import Foundation
import Lineup
import Testing
@testable import Guide

/// `keepFresh()` (what `GuideService` runs while the box plays): a guide file that changes is
/// read again after the `guide-refresh` interval, with no request.
@Suite struct GuideRefreshTests {
    let evening = utc("2026-11-22T19:30:00Z")

    func write(_ title: String, to path: String) throws {
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <tv>
              <channel id="news.example"><display-name>Newsroom</display-name></channel>
              <programme channel="news.example" start="20261122190000 +0000" stop="20261122200000 +0000"><title>\(title)</title></programme>
            </tv>
            """.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Polls `condition` every 50 ms for up to `seconds`.
    func eventually(_ seconds: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return condition()
    }

    @Test func aChangedGuideFileIsReadAgainAfterTheInterval() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.file("guide.xml")
        try write("Early Edition", to: file)
        let lineup = Lineup(channels: [Channel(id: "newsroom", number: ChannelNumber(1), name: "Newsroom", sources: ["test://snow"], guideID: "news.example")],
                            guideURLs: [file], guideRefresh: .seconds(2))
        let guide = try Guide(stateDirectory: dir.path, lineup: lineup)
        let refreshes = Counter()
        guide.onRefresh { refreshes.add() }
        let fresh = Task { await guide.keepFresh() }
        defer { fresh.cancel() }

        // Nothing stored: imported at once.
        #expect(await eventually(30) { guide.nowNext(channelID: "newsroom", at: evening).now?.title == "Early Edition" },
                "imported at the start; status: \(guide.status), refreshes \(refreshes.value)")

        try write("Late Edition", to: file)
        #expect(await eventually(30) { guide.nowNext(channelID: "newsroom", at: evening).now?.title == "Late Edition" },
                "the changed file is read again within the interval; status: \(guide.status)")
        #expect(await eventually(5) { refreshes.value >= 2 })
        #expect(guide.status.lastError == nil)

        // Cancelled (graceful shutdown), it stops: no refresh after.
        fresh.cancel()
        _ = await fresh.value
        let stopped = refreshes.value
        try write("Never Read", to: file)
        try await Task.sleep(for: .seconds(3))
        #expect(refreshes.value == stopped)
        #expect(guide.nowNext(channelID: "newsroom", at: evening).now?.title == "Late Edition")
    }

    @Test func aStoredGuideStillFreshIsNotReadAgainUntilItsTimeComes() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.file("guide.xml")
        try write("Early Edition", to: file)
        let lineup = Lineup(channels: [Channel(id: "newsroom", number: ChannelNumber(1), name: "Newsroom", sources: ["test://snow"], guideID: "news.example")],
                            guideURLs: [file], guideRefresh: .seconds(3600))
        try await Guide(stateDirectory: dir.path, lineup: lineup).refresh()
        try write("Late Edition", to: file)
        // A restart with an hour-old-at-most guide: keepFresh answers from the store and waits.
        let guide = try Guide(stateDirectory: dir.path, lineup: lineup)
        #expect(!guide.needsRefresh())
        #expect(guide.needsRefresh(now: Date().addingTimeInterval(3601)))
        let refreshes = Counter()
        guide.onRefresh { refreshes.add() }
        let fresh = Task { await guide.keepFresh() }
        try await Task.sleep(for: .seconds(2))
        fresh.cancel()
        _ = await fresh.value
        #expect(refreshes.value == 0)
        #expect(guide.nowNext(channelID: "newsroom", at: evening).now?.title == "Early Edition")
    }
}

/// A count shared with a refresh observer.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
