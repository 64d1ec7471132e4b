import ConnectionGuard
import Foundation
import Lineup
@testable import Serve
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

extension ServeTests {
    /// `deploy/nginx/flipbox-hls.conf` in front of the head-end's HLS: Debian's nginx, started by
    /// the test on loopback (its own process, files in a temporary directory, an unprivileged
    /// port), many fetches on its side, one per segment on the head-end's.
    @Suite struct NginxCache {
        static let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }

        @Test(.enabled(if: nginx != nil, "nginx is not installed (deploy/install-deps.sh installs it)"))
        func segmentsComeFromNginxsCacheAndPlay() async throws {
            // nginx on this machine is a declared proxy: its clients are judged by their own address.
            let harness = try await ServeHarness(channels: [
                makeChannel("test://color/8000ff?size=320x180&fps=30&gop=30&tone=660", number: 5),
            ]) { $0.trustedProxies = [NetworkRange("127.0.0.1")!] }
            let proxy = try NginxProxy(executable: Self.nginx!, origin: harness.port)
            defer { proxy.stop() }
            let playlistURL = proxy.url("/hls/5/index.m3u8")

            // 20 clients ask for the cold playlist at once: nginx sends the head-end one request.
            let first = try await withThrowingTaskGroup(of: ToolRun.self) { group in
                for _ in 0..<20 { group.addTask { try await runTool("curl", ["-s", "-w", "\n%{http_code}", playlistURL], timeout: 40) } }
                return try await group.reduce(into: [ToolRun]()) { $0.append($1) }
            }
            #expect(first.allSatisfy { $0.text.hasSuffix("200") && $0.text.contains("#EXTINF:") }, "\(first.map(\.text))\n\(proxy.errors)")
            let segmenter = try #require(await harness.hlsSegmenter(of: 5))
            #expect(segmenter.requests.playlist < 20, "the cache answered most of the 20: \(segmenter.requests.playlist) reached the head-end")

            // Rounds of 8 clients each fetching the playlist and every segment in it.
            var fetched: [Int: Int] = [:]
            for _ in 0..<4 {
                let text = try await runTool("curl", ["-s", playlistURL]).text
                let segments = text.split(separator: "\n").filter { $0.hasSuffix(".ts") }.compactMap { Int($0.dropLast(3)) }
                #expect(!segments.isEmpty, "\(text)")
                let codes = try await withThrowingTaskGroup(of: String.self) { group in
                    for _ in 0..<8 {
                        for segment in segments {
                            group.addTask {
                                try await runTool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", proxy.url("/hls/5/\(segment).ts")]).text
                            }
                        }
                    }
                    return try await group.reduce(into: [String]()) { $0.append($1) }
                }
                #expect(codes.allSatisfy { $0 == "200" }, "\(Set(codes))")
                for segment in segments { fetched[segment, default: 0] += 8 }
                try await Task.sleep(for: .seconds(2))
            }
            let origin = segmenter.requests.segments
            print("nginx: clients fetched \(fetched.values.reduce(0, +)) segments (\(fetched.count) distinct), the head-end was asked for \(origin.values.reduce(0, +)); playlists: 20 cold clients, \(segmenter.requests.playlist) head-end requests in all")
            #expect(fetched.values.reduce(0, +) >= 32, "clients fetched \(fetched.values.reduce(0, +)) segments through nginx")
            #expect(origin.keys.sorted() == fetched.keys.sorted(), "the head-end was asked for exactly the segments the clients wanted")
            #expect(origin.values.allSatisfy { $0 == 1 }, "one request per segment reached the head-end: \(origin) for \(fetched)")

            let cached = try await runTool("curl", ["-s", "-D", "-", "-o", "/dev/null", proxy.url("/hls/5/\(fetched.keys.max()!).ts")])
            #expect(cached.text.contains("X-Cache-Status: HIT"), "\(cached.text)")

            // And a player plays the channel through nginx: the source's codecs, not re-encoded.
            let probe = try await runTool("ffprobe", ["-v", "error", "-of", "csv=p=0", "-show_entries", "stream=codec_name,width", playlistURL], timeout: 30)
            #expect(probe.text.contains("h264,320") && probe.text.contains("aac"), "ffprobe through nginx: \(probe.text) \(probe.errors)")
            await harness.stop()
        }
    }
}

