import Foundation
import TestSupport
import Testing
@testable import Lineup

/// `python3 -m http.server` on a free loopback port, serving one directory.
private final class LoopbackHTTPServer {
    let process = Process()
    let port: Int
    /// The server's request log (stderr), one line per request.
    let logPath: String

    init(serving directory: String, logPath: String) throws {
        self.logPath = logPath
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", directory]
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: logPath)
        try process.run()
        port = try Self.readPort(from: output.fileHandleForReading)
    }

    /// Reads `Serving HTTP on 127.0.0.1 port N ...` from the server's stdout.
    private static func readPort(from handle: FileHandle) throws -> Int {
        var text = ""
        while true {
            let chunk = handle.availableData
            guard !chunk.isEmpty else { throw ServerError(message: "http.server exited early: \(text)") }
            text += String(decoding: chunk, as: UTF8.self)
            if let range = text.range(of: " port "),
               let port = Int(text[range.upperBound...].prefix { $0.isNumber }) {
                return port
            }
        }
    }

    var requestCount: Int {
        let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return log.components(separatedBy: "\"GET ").count - 1
    }

    /// SIGKILL: children of the test process inherit its blocked SIGTERM.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    struct ServerError: Error { var message: String }
}

/// These servers are on loopback, which a logo may name only when the box's owner allows it.
private let loopbackAllowed = LogoSourcePolicy(allowedHosts: ["127.0.0.1"])

/// A loopback socket that accepts connections but never answers.
private func silentServer() throws -> PythonServer {
    try PythonServer(script: """
        import socket, time
        s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
        print(s.getsockname()[1], flush=True)
        time.sleep(30)
        """)
}

@Suite(.serialized) struct LogoCacheTests {
    @Test func downloadsOnceAndServesFromCacheAfterTheServerIsGone() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let image = LogoImageTests.onePixelPNG
        try FileManager.default.createDirectory(atPath: directory.file("www"), withIntermediateDirectories: true)
        try image.write(to: URL(fileURLWithPath: directory.file("www/logo.png")))
        let server = try LoopbackHTTPServer(serving: directory.file("www"), logPath: directory.file("requests.log"))
        defer { server.stop() }

        let cache = LogoCache(directory: directory.file("cache"), timeout: 5, policy: loopbackAllowed)
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/logo.png"))
        // Several requests at once share one download.
        let paths = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<4 { group.addTask { try await cache.localPath(for: .remote(url)) } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(Set(paths) == [cache.cachePath(for: url)])
        #expect(paths[0].hasSuffix(".png"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: paths[0])) == image)
        #expect(server.requestCount == 1)
        // Nothing but the logo is left in the cache directory.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("cache")) == [(paths[0] as NSString).lastPathComponent])

        server.stop()
        let again = try await cache.localPath(for: .remote(url))
        #expect(again == paths[0])
        // A new cache on the same directory finds the file too.
        let fresh = LogoCache(directory: directory.file("cache"), timeout: 5, policy: loopbackAllowed)
        #expect(try await fresh.localPath(for: .remote(url)) == paths[0])
    }

