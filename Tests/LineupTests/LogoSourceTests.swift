import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackStreams
import Testing
@testable import Lineup

/// Logos fetched over a real socket: which addresses a lineup may make the box fetch from, and
/// how much of an answer it reads (issue 32: a logo URL at the box's own API was fetched and
/// served back; a logo was read whole, then measured).
@Suite(.serialized) struct LogoSourceTests {
    /// A loopback server answering every request with `body` (a PNG by default), counting requests.
    final class Server: @unchecked Sendable {
        let http: LoopbackHTTPServer

        init(_ answer: @escaping @Sendable (LoopbackHTTPConnection) -> Void = { connection in
            let png = [UInt8](LogoImageTests.onePixelPNG)
            connection.sendHead(contentType: "image/png", length: png.count)
            connection.send(png[...])
        }) throws {
            let seen = Paths()
            http = try LoopbackHTTPServer { connection in
                seen.add(connection.path)
                answer(connection)
            }
            self.seen = seen
        }

        private let seen: Paths
        var seenPaths: [String] { seen.all }
        func url(_ path: String) -> URL { URL(string: http.url(path))! }
    }

    final class Paths: @unchecked Sendable {
        private let lock = NSLock()
        private var paths: [String] = []
        func add(_ path: String) { lock.withLock { paths.append(path) } }
        var all: [String] { lock.withLock { paths } }
    }

    func cache(_ policy: LogoSourcePolicy = LogoSourcePolicy(), timeout: TimeInterval = 5) -> (LogoCache, String) {
        let directory = NSTemporaryDirectory() + "flipbox-logo-source-\(UUID().uuidString)"
        return (LogoCache(directory: directory, timeout: timeout, policy: policy), directory)
    }

    /// `http://127.0.0.1:PORT/api/v1/status` and `http://localhost:PORT/...`: refused before any
    /// request is sent, with the option that would allow it; allowed by the owner, fetched.
    @Test func loopbackIsRefusedUnlessTheOwnerAllowsIt() async throws {
        let server = try Server()
        defer { server.http.stop() }
        let (strict, directory) = cache()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for host in ["127.0.0.1", "localhost"] {
            let url = URL(string: "http://\(host):\(server.http.port)/api/v1/status")!
            do {
                _ = try await strict.localPath(for: .remote(url))
                Issue.record("a logo on this machine's loopback was fetched: \(url)")
            } catch {
                #expect(error.code == .refused)
                #expect(error.message.hasPrefix("logo \(url.absoluteString): refused: ") && error.message.contains("loopback")
                        && error.message.contains("--allow-logo-host \(host)"), "\(error)")
            }
        }
        #expect(server.seenPaths.isEmpty, "no request reached the server: \(server.seenPaths)")

