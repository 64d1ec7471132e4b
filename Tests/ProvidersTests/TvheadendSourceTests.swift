import Foundation
import GStreamer
import Headend
import Lineup
import Logging
import LoopbackStreams
@testable import Providers
import Synchronization
import Testing
import TestSupport

/// A Tvheadend server read from an emulation on loopback (`/playlist/channels.m3u` with HTTP
/// Basic and a profile, `/stream/channelid/N` as live MPEG-TS): the channels, their numbers,
/// names and guide ids, stream URLs without the ticket and with the user's credentials, the
/// pool, the kept copy, the refusals, its password in no message, and a channel that plays.
@Suite struct TvheadendSourceTests {
    static let password = "pa55+w/rd"
    static let encodedPassword = "pa55%2Bw%2Frd"
    static let authorization = "Basic " + Data("viewer:\(password)".utf8).base64EncodedString()

    /// What the server answers next.
    final class Server: Sendable {
        enum Mode: Sendable { case normal, unauthorized, forbidden, html, notFound, empty, down }
        let mode = Mutex(Mode.normal)
        let asked = Mutex<[String]>([])
        /// Whether a login is asked for (else anyone may stream).
        let login = Mutex(true)
        /// The channel `/stream/channelid/1234` streams, when there is one.
        let live = Mutex<LiveTransportStreamServer?>(nil)
        let streamRequests = Mutex<[String]>([])
        /// The web root it serves under (`--http_root`), or empty.
        let root = Mutex("")
    }

    /// Tvheadend 4.3's playlist, as it writes it for the host it was asked at.
    static func playlist(_ host: String) -> String {
        """
        #EXTM3U
        #EXTINF:-1 logo="http://\(host)/imagecache/3" tvg-id="9d6b0f8e1c2a4b5d8e7f6a5b4c3d2e1f" tvg-chno="1",Das Erste HD
        http://\(host)/stream/channelid/1234?ticket=ABC123&profile=pass
        #EXTINF:-1 logo="http://\(host)/imagecache/4" tvg-id="0a1b2c3d4e5f60718293a4b5c6d7e8f9" tvg-chno="2",ZDF HD
        http://\(host)/stream/channelid/5678?ticket=DEF456&profile=pass
        #EXTINF:-1 tvg-id="11112222333344445555666677778888",Unnumbered Radio
        http://\(host)/stream/channel/11112222333344445555666677778888?ticket=GHI789&profile=pass
        #EXTINF:-1 tvg-chno="2",Second Two
        http://\(host)/stream/channelid/42?ticket=JKL&profile=pass
        #EXTINF:-1 tvg-chno="5",Not A Stream
        http://\(host)/dvrfile/abc?ticket=X

        """
    }