extension ServeTests.NginxCache {
    /// The shipped site on the box itself used to make every client of the cache look like
    /// 127.0.0.1, so --serve-allow and the token never applied behind it. Now the head-end reads
    /// the client nginx forwards, and refuses it when nginx is no declared proxy.
    @Test(.enabled(if: nginx != nil, "nginx is not installed (deploy/install-deps.sh installs it)"))
    func clientsBehindTheCacheAreJudgedByTheirOwnAddress() async throws {
        let channel = makeChannel("test://color/8000ff?size=160x90&fps=30&gop=30", number: 5)
        // nginx not declared: its forwarded requests are refused, saying how to declare it.
        let undeclared = try await ServeHarness(channels: [channel], policy: .none) { $0.token = "cache-secret" }
        let proxy = try NginxProxy(executable: Self.nginx!, origin: undeclared.port)
        let refused = try await runTool("curl", ["-s", "-w", "\n%{http_code}", proxy.url("/lineup.json")])
        #expect(refused.text.hasSuffix("403") && refused.text.contains("--serve-trusted-proxy 127.0.0.1"), "\(refused.text)\n\(proxy.errors)")
        // The token still lets the owner through the cache.
        let owner = try await runTool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", proxy.url("/lineup.json?token=cache-secret")])
        #expect(owner.text == "200", "\(owner.text)")
        proxy.stop()
        await undeclared.stop()

        // Declared: the client nginx names (this machine's curl) is judged, and may watch.
        let declared = try await ServeHarness(channels: [channel], policy: .none) {
            $0.trustedProxies = [NetworkRange("127.0.0.1")!]
            $0.allowed = [NetworkRange("192.168.1.0/24")!]
        }
        let second = try NginxProxy(executable: Self.nginx!, origin: declared.port)
        defer { second.stop() }
        let local = try await runTool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", second.url("/lineup.json")])
        #expect(local.text == "200", "a client on the box itself: \(local.text)")
        await declared.stop()
    }
}

extension ServeHarness {
    /// The HLS segmenter of channel `number`, nil when nobody asked for its playlist.
    func hlsSegmenter(of number: Int) async -> HLSSegmenter? {
        guard let channel = headend.lineup.channel(number: ChannelNumber(number)) else { return nil }
        return await hls.existingSegmenter(for: channel)
    }
}

/// Debian's nginx with `deploy/nginx/flipbox-hls.conf`, pointed at a head-end on loopback: its
/// cache path, port and upstream rewritten into a temporary directory, run in the foreground as
/// this test's child process (one process, no master: nothing changes user), stopped by `stop()`.
final class NginxProxy: @unchecked Sendable {
    let port: Int
    private let directory: String
    private let process = Process()

    static let configuration = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy/nginx/flipbox-hls.conf")

    init(executable: String, origin: Int) throws {
        directory = NSTemporaryDirectory() + "flipbox-nginx-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/cache", withIntermediateDirectories: true)
        port = freeLoopbackPort()
        var site = try String(contentsOf: Self.configuration, encoding: .utf8)
        for (shipped, local) in [("/var/cache/nginx/flipbox-hls", directory + "/cache"), ("listen 8080;", "listen 127.0.0.1:\(port);"),
                                 ("server 127.0.0.1:5004;", "server 127.0.0.1:\(origin);")] {
            guard site.contains(shipped) else { throw NginxError("deploy/nginx/flipbox-hls.conf no longer has '\(shipped)'") }
            site = site.replacingOccurrences(of: shipped, with: local)
        }
        try site.write(toFile: directory + "/flipbox-hls.conf", atomically: true, encoding: .utf8)
        let main = """
            daemon off;
            master_process off;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log warn;
            events { worker_connections 512; }
            http {
                access_log \(directory)/access.log;
                client_body_temp_path \(directory)/body;
                proxy_temp_path \(directory)/proxy;
                fastcgi_temp_path \(directory)/fastcgi;
                uwsgi_temp_path \(directory)/uwsgi;
                scgi_temp_path \(directory)/scgi;
                include \(directory)/flipbox-hls.conf;
            }
            """
        try main.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-p", directory, "-e", directory + "/error.log", "-c", directory + "/nginx.conf"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Ready once it accepts connections.
        let deadline = Date().addingTimeInterval(10)
        while !acceptsConnections(port: port), Date() < deadline, process.isRunning { usleep(50_000) }
        guard acceptsConnections(port: port) else {
            stop()
            throw NginxError("nginx did not start: \(errors)")
        }
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// nginx's error log.
    var errors: String { (try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? "" }

    func stop() {
        if process.isRunning {
            // SIGKILL: children of the test process inherit its blocked SIGTERM.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

struct NginxError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