        let (allowed, other) = cache(LogoSourcePolicy(allowedHosts: ["localhost"]))
        defer { try? FileManager.default.removeItem(atPath: other) }
        let path = try await allowed.localPath(for: .remote(server.url("/logo.png").replacingHost("localhost")))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == LogoImageTests.onePixelPNG)
        #expect(server.seenPaths == ["/logo.png"])
    }

    /// Link-local (cloud metadata at 169.254.169.254) is refused at once: no connection is tried.
    @Test func linkLocalIsRefusedWithoutAConnection() async throws {
        let (strict, directory) = cache(timeout: 30)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let start = ContinuousClock.now
        for text in ["http://169.254.169.254/latest/meta-data/", "http://[fe80::1]/logo.png", "http://0.0.0.0:8642/api/v1/status"] {
            let error = await #expect(throws: LogoCacheError.self, "\(text)") { try await strict.localPath(for: .remote(URL(string: text)!)) }
            #expect(error?.code == .refused, "\(text)")
        }
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    /// An allowed server that redirects to another host on loopback: the redirect is checked too.
    @Test func redirectsAreCheckedHopByHop() async throws {
        let target = try Server()
        defer { target.http.stop() }
        let port = target.http.port
        let redirector = try Server { connection in
            connection.sendHead(status: 302, reason: "Found", contentType: "text/plain", length: 0,
                                headers: [("Location", "http://localhost:\(port)/api/v1/status")])
        }
        defer { redirector.http.stop() }
        let (cache, directory) = cache(LogoSourcePolicy(allowedHosts: ["127.0.0.1"]))
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            _ = try await cache.localPath(for: .remote(redirector.url("/logo.png")))
            Issue.record("a redirect to loopback was followed")
        } catch {
            #expect(error.code == .refused)
            #expect(error.message.contains("localhost resolves to 127.0.0.1") && error.message.contains("loopback"), "\(error)")
        }
        #expect(redirector.seenPaths == ["/logo.png"])
        #expect(target.seenPaths.isEmpty, "the redirect's target was never asked: \(target.seenPaths)")
    }

    /// A server that sends without end: stopped just past the limit, long before the deadline,
    /// and nothing is kept. One that announces too much is refused on its header.
    @Test func downloadsStopAtTheLimit() async throws {
        let endless = try Server { connection in
            connection.sendHead(contentType: "image/png")
            let chunk = [UInt8](repeating: 0x42, count: 64 * 1024)
            _ = connection.send([UInt8](LogoImageTests.onePixelPNG)[...])
            for _ in 0..<4096 where connection.send(chunk[...]) {}  // up to 256 MB
        }
        defer { endless.http.stop() }
        let (cache, directory) = cache(LogoSourcePolicy(allowedHosts: ["127.0.0.1"]), timeout: 60)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let start = ContinuousClock.now
        do {
            _ = try await cache.localPath(for: .remote(endless.url("/endless.png")))
            Issue.record("an endless logo was taken")
        } catch {
            #expect(error.code == .refused && error.message.contains("more than the limit of 10 MB"), "\(error)")
        }
        #expect(ContinuousClock.now - start < .seconds(20), "stopped at the limit, not at the deadline")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: directory))?.isEmpty ?? true)

        let announced = try Server { connection in
            connection.sendHead(contentType: "image/png", length: 1 << 30)
            _ = connection.send([UInt8](LogoImageTests.onePixelPNG)[...])
        }
        defer { announced.http.stop() }
        do {
            _ = try await cache.localPath(for: .remote(announced.url("/big.png")))
            Issue.record("a logo announced at 1 GB was taken")
        } catch {
            #expect(error.code == .refused && error.message.contains("announced 1 GB"), "\(error)")
        }
    }

    /// An answer that is no picture (the box's own API answers JSON) is never cached.
    @Test func answersThatAreNoPicturesAreRefused() async throws {
        let json = try Server { connection in
            let body = Array(#"{"token":"s3cret"}"#.utf8)
            connection.sendHead(contentType: "application/json", length: body.count)
            connection.send(body[...])
        }
        defer { json.http.stop() }
        let (cache, directory) = cache(LogoSourcePolicy(allowedHosts: ["127.0.0.1"]))
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let url = json.url("/status.png")
        do {
            _ = try await cache.contents(for: .remote(url))
            Issue.record("a JSON answer was taken for a logo")
        } catch {
            #expect(error.code == .refused && error.message.contains("it is not a picture"), "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: cache.cachePath(for: url)))
    }

    /// Local files: `/proc/self/environ`, a link to it, a text file, a huge declared PNG.
    @Test func localFilesThatAreNoLogosAreRefused() async throws {
        let (cache, directory) = cache()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let link = directory + "/env.png", text = directory + "/pin.png", huge = directory + "/huge.png"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/proc/self/environ")
        try Data(#"{"salt":"..","hash":".."}"#.utf8).write(to: URL(fileURLWithPath: text))
        try LogoImageTests.pngHeader(width: 30000, height: 30000).write(to: URL(fileURLWithPath: huge))
        for (path, reason) in [("/proc/self/environ", "under /proc"), (link, "under /proc"), ("/dev/zero", "under /dev"),
                               (text, "not a picture"), (huge, "30000 x 30000")] {
            do {
                _ = try await cache.contents(for: .file(path))
                Issue.record("\(path) was taken for a logo")
            } catch {
                #expect(error.code == .refused, "\(path): \(error)")
                #expect(error.message.hasPrefix("logo \(path): refused: ") && error.message.contains(reason), "\(path): \(error)")
            }
        }
        let good = directory + "/good.png"
        try LogoImageTests.onePixelPNG.write(to: URL(fileURLWithPath: good))
        let served = try await cache.contents(for: .file(good))
        #expect(served.data == LogoImageTests.onePixelPNG && served.image.kind == .png)
    }

    /// This machine's own address on one of the box's ports is refused; other ports are not.
    @Test func theBoxsOwnPortsAreRefused() async throws {
        guard let own = Host.current().addresses.first(where: { !$0.contains(":") && !$0.hasPrefix("127.") }) else { return }
        let policy = LogoSourcePolicy(ownPorts: [8642])
        do {
            _ = try await policy.route(URLRequest(url: URL(string: "http://\(own):8642/api/v1/status")!))
            Issue.record("the box's own port was allowed")
        } catch {
            #expect("\(error)".contains("own address, on port 8642"), "\(error)")
        }
    }
}

extension URL {
    func replacingHost(_ host: String) -> URL {
        var parts = URLComponents(url: self, resolvingAgainstBaseURL: false)!
        parts.host = host
        return parts.url!
    }
}
