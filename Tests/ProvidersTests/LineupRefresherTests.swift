import Foundation
import Lineup
import LoopbackStreams
@testable import Providers
import Synchronization
import Testing

/// A lineup URL read again while the box plays, from a real HTTP server on loopback: what changed
/// is told, the kept copy follows, and a provider that is down or answers junk keeps the last
/// good lineup and says why.
@Suite struct LineupRefresherTests {
    typealias Provider = PlaylistDownloadTests.Provider

    static func playlist(_ channels: [(id: String, number: Int, name: String, url: String)]) -> String {
        "#EXTM3U\n" + channels.map { "#EXTINF:-1 tvg-id=\"\($0.id)\" tvg-chno=\"\($0.number)\",\($0.name)\n\($0.url)\n" }.joined()
    }

    @Test func aRefreshTellsWhatChangedKeepsTheCopyAndKeepsTheLastLineupWhenTheProviderFails() async throws {
        let provider = Provider()
        let server = try provider.serve()
        defer { server.stop() }
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-refresh-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let url = server.url("/get.php?username=viewer&password=s3cret&type=m3u_plus")
        let log = LogLines()
        let refresher = LineupRefresher(argument: url, stateDirectory: state, logger: log.logger)

        let first = Self.playlist([("news.ex", 1, "News", "udp://@239.0.0.1:1234"), ("film.ex", 2, "Film", "udp://@239.0.0.2:1234"),
                                   ("old.ex", 3, "Old", "udp://@239.0.0.3:1234")])
        provider.answer.withLock { $0 = .playlist(first, etag: "\"v1\"") }
        let start = try #require(try await SourcedLineup.report(for: url, stateDirectory: state, logger: log.logger).lineup)
        #expect(start.channels.map(\.name) == ["News", "Film", "Old"])

        // The same playlist (the server answers 304 to its ETag): no change.
        guard case .read(_, let none) = await refresher.refresh(against: start) else { Issue.record("not read"); return }
        #expect(none.isEmpty && none.summary == "no change")

        // One channel added, one removed, one renamed and renumbered, one with a new address.
        let second = Self.playlist([("news.ex", 1, "News HD", "udp://@239.0.0.11:1234"), ("film.ex", 12, "Film", "udp://@239.0.0.2:1234"),
                                    ("sport.ex", 4, "Sport", "udp://@239.0.0.4:1234")])
        provider.answer.withLock { $0 = .playlist(second, etag: "\"v2\"") }
        guard case .read(let refreshed, let change) = await refresher.refresh(against: start) else { Issue.record("not read"); return }
        #expect(refreshed.channels.map(\.name) == ["News HD", "Sport", "Film"])
        #expect(change.added.map(\.id) == ["sport.ex"])
        #expect(change.removed.map(\.id) == ["old.ex"])
        #expect(change.renumbered.map(\.after.id) == ["film.ex"])
        #expect(change.renamed.map(\.after.id) == ["news.ex"])
        #expect(change.readdressed.map(\.after.id) == ["news.ex"])
        #expect(change.summary == "1 channel added (4 Sport), 1 channel removed (3 Old), 1 channel renumbered (2 Film → 12), 1 channel renamed (1 News → News HD), 1 channel with new stream addresses")
        // The kept copy is the new one: a start without network plays it.
        provider.answer.withLock { $0 = .status(503) }
        let offline = try await SourcedLineup.report(for: url, stateDirectory: state, logger: log.logger)
        #expect(offline.lineup?.channels.map(\.name) == ["News HD", "Sport", "Film"])

        // A login page, an error: the last good lineup stays, and why is said (no password).
        for (answer, reason) in [(Provider.Answer.html, "HTML page"), (.status(503), "HTTP 503")] {
            provider.answer.withLock { $0 = answer }
            guard case .failed(let why) = await refresher.refresh(against: refreshed) else { Issue.record("\(answer) was taken"); continue }
            #expect(why.contains(reason) && !why.contains("s3cret"), "\(answer): \(why)")
        }
        #expect(!log.mention(anyOf: ["s3cret"]))
    }

    /// `keepFresh` reads again at its interval and tells each change once, and a failed reading
    /// in a log line that names the source without its password.
    @Test(.timeLimit(.minutes(1))) func keepFreshTellsEachChangeOnce() async throws {
        let provider = Provider()
        let server = try provider.serve()
        defer { server.stop() }
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-refresh-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let url = server.url("/get.php?username=viewer&password=s3cret")
        let log = LogLines()
        provider.answer.withLock { $0 = .playlist(Self.playlist([("news.ex", 1, "News", "udp://@239.0.0.1:1234")]), etag: "\"v1\"") }
        let start = try #require(try await SourcedLineup.report(for: url, stateDirectory: state, logger: log.logger).lineup)
        provider.answer.withLock { $0 = .playlist(Self.playlist([("news.ex", 1, "News", "udp://@239.0.0.1:1234"), ("sport.ex", 2, "Sport", "udp://@239.0.0.2:1234")]), etag: "\"v2\"") }
        let told = Mutex<[String]>([])
        let refresher = LineupRefresher(argument: url, stateDirectory: state, logger: log.logger)
        let keeping = Task { await refresher.keepFresh(from: start, every: .milliseconds(200)) { _, change in told.withLock { $0.append(change.summary) } } }
        defer { keeping.cancel() }
        while provider.asked.withLock({ $0.count }) < 5 { try await Task.sleep(for: .milliseconds(50)) }
        #expect(told.withLock { $0 } == ["1 channel added (2 Sport)"], "told once, not at each reading")
        provider.answer.withLock { $0 = .status(500) }
        let asked = provider.asked.withLock { $0.count }
        while provider.asked.withLock({ $0.count }) < asked + 2 { try await Task.sleep(for: .milliseconds(50)) }
        keeping.cancel()
        let lines = log.all.withLock { $0 }
        #expect(lines.contains { $0.contains("read again: 1 channel added (2 Sport)") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("warning") && $0.contains("reading it again failed") && $0.contains("/get.php?…") }, "\(lines)")
        #expect(!log.mention(anyOf: ["s3cret"]))
    }
}
