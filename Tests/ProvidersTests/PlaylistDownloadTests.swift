import Foundation
import LoopbackStreams
@testable import Providers
import Synchronization
import Testing

/// A lineup URL read from a real HTTP server on loopback: kept with its validators, asked again
/// with `If-None-Match`, and the kept copy played when the provider is down or answers junk.
@Suite struct PlaylistDownloadTests {
    /// What the provider answers next, and what it was asked.
    final class Provider: Sendable {
        enum Answer: Sendable { case playlist(String, etag: String), html, status(Int), reset, silence }
        let answer = Mutex(Answer.status(500))
        let asked = Mutex<[[String: String]]>([])

        /// A real HTTP server on loopback that answers as `answer` says (with `ETag` and `304`).
        func serve() throws -> LoopbackHTTPServer {
            try LoopbackHTTPServer { connection in
                self.asked.withLock { $0.append(connection.headers) }
                switch self.answer.withLock({ $0 }) {
                case .playlist(let text, let etag):
                    if connection.headers["if-none-match"] == etag {
                        connection.sendHead(status: 304, reason: "Not Modified", contentType: "audio/x-mpegurl", length: 0, headers: [("ETag", etag)])
                    } else {
                        connection.sendHead(contentType: "audio/x-mpegurl", length: text.utf8.count, headers: [("ETag", etag)])
                        connection.send(Array(text.utf8)[...])
                    }
                case .html:
                    let page = "<!DOCTYPE html><html><body>Please log in</body></html>"
                    connection.sendHead(contentType: "text/html", length: page.utf8.count)
                    connection.send(Array(page.utf8)[...])
                case .status(let code):
                    connection.sendHead(status: code, reason: "Nope", contentType: "text/plain", length: 0)
                case .reset:
                    connection.reset()
                case .silence:
                    Thread.sleep(forTimeInterval: 3)
                }
            }
        }
    }

    static func playlist(_ names: [String]) -> String {
        "#EXTM3U\n" + names.enumerated().map { "#EXTINF:-1 tvg-chno=\"\($0 + 1)\",\($1)\nudp://@239.0.0.\($0 + 1):1234\n" }.joined()
    }

    @Test func aLineupURLIsKeptAskedConditionallyAndPlayedFromTheCopyWhenDown() async throws {
        let provider = Provider()
        let server = try provider.serve()
        defer { server.stop() }
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-playlist-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let url = try #require(URL(string: server.url("/get.php?username=viewer&password=s3cret&type=m3u_plus")))
        let download = PlaylistDownload(url: url, stateDirectory: state)

        // Down, nothing kept: a message naming the URL without its password.
        await #expect {
            _ = try await download.read()
        } throws: { error in
            let text = "\(error)"
            return text.contains("HTTP 500") && text.contains("/get.php?…") && !text.contains("s3cret")
        }

        let first = Self.playlist(["One", "Two", "Three"])
        provider.answer.withLock { $0 = .playlist(first, etag: "\"v1\"") }
        let read = try await download.read()
        #expect(read.origin == .downloaded && read.data == Data(first.utf8))
        let keptPath = try #require(download.keptPath)
        #expect(FileManager.default.fileExists(atPath: keptPath) && !keptPath.contains("s3cret"))
        let mode = try FileManager.default.attributesOfItem(atPath: keptPath)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600, "the copy may hold the account's credentials")

        // Asked again with its ETag: 304, the kept copy.
        let again = try await download.read()
        #expect(again.origin == .unchanged && again.data == Data(first.utf8))
        #expect(provider.asked.withLock { $0.last?["if-none-match"] } == "\"v1\"")

        // A login page, a playlist that lost every channel, an error, a reset: the kept copy, and why.
        for (answer, reason) in [(Provider.Answer.html, "HTML page"), (.playlist("#EXTM3U\n", etag: "\"v2\""), "no channels"),
                                 (.status(503), "HTTP 503"), (.reset, "reset")] {
            provider.answer.withLock { $0 = answer }
            let fallback = try await download.read()
            #expect(fallback.data == Data(first.utf8), "\(answer)")
            guard case .kept(let why) = fallback.origin else { Issue.record("\(answer) was taken: \(fallback.origin)"); continue }
            #expect(why.contains(reason) && !why.contains("s3cret"), "\(answer): \(why)")
        }

        // A provider that does not answer holds the start up no longer than the kept copy's deadline.
        provider.answer.withLock { $0 = .silence }
        var impatient = download
        impatient.deadlineWithKeptCopy = 1
        let asked = ContinuousClock.now
        let silent = try await impatient.read()
        #expect(silent.data == Data(first.utf8) && ContinuousClock.now - asked < .seconds(2.5), "\(silent.origin)")
        guard case .kept(let why) = silent.origin, why.contains("no answer within 1 s") else {
            Issue.record("a silent provider: \(silent.origin)")
            return
        }

        // A real change is taken and kept.
        let second = Self.playlist(["One", "Two"])
        provider.answer.withLock { $0 = .playlist(second, etag: "\"v3\"") }
        #expect(try await download.read().origin == .downloaded)
        provider.answer.withLock { $0 = .status(500) }
        #expect(try await download.read().data == Data(second.utf8))
    }

    @Test func aPlaylistPastTheLimitIsStopped() async throws {
        let server = try LoopbackHTTPServer { connection in
            connection.sendHead(contentType: "audio/x-mpegurl")
            let chunk = Array(String(repeating: "#EXTINF:-1,x\nudp://@239.0.0.1:1\n", count: 1000).utf8)[...]
            while connection.send(chunk) {}
        }
        defer { server.stop() }
        var download = PlaylistDownload(url: try #require(URL(string: server.url("/huge.m3u"))), stateDirectory: nil)
        download.limit = 1 << 20
        await #expect {
            _ = try await download.read()
        } throws: { error in
            "\(error)".contains("more than the limit of 1 MB")
        }
    }
}
