import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import Lineup

/// A loopback server that accepts every connection and never answers a byte.
private func mutedServer() throws -> PythonServer {
    try PythonServer(script: """
        import socket, threading, time
        s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", 0)); s.listen(512)
        print(s.getsockname()[1], flush=True)
        held = []
        while True:
            c, _ = s.accept(); held.append(c)
        """)
}

/// A loopback server that answers every request with a small body.
private func answeringServer() throws -> PythonServer {
    try PythonServer(script: """
        import http.server, socketserver
        class H(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200); self.send_header("Content-Length", "2"); self.end_headers()
                self.wfile.write(b"ok")
            def log_message(self, *a): pass
        class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True
        srv = S(("127.0.0.1", 0), H)
        print(srv.server_address[1], flush=True)
        srv.serve_forever()
        """)
}

/// The transfer that replaced `URLSession.data(for:)`: a deadline or a cancelled caller racing
/// the session's own failure once hung both threads for good (a CI run stuck for 15 minutes).
@Suite(.timeLimit(.minutes(2)))
struct HTTPTransferTests {
    /// Deadlines against a server that never answers: every call is answered with a timeout and
    /// none hangs.
    @Test func aThousandDeadlinesAgainstASilentServerAllEnd() async throws {
        let server = try mutedServer()
        defer { server.stop() }
        let request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(server.port)/logo.png")))
        var timedOut = 0
        for _ in 0..<20 {
            timedOut += await withTaskGroup(of: Int.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        do {
                            _ = try await HTTPTransfer.data(for: request, deadline: 0.05)
                            return 0
                        } catch let error as URLError where error.code == .timedOut {
                            return 1
                        } catch {
                            return 0
                        }
                    }
                }
                return await group.reduce(0, +)
            }
        }
        #expect(timedOut == 1000)
    }

    /// Callers cancelled at every moment of a transfer, the deadline due at the same moment:
    /// each is answered once (cancelled or timed out), and nothing hangs.
    @Test func cancelledCallersAreAnsweredAtOnce() async throws {
        let server = try mutedServer()
        defer { server.stop() }
        let request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(server.port)/logo.png")))
        for round in 0..<500 {
            let call = Task { try await HTTPTransfer.data(for: request, deadline: 0.05) }
            try await Task.sleep(for: .microseconds((round % 25) * 2_000))
            call.cancel()
            await #expect(throws: (any Error).self) { _ = try await call.value }
        }
    }

    @Test func anAnswerBeforeTheDeadlineIsTheResponse() async throws {
        let server = try answeringServer()
        defer { server.stop() }
        let request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(server.port)/x")))
        for _ in 0..<20 {
            let (data, response) = try await HTTPTransfer.data(for: request, deadline: 5)
            #expect(String(decoding: data, as: UTF8.self) == "ok")
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
        }
    }

    @Test func aRequestTimeoutNearTheDeadlineIsMovedPastItAndAShortIdleLimitIsKept() throws {
        let url = try #require(URL(string: "http://127.0.0.1:9/x"))
        #expect(HTTPTransfer.clearOfDeadline(URLRequest(url: url, timeoutInterval: 10), 10).timeoutInterval == 10 + HTTPTransfer.sessionGrace)
        #expect(HTTPTransfer.clearOfDeadline(URLRequest(url: url, timeoutInterval: 60), 10).timeoutInterval == 10 + HTTPTransfer.sessionGrace)
        #expect(HTTPTransfer.clearOfDeadline(URLRequest(url: url, timeoutInterval: 60), 600).timeoutInterval == 60)
    }

    /// A URL's user-info becomes Basic credentials (the URL loses it), which no other server gets.
    @Test func userInfoIsSentAsBasicCredentialsToItsServerOnly() throws {
        let url = try #require(URL(string: "http://viewer:pa55%2Bw%2Frd@tvh.lan:9981/xmltv/channels"))
        let request = HTTPTransfer.authorizingFromUserInfo(URLRequest(url: url))
        #expect(request.url?.absoluteString == "http://tvh.lan:9981/xmltv/channels")
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Basic " + Data("viewer:pa55+w/rd".utf8).base64EncodedString())
        let plain = try #require(URL(string: "http://tvh.lan/xmltv"))
        #expect(HTTPTransfer.authorizingFromUserInfo(URLRequest(url: plain)).value(forHTTPHeaderField: "Authorization") == nil)
        let same = try #require(URL(string: "http://TVH.lan:80/other"))
        let other = try #require(URL(string: "https://tvh.lan/xmltv"))
        #expect(HTTPTransfer.sameOrigin(plain, same) && !HTTPTransfer.sameOrigin(plain, other))
    }

    @Test func aCallerCancelledBeforeItBeganGetsCancellation() async throws {
        let request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:9/never")))
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await HTTPTransfer.data(for: request, deadline: 5)
        }
        await #expect(throws: CancellationError.self) { _ = try await call.value }
    }
}

/// `HTTPTransfer.download`: the body streamed into a file of the caller's, the same deadline.
/// (A bounded download's own limits and leftovers: `GuideFailureTests`.)
@Suite(.timeLimit(.minutes(1)))
struct HTTPTransferDownloadTests {
    func directory() throws -> String {
        let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("transfer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func theBodyLandsInAFileInTheDirectoryGiven() async throws {
        let server = try answeringServer()
        defer { server.stop() }
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(server.port)/x")))
        let (path, response) = try await HTTPTransfer.download(for: request, deadline: 5, into: dir, limit: 1 << 20)
        #expect((path as NSString).deletingLastPathComponent == dir)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "ok")
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
    }

    @Test func aSilentServerTimesOutAndLeavesNoFile() async throws {
        let server = try mutedServer()
        defer { server.stop() }
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(server.port)/guide.xml")))
        for _ in 0..<20 {
            await #expect(throws: URLError.self) { _ = try await HTTPTransfer.download(for: request, deadline: 0.05, into: dir, limit: 1 << 20) }
        }
        let call = Task { try await HTTPTransfer.download(for: request, deadline: 5, into: dir, limit: 1 << 20) }
        try await Task.sleep(for: .milliseconds(100))
        call.cancel()
        await #expect(throws: CancellationError.self) { _ = try await call.value }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }
}