    @Test func httpErrorNamesTheURL() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try LoopbackHTTPServer(serving: directory.path, logPath: directory.file("requests.log"))
        defer { server.stop() }
        let cache = LogoCache(directory: directory.file("cache"), timeout: 5, policy: loopbackAllowed)
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/missing.png"))
        do {
            _ = try await cache.localPath(for: .remote(url))
            Issue.record("fetched a missing logo")
        } catch {
            #expect(error.description == "logo \(url.absoluteString): the server answered HTTP 404")
            #expect(error.code == .downloadFailed)
        }
        #expect(!FileManager.default.fileExists(atPath: cache.cachePath(for: url)))
    }

    @Test func slowServerTimesOut() async throws {
        let server = try silentServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = LogoCache(directory: directory.file("cache"), timeout: 1, policy: loopbackAllowed)
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/slow.png"))
        let start = Date()
        do {
            _ = try await cache.localPath(for: .remote(url))
            Issue.record("a silent server produced a logo")
        } catch {
            #expect(error.code == .timedOut)
            #expect(error.description.hasPrefix("logo \(url.absoluteString): "))
        }
        #expect(Date().timeIntervalSince(start) < 8)
    }

    @Test func refusedConnectionNamesTheURL() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try LoopbackHTTPServer(serving: directory.path, logPath: directory.file("requests.log"))
        let port = server.port
        server.stop()
        let cache = LogoCache(directory: directory.file("cache"), timeout: 5, policy: loopbackAllowed)
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/logo.png"))
        await #expect(throws: LogoCacheError.self) { try await cache.localPath(for: .remote(url)) }
    }

    @Test func localFiles() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write("logo.svg", "<svg/>")
        let cache = LogoCache(directory: directory.file("cache"))
        #expect(try await cache.localPath(for: .file(file)) == file)
        do {
            _ = try await cache.localPath(for: .file(directory.file("gone.svg")))
            Issue.record("found a missing file")
        } catch {
            #expect(error.description == "logo \(directory.file("gone.svg")): file not found")
            #expect(error.code == .missing)
        }
    }

    @Test func defaultDirectoryAndNames() throws {
        #expect(LogoCache.defaultDirectory(environment: ["XDG_CACHE_HOME": "/xdg", "HOME": "/home/u"]) == "/xdg/flipbox/logos")
        #expect(LogoCache.defaultDirectory(environment: ["HOME": "/home/u"]) == "/home/u/.cache/flipbox/logos")
        #expect(LogoCache.defaultDirectory(environment: ["XDG_CACHE_HOME": "relative", "HOME": "/home/u"]) == "/home/u/.cache/flipbox/logos")
        #expect(LogoCache.stableHash("") == "cbf29ce484222325")
        #expect(LogoCache.stableHash("a") == "af63dc4c8601ec8c")
        let cache = LogoCache(directory: "/c")
        let url = try #require(URL(string: "https://x.example/a/logo.JPG?v=2"))
        #expect(cache.cachePath(for: url) == "/c/\(LogoCache.stableHash(url.absoluteString)).jpg")
        #expect(cache.cachePath(for: try #require(URL(string: "https://x.example/logo"))).hasSuffix(".img"))
    }

    /// A FIFO would block the logo decoder for good: refused with a reason.
    @Test func fifoIsNotALogo() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fifo = directory.file("logo.png")
        #expect(mkfifo(fifo, 0o600) == 0)
        let cache = LogoCache(directory: directory.file("cache"))
        do {
            _ = try await cache.localPath(for: .file(fifo))
            Issue.record("a FIFO was taken for a logo")
        } catch {
            #expect(error.description == "logo \(fifo): not a regular file")
            #expect(error.code == .refused)
        }
    }

    /// A server that trickles a byte at a time gets the whole download's time, not each read's.
    @Test func tricklingServerTimesOutInTotal() async throws {
        let server = try PythonServer(script: """
            import socket, time, threading
            s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
            print(s.getsockname()[1], flush=True)
            def trickle(c):
                c.recv(4096)
                c.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: 100000\\r\\n\\r\\n")
                for _ in range(100):
                    c.sendall(b"x"); time.sleep(0.3)
            while True:
                c, _ = s.accept(); threading.Thread(target=trickle, args=(c,), daemon=True).start()
            """)
        defer { server.stop() }
        let port = server.port
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = LogoCache(directory: directory.file("cache"), timeout: 1, policy: loopbackAllowed)
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/trickle.png"))
        let start = ContinuousClock.now
        let error = await #expect(throws: LogoCacheError.self) { try await cache.localPath(for: .remote(url)) }
        #expect(error?.code == .timedOut, "\(String(describing: error))")
        #expect(ContinuousClock.now - start < .seconds(5), "the download ran for \(ContinuousClock.now - start)")
    }
}
