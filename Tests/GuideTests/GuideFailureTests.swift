import Foundation
import Lineup
import Testing
import TestSupport
@testable import Guide

@Suite struct GuideFailureTests {
    let channels: [(Int, String, String?)] = [(1, "Newsroom", "news.example")]
    let evening = utc("2026-11-22T19:30:00Z")

    /// A guide in `dir` whose only source is `source`, already holding small.xml.
    func guideHoldingSmall(_ dir: TemporaryDirectory, then source: String) async throws -> Guide {
        let first = try Guide(stateDirectory: dir.path, lineup: lineup(channels, guides: [Fixtures.path("small.xml")]))
        try await first.refresh()
        return try Guide(stateDirectory: dir.path, lineup: lineup(channels, guides: [source]))
    }

    @Test func brokenXMLNamesTheLineAndKeepsTheOldGuide() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let guide = try await guideHoldingSmall(dir, then: Fixtures.path("broken.xml"))
        let error = await #expect(throws: GuideError.self) { try await guide.refresh() }
        #expect(error?.code == .badXML)
        #expect(error?.line == 9)
        #expect(error?.description.hasPrefix(Fixtures.path("broken.xml") + ":9: the XML is broken: ") == true)
        #expect(guide.status.lastError == error?.description)
        #expect(guide.nowNext(channelID: "newsroom", at: evening).now?.title == "Evening News")
        #expect(guide.nowNext(channelID: "newsroom", at: evening).next?.title == "Talk")   // small.xml's, not broken.xml's
    }

    @Test func notAGuide() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let html = dir.file("page.xml")
        try "<html><body>Not found</body></html>".write(toFile: html, atomically: true, encoding: .utf8)
        let guide = try Guide(stateDirectory: dir.path, lineup: lineup(channels, guides: [html]))
        let error = await #expect(throws: GuideError.self) { try await guide.refresh() }
        #expect(error?.description == "\(html):1: not an XMLTV guide: the document starts with <html>, not <tv>")

        let missing = try Guide(stateDirectory: dir.path, lineup: lineup(channels, guides: [dir.file("nope.xml")]))
        let notFound = await #expect(throws: GuideError.self) { try await missing.refresh() }
        #expect(notFound?.description == "\(dir.file("nope.xml")): cannot open the guide: No such file or directory")
    }

    @Test func gzipFileIsInflatedAsAStream() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let packed = dir.file("small.xml.gz")
        try gzip(Fixtures.path("small.xml"), to: packed)
        let guide = try Guide(stateDirectory: dir.path, lineup: lineup(channels, guides: [packed]))
        let summary = try await guide.refresh()
        #expect(summary.programmes > 0)
        #expect(guide.nowNext(channelID: "newsroom", at: evening).now?.title == "Evening News")
    }

    @Test func truncatedGzipKeepsTheOldGuide() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let packed = dir.file("small.xml.gz")
        try gzip(Fixtures.path("dst.xml"), to: packed)
        let data = try Data(contentsOf: URL(fileURLWithPath: packed))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: packed))
        let guide = try await guideHoldingSmall(dir, then: packed)
        let error = await #expect(throws: GuideError.self) { try await guide.refresh() }
        #expect(error?.code == .badCompression)
        #expect(error?.message.contains("ends early") == true)
        #expect(guide.nowNext(channelID: "newsroom", at: evening).now?.title == "Evening News")
    }

    @Test(.timeLimit(.minutes(1))) func gzipGuideOverHTTP() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let served = dir.file("www")
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        try gzip(Fixtures.path("small.xml"), to: (served as NSString).appendingPathComponent("guide.xml.gz"))
        let server = try LoopbackHTTPServer(serving: served)
        defer { server.stop() }

        let state = dir.file("state")
        let guide = try Guide(stateDirectory: state, lineup: lineup(channels, guides: [server.url("guide.xml.gz")]))
        let summary = try await guide.refresh()
        #expect(summary.channels == 3)
        #expect(guide.nowNext(channelID: "newsroom", at: evening).now?.title == "Evening News")
        // The download is not left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: state).filter { $0.hasSuffix(".tmp") }.isEmpty)

        // A URL that answers 404 keeps what is stored.
        let gone = try Guide(stateDirectory: state, lineup: lineup(channels, guides: [server.url("gone.xml")]))
        let error = await #expect(throws: GuideError.self) { try await gone.refresh() }
        #expect(error?.description == "\(server.url("gone.xml")): the server answered HTTP 404")
        #expect(gone.nowNext(channelID: "newsroom", at: evening).now?.title == "Evening News")
    }

    /// A guide URL's user-info (a Tvheadend server's `/xmltv/channels`) is sent as HTTP Basic
    /// credentials; wrong ones are refused, and the message masks the password.
    @Test(.timeLimit(.minutes(1))) func aGuideURLsCredentialsAreSentAsBasicAuthorization() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let served = dir.file("www")
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.path("small.xml"), toPath: (served as NSString).appendingPathComponent("channels"))
        let server = try LoopbackHTTPServer(serving: served, credentials: "viewer:pa55+w/rd")
        defer { server.stop() }

        let address = "127.0.0.1:\(server.port)/channels"
        let guide = try Guide(stateDirectory: dir.file("state"), lineup: lineup(channels, guides: ["http://viewer:pa55%2Bw%2Frd@\(address)"]))
        #expect(try await guide.refresh().channels == 3)
        let refused = try Guide(stateDirectory: dir.file("refused"), lineup: lineup(channels, guides: ["http://viewer:wrong-one@\(address)"]))
        let error = await #expect(throws: GuideError.self) { try await refused.refresh() }
        #expect(error?.description == "http://viewer:\(SourceText.mask)@\(address): the server answered HTTP 401")
    }

    /// A guide past the size limit is stopped: at once when the server announces its length, as
    /// soon as it passes the limit when it does not. Nothing is left behind, in the guide's
    /// directory or where the download was written first.
    @Test(.timeLimit(.minutes(1))) func aGuideOverTheSizeLimitIsStoppedAndLeavesNothing() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let served = dir.file("www")
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        try Data(count: 3 << 20).write(to: URL(fileURLWithPath: (served as NSString).appendingPathComponent("guide.xml")))
        let announcing = try LoopbackHTTPServer(serving: served)
        defer { announcing.stop() }
        // 3 MB without a Content-Length, then a pause (the limit is passed before it ends).
        let silent = try PythonServer(script: """
            import http.server, socketserver, time
            class H(http.server.BaseHTTPRequestHandler):
                protocol_version = "HTTP/1.0"
                def log_message(self, *a): pass
                def do_GET(self):
                    self.send_response(200); self.end_headers()
                    try:
                        for i in range(48): self.wfile.write(b'x' * 65536)
                        time.sleep(5)
                    except OSError: pass
            class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
                daemon_threads = True
            s = S(("127.0.0.1", 0), H)
            print(s.server_address[1], flush=True)
            s.serve_forever()
            """)
        defer { silent.stop() }
        let state = dir.file("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let destination = (state as NSString).appendingPathComponent("guide.xml")
        let temporary = Set((try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? [])

        let announced = try #require(URL(string: announcing.url("guide.xml")))
        let refused = await #expect(throws: GuideError.self) { try await GuideDownload.fetch(announced, to: destination, maximumSize: 1 << 20) }
        #expect(refused?.description == "\(announced.absoluteString): refused: the server announced 3 MB, more than the limit of 1 MB")

        let unannounced = try #require(URL(string: "http://127.0.0.1:\(silent.port)/guide.xml"))
        let started = Date()
        let stopped = await #expect(throws: GuideError.self) { try await GuideDownload.fetch(unannounced, to: destination, maximumSize: 1 << 20) }
        #expect(stopped?.description == "\(unannounced.absoluteString): refused: the server sent more than the limit of 1 MB; the transfer was stopped there")
        #expect(Date().timeIntervalSince(started) < 4, "stopped at the limit, not at the end of the body")

        #expect(try FileManager.default.contentsOfDirectory(atPath: state).isEmpty)
        // The session's own file of each stopped download is gone too (it may take a moment).
        // Only files that came while these downloads ran are looked at, and only those of the
        // limit's size or more (a stopped download's: other tests' downloads run side by side);
        // one that still grows is another test's download, not a stopped one.
        // FoundationNetworking names a download's file `<UUID>.tmp`, and removes none itself.
        let form = /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}\.tmp$/
        func size(_ name: String) -> Int? {
            (try? FileManager.default.attributesOfItem(atPath: (NSTemporaryDirectory() as NSString).appendingPathComponent(name))[.size] as? NSNumber)?.intValue
        }
        func sessionFiles() -> Set<String> {
            Set((try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? [])
                .filter { $0.wholeMatch(of: form) != nil && (size($0) ?? 0) >= 1 << 20 }
        }
        var leftBehind = sessionFiles().subtracting(temporary)
        for _ in 0..<50 where !leftBehind.isEmpty {
            try await Task.sleep(for: .milliseconds(100))
            leftBehind = leftBehind.intersection(sessionFiles())
        }
        let sizes = leftBehind.map { ($0, size($0)) }
        try await Task.sleep(for: .milliseconds(500))
        leftBehind = Set(sizes.filter { name, before in before != nil && size(name) == before }.map(\.0))
        #expect(leftBehind.isEmpty, "a stopped download's file is left in \(NSTemporaryDirectory()): \(leftBehind)")
    }

    /// A guide URL that redirects (302, then 301) is followed hop by hop, each hop checked by the
    /// box, never by the session; the redirects' bodies are dropped and nothing is left behind.
    @Test(.timeLimit(.minutes(1))) func aGuideURLThatRedirectsIsFollowed() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let server = try PythonServer(script: """
            import http.server
            guide = open(\(pythonString(Fixtures.path("small.xml"))), "rb").read()
            class H(http.server.BaseHTTPRequestHandler):
                def log_message(self, *a): pass
                def do_GET(self):
                    hops = {"/moved.xml": (302, "/again.xml"), "/again.xml": (301, "/guide.xml")}
                    if self.path in hops:
                        code, to = hops[self.path]
                        self.send_response(code); self.send_header("Location", to)
                        self.send_header("Content-Length", "9"); self.end_headers(); self.wfile.write(b"moved on.")
                    else:
                        self.send_response(200); self.send_header("Content-Length", str(len(guide))); self.end_headers(); self.wfile.write(guide)
            s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
            print(s.server_address[1], flush=True)
            s.serve_forever()
            """)
        defer { server.stop() }
        let state = dir.file("state")
        let moved = try Guide(stateDirectory: state, lineup: lineup(channels, guides: ["http://127.0.0.1:\(server.port)/moved.xml"]))
        #expect(try await moved.refresh().channels == 3)
        #expect(moved.nowNext(channelID: "newsroom", at: evening).now?.title == "Evening News")
        #expect(try FileManager.default.contentsOfDirectory(atPath: state).filter { $0.hasSuffix(".tmp") }.isEmpty)
    }

    /// A guide URL whose server answers and then trickles a byte a second (or stalls after the
    /// headers): the download is given up at the deadline, the message names the URL, the old
    /// guide stays and no partial download is left behind.
    @Test(.timeLimit(.minutes(1)), arguments: [1, 0]) func aStalledGuideURLTimesOutAndKeepsTheOldGuide(bytesPerSecond: Int) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let server = try LoopbackHTTPServer(tricklingBytesPerSecond: bytesPerSecond)
        defer { server.stop() }
        let first = try Guide(stateDirectory: dir.path, lineup: lineup(channels, guides: [Fixtures.path("small.xml")]))
        try await first.refresh()
        let url = server.url("guide.xml")
        let guide = try Guide(stateDirectory: dir.path, lineup: lineup(channels, guides: [url]), downloadDeadline: .seconds(2))
        let started = Date()
        let error = await #expect(throws: GuideError.self) { try await guide.refresh() }
        #expect(Date().timeIntervalSince(started) < 30, "given up at the deadline, not the session's idle timeout")
        #expect(error?.code == .unreadable)
        #expect(error?.description == "\(url): no complete answer within 2 s (the server is stalled or too slow); the download was given up")
        #expect(guide.status.lastError == error?.description)
        #expect(guide.nowNext(channelID: "newsroom", at: evening).now?.title == "Evening News", "the old guide is kept")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".tmp") }.isEmpty)
        // A refresh can run again (the first one let go of its claim).
        let again = await #expect(throws: GuideError.self) { try await guide.refresh() }
        #expect(again?.code == .unreadable)
    }

    /// A text of 12 MB (more than libxml2 would build as one text) is read as it streams by and
    /// cut at 8 KB like any other: the programme is imported, with its description's beginning.
    @Test func aTextOverTenMegabytesIsCutLikeAnyOther() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.file("huge.xml")
        let desc = "é" + String(repeating: "lorem ipsum ", count: 1_000_000)
        try "<?xml version=\"1.0\"?>\n<tv>\n<channel id=\"news.example\"/>\n<programme channel=\"news.example\" start=\"20261122190000 +0000\"><title>T</title>\n<desc>\(desc)</desc></programme>\n</tv>\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        let guide = try await guideHoldingSmall(dir, then: file)
        try await guide.refresh()
        let now = guide.nowNext(channelID: "newsroom", at: evening).now
        #expect(now?.title == "T")
        let description = now?.description ?? ""
        #expect(description.hasPrefix("élorem ipsum lorem"), "\(description.prefix(40))")
        #expect(description.hasSuffix("…"), "cut, and said to be")
        #expect(description.utf8.count <= XMLTVParser.textLimit + "…".utf8.count, "\(description.utf8.count) bytes kept")
    }

    @Test func oneRefreshAtATime() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let guide = try Guide(stateDirectory: dir.path, lineup: lineup(channels, guides: [Fixtures.path("small.xml")]))
        let codes: [GuideError.Code?] = await withTaskGroup(of: GuideError.Code?.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    do throws(GuideError) { try await guide.refresh(); return nil } catch { return error.code }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let busy = codes.filter { $0 == .busy }.count
        #expect(codes.allSatisfy { $0 == nil || $0 == .busy })
        #expect(busy <= 1)
        #expect(guide.nowNext(channelID: "newsroom", at: evening).now?.title == "Evening News")
    }

    /// Every prefix of a real guide either imports or fails with a message: never a crash.
    @Test func truncatedAndMangledInputNeverCrashes() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let text = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("small.xml")))
        let file = dir.file("cut.xml")
        let guide = try Guide(stateDirectory: dir.path, lineup: lineup(channels, guides: [file]))
        var failures = 0
        var generator = SplitMix(seed: 12)
        for round in 0..<60 {
            var bytes = [UInt8](text.prefix(round * text.count / 60))
            if round % 3 == 0, !bytes.isEmpty {
                for _ in 0..<5 { bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
            }
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            do { try await guide.refresh() } catch {
                failures += 1
                #expect(!error.description.isEmpty)
            }
        }
        #expect(failures > 50)
    }
}