    static func emulate(_ server: Server) throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { connection in
            server.asked.withLock { $0.append(connection.path) }
            let root = server.root.withLock { $0 }
            let path = connection.path.hasPrefix(root + "/") ? String(connection.path.dropFirst(root.count)) : "/outside-the-root"
            func answer(_ text: String, type: String = "audio/x-mpegurl", status: Int = 200, reason: String = "OK", headers: [(String, String)] = []) {
                connection.sendHead(status: status, reason: reason, contentType: type, length: text.utf8.count, headers: headers)
                _ = connection.send(Array(text.utf8)[...])
            }
            let mode = server.mode.withLock { $0 }
            if mode == .down { connection.reset(); return }
            let authorised = !server.login.withLock { $0 } || connection.headers["authorization"] == authorization
            if mode == .unauthorized || !authorised {
                answer("<html><body><h1>401 Unauthorized</h1></body></html>", type: "text/html", status: 401, reason: "Unauthorized",
                       headers: [("WWW-Authenticate", "Basic realm=\"tvheadend\"")])
                return
            }
            if mode == .forbidden { answer("<html><body><h1>403 Forbidden</h1></body></html>", type: "text/html", status: 403, reason: "Forbidden"); return }
            if mode == .html { answer("<!DOCTYPE html><html><body>Welcome to nginx</body></html>", type: "text/html"); return }
            if mode == .notFound { answer("<html><body><h1>404 Not Found</h1></body></html>", type: "text/html", status: 404, reason: "Not Found"); return }
            let host = connection.headers["host"] ?? "127.0.0.1"
            if path.hasPrefix("/playlist/channels.m3u") {
                guard path.hasSuffix("?profile=pass") else { answer("unknown profile", type: "text/plain", status: 400, reason: "Bad Request"); return }
                answer(mode == .empty ? "#EXTM3U\n" : playlist(host + root))
            } else if path.hasPrefix("/stream/channelid/1234") {
                server.streamRequests.withLock { $0.append(path) }
                if let live = server.live.withLock({ $0 }) { live.stream(to: connection) } else { answer("", type: "text/plain", status: 503, reason: "No tuner") }
            } else {
                answer("", type: "text/plain", status: 404, reason: "Not Found")
            }
        }
    }

    static func hostAndPort(_ server: LoopbackHTTPServer) -> String { "127.0.0.1:\(server.port)" }
    static let environment = [TvheadendSource.passwordVariable: password]

    @Test func aServerIsReadAsALineupKeptAndPlayedFromTheCopyWhenItIsDown() async throws {
        let server = Server()
        let http = try Self.emulate(server)
        let host = Self.hostAndPort(http)
        let lines = LogLines()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-tvheadend-\(UUID().uuidString)").path
        defer {
            http.stop()
            try? FileManager.default.removeItem(atPath: state)
        }
        let argument = "tvheadend://viewer@\(host)"

        let report = try #require(try await SourcedLineup.load(argument, stateDirectory: state, logger: lines.logger, environment: Self.environment))
        #expect(report.errors.isEmpty, "\(report.diagnostics)")
        let lineup = try #require(report.lineup)
        #expect(lineup.channels.map(\.number.description) == ["1", "2", "3", "4"])
        #expect(lineup.channels.map(\.name) == ["Das Erste HD", "ZDF HD", "Unnumbered Radio", "Second Two"])
        #expect(lineup.channels.map(\.guideID) == ["9d6b0f8e1c2a4b5d8e7f6a5b4c3d2e1f", "0a1b2c3d4e5f60718293a4b5c6d7e8f9",
                                                   "11112222333344445555666677778888", nil])
        let base = "http://viewer:\(Self.encodedPassword)@\(host)/stream"
        #expect(lineup.channels.map(\.sources) == [["\(base)/channelid/1234?profile=pass"], ["\(base)/channelid/5678?profile=pass"],
                                                   ["\(base)/channel/11112222333344445555666677778888?profile=pass"], ["\(base)/channelid/42?profile=pass"]])
        #expect(!lineup.channels.flatMap(\.sources).joined().contains("ticket"))
        #expect(lineup.channels.allSatisfy { $0.logo == nil }, "/imagecache asks for a login a logo fetch does not send")
        #expect(lineup.guideURLs == ["http://viewer:\(Self.encodedPassword)@\(host)/xmltv/channels"])
        let pool = try #require(lineup.pools.first)
        #expect(lineup.pools.count == 1 && pool.name == "Tvheadend \(host)" && pool.match == "http://\(host)/stream/" && pool.streams == nil)
        #expect(server.asked.withLock { $0 } == ["/playlist/channels.m3u?profile=pass"])
        let said = lines.all.withLock { $0 }
        #expect(said.contains { $0.contains("Second Two") && $0.contains("numbered 4") }, "\(said)")
        #expect(said.contains { $0.contains("Not A Stream") && $0.contains("left out") }, "\(said)")

        // Kept, the owner's only, under a name without the password.
        let kept = try #require(lineup.file)
        #expect(kept.hasSuffix("lineups/tvheadend-127.0.0.1-\(http.port)-viewer.yaml"))
        #expect(isOwnersOnly(kept), "the copy holds the user's password in its stream URLs")

        // The server down, a refusal, an HTML page: the kept copy, and why.
        for (mode, why) in [(Server.Mode.down, "cannot be reached"), (.unauthorized, "HTTP 401"), (.html, "HTML page")] {
            server.mode.withLock { $0 = mode }
            let again = try #require(try await SourcedLineup.load(argument, stateDirectory: state, logger: lines.logger, environment: Self.environment))
            #expect(again.lineup?.channels.count == 4, "\(mode)")
            #expect(keptLineupPlays(again, because: why, hiding: [Self.password, Self.encodedPassword]), "\(mode): \(again.warnings)")
            #expect(again.warnings.first.map { "\($0)" }?.contains(argument) == true)
        }

        // The password is in no log line, and masked wherever a stream URL or the guide is shown.
        #expect(!lines.mention(anyOf: [Self.password, Self.encodedPassword]))
        let shown = SourceText.shown("\(lineup.channels[0].sources[0]) and \(lineup.guideURLs[0])")
        #expect(!shown.contains(Self.encodedPassword) && shown.contains("viewer:\(SourceText.mask)@\(host)/stream/channelid/1234"), "\(shown)")
    }

    @Test func anAnonymousServerKeepsItsLogosAndAProfileAndALimitAreTaken() async throws {
        let server = Server()
        server.login.withLock { $0 = false }
        let http = try Self.emulate(server)
        defer { http.stop() }
        let host = Self.hostAndPort(http)
        let source = try #require(try TvheadendSource("tvheadend://\(host)/?profile=pass&streams=2", environment: [:]))
        #expect(source.username == nil && source.streams == 2 && source.description == "tvheadend://\(host)")
        let lineup = try await source.fetch()
        #expect(lineup.entries.first?.url == "http://\(host)/stream/channelid/1234?profile=pass")
        #expect(lineup.entries.first?.logo == "http://\(host)/imagecache/3")
        #expect(lineup.pool.streams == 2 && lineup.pool.toldBySource)
        #expect(source.guideURL == "http://\(host)/xmltv/channels")
        #expect(lineup.yaml.contains("    streams: 2") && !lineup.yaml.contains("password"))
        #expect(source.keptName == "tvheadend-127.0.0.1-\(http.port)-anonymous")
    }

    /// A server under a web root (`--http_root /tvh`), named by a lineup's `tvheadend:` mapping
    /// with a password file beside it, its profile and its streams: every URL under the root,
    /// the pool the lineup's, the argument form read the same way.
    @Test func aServerUnderAWebRootIsNamedByALineupsMapping() async throws {
        let server = Server()
        server.root.withLock { $0 = "/tvh" }
        let http = try Self.emulate(server)
        defer { http.stop() }
        let host = Self.hostAndPort(http)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-tvh-root-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        FileManager.default.createFile(atPath: directory + "/tvh.pass", contents: Data("\(Self.password)\n".utf8), attributes: [.posixPermissions: 0o600])
        let overlay = directory + "/box.yaml"
        try """
            tvheadend:
              server: http://\(host)/tvh/
              username: viewer
              password-file: tvh.pass
              profile: pass
              streams: 2
            settings:
              start: 2
            """.write(toFile: overlay, atomically: true, encoding: .utf8)
        let lines = LogLines()
        let report = try await SourcedLineup.report(for: overlay, stateDirectory: directory + "/state", logger: lines.logger, environment: [:])
        #expect(report.errors.isEmpty, "\(report.diagnostics)")
        let lineup = try #require(report.lineup)
        #expect(lineup.channels.count == 4 && lineup.settings.start == ChannelNumber(2))
        let base = "http://viewer:\(Self.encodedPassword)@\(host)/tvh"
        #expect(lineup.channels[0].sources == ["\(base)/stream/channelid/1234?profile=pass"])
        #expect(lineup.guideURLs == ["\(base)/xmltv/channels"])
        #expect(lineup.pools.map(\.match) == ["http://\(host)/tvh/stream/"] && lineup.pools.first?.streams == 2 && lineup.pools.first?.toldBySource == true,
                "\(lineup.pools)")
        #expect(server.asked.withLock { $0 } == ["/tvh/playlist/channels.m3u?profile=pass"])
        #expect(FileManager.default.fileExists(atPath: directory + "/state/lineups/tvheadend-127.0.0.1-\(http.port)-tvh-viewer.yaml"))
        #expect(!lines.mention(anyOf: [Self.password, Self.encodedPassword]))

        // The argument form takes the same root; a wrong one is said.
        let argument = try #require(try TvheadendSource("tvheadend://viewer@\(host)/tvh/?streams=2", environment: Self.environment))
        #expect(argument.description == "tvheadend://viewer@\(host)/tvh" && argument.root == "/tvh" && argument.streams == 2)
        #expect(argument.playlistURL == "http://\(host)/tvh/playlist/channels.m3u?profile=pass")
        for wrong in ["tvheadend://viewer@\(host)/a/../b", "tvheadend://viewer@\(host)/tv h", "tvheadend://viewer@\(host)//x"] {
            let refused = #expect(throws: SourceFailure.self, "\(wrong)") { try TvheadendSource(wrong, environment: Self.environment) }
            #expect(refused?.description.contains("is no web root") == true, "\(wrong): \(String(describing: refused))")
        }
        // Asked outside its root, the server has nothing: a root left out is a clear refusal.
        let outside = await refusal(of: "tvheadend://viewer@\(host)", environment: Self.environment) ?? ""
        #expect(outside.contains("HTTP 404"), "\(outside)")
    }

    @Test func eachRefusalIsSaidWithTheSourceAndWithoutThePassword() async throws {
        let server = Server()
        let http = try Self.emulate(server)
        defer { http.stop() }
        let argument = "tvheadend://viewer@\(Self.hostAndPort(http))"
        for (mode, password, expected, code) in [(Server.Mode.normal, "wrong-one", "'Both plain and digest' or 'Plain'", SourceFailureCode.refused),
                                                 (.unauthorized, Self.password, "refused the user viewer (HTTP 401)", .refused),
                                                 (.forbidden, Self.password, "may not stream (HTTP 403)", .refused),
                                                 (.notFound, Self.password, "no /playlist (HTTP 404)", .badAnswer),
                                                 (.html, Self.password, "an HTML page, not Tvheadend's playlist", .badAnswer),
                                                 (.empty, Self.password, "the playlist has no channel the user viewer may stream", .refused),
                                                 (.down, Self.password, "cannot be reached", .unreachable)] {
            server.mode.withLock { $0 = mode }
            let failure = await failure(of: argument, environment: [TvheadendSource.passwordVariable: password])
            let text = failure?.text ?? ""
            #expect(text.contains(expected) && text.contains(argument), "\(mode): \(text)")
            #expect(failure?.code == code, "\(mode): \(String(describing: failure?.code))")
            #expect(!text.contains(password) && !text.contains(SourceAccount.encoded(password)), "\(mode): \(text)")
        }
        // The anonymous user where a login is asked for: told how to name one.
        server.mode.withLock { $0 = .normal }
        let anonymous = await refusal(of: "tvheadend://\(Self.hostAndPort(http))", environment: [:]) ?? ""
        #expect(anonymous.contains("asks for a login") && anonymous.contains("tvheadend://USER@"), "\(anonymous)")
    }

    @Test func theArgumentIsReadStrictlyAndThePasswordNeverFromIt() throws {
        let onTheCommandLine = #expect(throws: SourceFailure.self) { try TvheadendSource("tvheadend://viewer:s3cret@tvh.lan", environment: [:]) }
        #expect(onTheCommandLine?.description.contains(TvheadendSource.passwordVariable) == true)
        #expect(onTheCommandLine?.description.contains("s3cret") == false)
        let noPassword = #expect(throws: SourceFailure.self) { try TvheadendSource("tvheadend://viewer@tvh.lan", environment: [:]) }
        #expect(noPassword?.description.contains("no password for viewer") == true)
        for wrong in ["tvheadend://viewer@tvh.lan:99999", "tvheadend://viewer@tvh.lan?profile=a/b", "tvheadend://viewer@tvh.lan?profile=",
                      "tvheadend://viewer@tvh.lan?streams=0", "tvheadend://viewer@tvh.lan?streams=65", "tvheadend://viewer@tvh.lan?ticket=1",
                      "tvheadend://@tvh.lan", "tvheadend://viewer@tvh.lan?profile=\(String(repeating: "p", count: 65))"] {
            #expect(throws: SourceFailure.self, "\(wrong)") { try TvheadendSource(wrong, environment: Self.environment) }
        }
        #expect(try TvheadendSource("lineup.yaml", environment: [:]) == nil)
        #expect(SourcedLineup.isSource("Tvheadend://tvh.lan") && SourcedLineup.isSource("tvheadends://viewer@tvh.lan"))

        let plain = try #require(try TvheadendSource("tvheadend://viewer@tvh.lan", environment: Self.environment))
        #expect(plain.server == "http://tvh.lan:9981" && plain.profile == "pass" && plain.streams == nil)
        let secure = try #require(try TvheadendSource("tvheadends://viewer@[::1]?profile=webtv-h264_aac", environment: Self.environment))
        #expect(secure.server == "https://[::1]:9981" && secure.description == "tvheadends://viewer@[::1]:9981" && secure.profile == "webtv-h264_aac")
        #expect(secure.streamURL("channelid/7") == "https://viewer:\(Self.encodedPassword)@[::1]:9981/stream/channelid/7?profile=webtv-h264_aac")
        #expect(secure.keptName == "tvheadend-[--1]-9981-viewer-webtv-h264_aac")

        #expect(TvheadendSource.streamPath("http://h:9981/stream/channelid/1234?ticket=A&profile=pass") == "channelid/1234")
        #expect(TvheadendSource.streamPath("http://h:9981/tvh/stream/channel/9d6b0f8e1c2a4b5d8e7f6a5b4c3d2e1f?ticket=A") == "channel/9d6b0f8e1c2a4b5d8e7f6a5b4c3d2e1f")
        for wrong in ["http://h/stream/channelid/99999999999", "http://h/stream/channelid/-1", "http://h/stream/channel/xyz",
                      "http://h/stream/channelnumber/1", "http://h/dvrfile/1", "http://h/stream/channelid/1/x"] {
            #expect(TvheadendSource.streamPath(wrong) == nil, "\(wrong)")
        }

        // From a file, with a warning when others may read it.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tvheadend-pass-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        FileManager.default.createFile(atPath: file, contents: Data("from-file\n".utf8), attributes: [.posixPermissions: 0o644])
        let environment = [TvheadendSource.passwordFileVariable: file]
        let fromFile = try #require(try TvheadendSource("tvheadend://viewer@tvh.lan", environment: environment))
        #expect(fromFile.password == "from-file")
        #expect(TvheadendSource.account.fileWarning(in: environment)?.contains("chmod 600") == true)
        #expect(TvheadendSource.account.fileWarning(in: environment)?.contains("Tvheadend password") == true)
    }

    /// The rewritten URL plays: the server streams only to the user's Basic credentials, and
    /// GStreamer's HTTP source sends those it finds in the URL.
    @Test(.heavy) func aChannelPlaysFromItsRewrittenURLWithTheUsersCredentials() async throws {
        try GStreamer.initialize()
        let format = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 4, bitrateKbps: 300, hue: 40, toneHz: 440)
        let clip = try TransportStreamClip(path: try await format.made(in: ClipFormat.cacheDirectory))
        let live = try LiveTransportStreamServer(clip: clip)
        defer { live.stop() }
        let server = Server()
        server.live.withLock { $0 = live }
        let http = try Self.emulate(server)
        defer { http.stop() }
        let source = try #require(try TvheadendSource("tvheadend://viewer@\(Self.hostAndPort(http))", environment: Self.environment))
        let entry = try #require(try await source.fetch().entries.first)
        #expect(entry.url.hasPrefix("http://viewer:\(Self.encodedPassword)@"))

        let channel = Channel(id: "tvh1", number: entry.number, name: entry.name, sources: [entry.url])
        let ingest = ChannelSource(channel: channel, logger: LogLines().logger, onStateChange: { _ in })
        await ingest.start()
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline, !(ingest.state == .warm && ingest.cache.hasKeyframe) {
            try await Task.sleep(for: .milliseconds(50))
        }
        let warm = ingest.state == .warm && ingest.cache.hasKeyframe
        await ingest.stop()
        #expect(warm, "the channel is warm with a keyframe from \(SourceText.shown(entry.url)): \(ingest.state)")
        #expect(server.streamRequests.withLock { $0 }.allSatisfy { $0 == "/stream/channelid/1234?profile=pass" })
        #expect(live.connections >= 1, "the stream went to the box only with the user's credentials")
    }
}
