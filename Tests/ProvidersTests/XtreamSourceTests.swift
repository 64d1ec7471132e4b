import Foundation
import Lineup
import Logging
import LoopbackStreams
@testable import Providers
import Synchronization
import Testing

/// An Xtream Codes account read from a real panel on loopback (player_api.php with its actions,
/// xmltv.php, /live/USER/PASSWORD/ID.ts): the account, its channels, groups, logos, guide ids and
/// archive, the pool's limit, the kept copy, the refusals, and its password in no message.
@Suite struct XtreamSourceTests {
    static let password = "pa55+w/rd"
    static let encodedPassword = "pa55%2Bw%2Frd"

    /// What the panel answers next.
    final class Panel: Sendable {
        enum Mode: Sendable { case normal, wrongPassword, expired, html, down }
        let mode = Mutex(Mode.normal)
        let formats = Mutex(#"["m3u8","ts","rtmp"]"#)
        let asked = Mutex<[String]>([])
    }

    static let categories = #"[{"category_id":"1","category_name":"News"},{"category_id":2,"category_name":"Sport\u0007s"}]"#
    static let streams = """
    [{"num":1,"name":"News One","stream_id":101,"stream_icon":"http://logos.example/one.png","epg_channel_id":"news.one","category_id":"1","tv_archive":1,"tv_archive_duration":"7"},
     {"num":"2","name":"Sport\\nTwo","stream_id":"102","stream_icon":"","epg_channel_id":null,"category_id":"2","tv_archive":0},
     {"num":2,"name":"Duplicate","stream_id":103,"category_id":"9"},
     {"name":"No number","stream_id":104},
     {"num":5,"name":"No id"},
     {"num":"x","name":"Bad number","stream_id":105,"stream_icon":"javascript:alert(1)"}]
    """

    static func panel(_ panel: Panel) throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { connection in
            let path = connection.path
            panel.asked.withLock { $0.append(path) }
            func answer(_ text: String, type: String = "application/json", status: Int = 200) {
                connection.sendHead(status: status, reason: status == 200 ? "OK" : "Nope", contentType: type, length: text.utf8.count)
                _ = connection.send(Array(text.utf8)[...])
            }
            let mode = panel.mode.withLock { $0 }
            if mode == .down { connection.reset(); return }
            if mode == .html { answer("<!DOCTYPE html><html><body>Welcome to nginx</body></html>", type: "text/html"); return }
            let authorised = path.contains("username=viewer&password=\(encodedPassword)")
            if path.hasPrefix("/player_api.php") {
                if !authorised || mode == .wrongPassword { answer(#"{"user_info":{"auth":0}}"#); return }
                if path.contains("action=get_live_categories") { answer(categories); return }
                if path.contains("action=get_live_streams") { answer(streams); return }
                let status = mode == .expired ? "Expired" : "Active"
                answer("""
                {"user_info":{"username":"viewer","auth":1,"status":"\(status)","exp_date":"1767225600","max_connections":"2","active_cons":0,
                 "allowed_output_formats":\(panel.formats.withLock { $0 })},"server_info":{"url":"127.0.0.1","timezone":"UTC"}}
                """)
            } else if path.hasPrefix("/xmltv.php") {
                answer("<?xml version=\"1.0\"?><tv></tv>", type: "application/xml")
            } else {
                answer("", type: "text/plain", status: 404)
            }
        }
    }

    static func port(_ server: LoopbackHTTPServer) -> String { "127.0.0.1:\(server.port)" }

    @Test func anAccountIsReadAsALineupKeptAndPlayedFromTheCopyWhenThePanelIsDown() async throws {
        let panel = Panel()
        let server = try Self.panel(panel)
        defer { server.stop() }
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-xtream-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let lines = LogLines()
        let environment = [XtreamSource.passwordVariable: Self.password]
        let argument = "xtream://viewer@\(Self.port(server))"

        let report = try #require(try await SourcedLineup.load(argument, stateDirectory: state, logger: lines.logger, environment: environment))
        #expect(report.errors.isEmpty, "\(report.diagnostics)")
        let lineup = try #require(report.lineup)
        let base = "http://\(Self.port(server))"
        #expect(lineup.channels.map(\.number.description) == ["1", "2", "3", "4", "5"])
        #expect(lineup.channels.map(\.name) == ["News One", "SportTwo", "Duplicate", "No number", "Bad number"])
        let news = lineup.channels[0]
        #expect(news.sources == ["\(base)/live/viewer/\(Self.encodedPassword)/101.ts"])
        #expect(news.group == "News" && news.guideID == "news.one" && news.logo?.description == "http://logos.example/one.png")
        #expect(news.attributes["catchup"] == "xc" && news.attributes["catchup-days"] == "7")
        let sport = lineup.channels[1]
        #expect(sport.group == "Sports" && sport.guideID == nil && sport.logo == nil && sport.attributes["catchup"] == nil)
        #expect(lineup.channels[4].logo == nil, "a javascript: logo is no logo")
        #expect(lineup.guideURLs == ["\(base)/xmltv.php?username=viewer&password=\(Self.encodedPassword)"])
        let pool = try #require(lineup.pools.first)
        #expect(lineup.pools.count == 1 && pool.match == "\(base)/" && pool.streams == 2 && pool.toldBySource)
        #expect(lines.all.withLock { $0 }.contains { $0.contains("Duplicate") && $0.contains("numbered 3") })

        // Kept, the owner's only, under a name without the password.
        let kept = try #require(lineup.file)
        #expect(kept.hasSuffix("lineups/xtream-127.0.0.1-\(server.port)-viewer.yaml"))
        #expect(isOwnersOnly(kept), "the copy holds the account's password in its stream URLs")

        // The panel down, an expired account, an HTML page: the kept copy, and why.
        for (mode, why) in [(Panel.Mode.down, "cannot be reached"), (.expired, "expired on 2026-01-01"), (.html, "HTML page")] {
            panel.mode.withLock { $0 = mode }
            lines.all.withLock { $0 = [] }
            let again = try #require(try await SourcedLineup.load(argument, stateDirectory: state, logger: lines.logger, environment: environment))
            #expect(again.lineup?.channels.count == 5, "\(mode)")
            #expect(keptLineupPlays(again, because: why, hiding: [Self.password, Self.encodedPassword]), "\(mode): \(again.warnings)")
        }

        // The password is in no log line, and masked wherever a stream URL is shown.
        #expect(!lines.mention(anyOf: [Self.password, Self.encodedPassword]))
        let shown = SourceText.shown("\(news.sources[0]): Not Found (404), URL: \(news.sources[0])")
        #expect(!shown.contains(Self.encodedPassword) && shown.contains("/live/viewer/\(SourceText.mask)/101.ts"), "\(shown)")
    }

    @Test func theStreamFormatFollowsTheAllowedOutputFormats() async throws {
        let panel = Panel()
        panel.formats.withLock { $0 = #"["m3u8"]"# }
        let server = try Self.panel(panel)
        defer { server.stop() }
        let source = try #require(try XtreamSource("xtream://viewer@\(Self.port(server))", environment: [XtreamSource.passwordVariable: Self.password]))
        let lineup = try await source.fetch()
        #expect(lineup.entries.first?.url == "http://\(Self.port(server))/live/viewer/\(Self.encodedPassword)/101.m3u8")
        #expect(lineup.account.maxConnections == 2 && lineup.account.activeConnections == 0)
    }

    @Test func aRefusedAccountIsSaidWithoutItsPassword() async throws {
        let panel = Panel()
        let server = try Self.panel(panel)
        defer { server.stop() }
        let argument = "xtream://viewer@\(Self.port(server))"
        for (mode, password, expected, code) in [(Panel.Mode.wrongPassword, Self.password, "refused the username or password", SourceFailureCode.refused),
                                                 (.normal, "wrong-one", "refused the username or password", .refused),
                                                 (.expired, Self.password, "the account expired on 2026-01-01", .refused),
                                                 (.html, Self.password, "an HTML page, not the panel's JSON", .badAnswer),
                                                 (.down, Self.password, "cannot be reached", .unreachable)] {
            panel.mode.withLock { $0 = mode }
            let failure = await failure(of: argument, environment: [XtreamSource.passwordVariable: password])
            let text = failure?.text ?? ""
            #expect(text.contains(expected) && !text.contains(password) && !text.contains(Self.encodedPassword) && text.contains("viewer"), "\(mode): \(text)")
            #expect(failure?.code == code, "\(mode): \(String(describing: failure?.code))")
        }
    }

    @Test func thePasswordIsNeverTakenOnTheCommandLine() throws {
        #expect {
            _ = try XtreamSource("xtream://viewer:s3cret@panel.example:8080", environment: [:])
        } throws: { error in
            let text = "\(error)"
            return text.contains(XtreamSource.passwordVariable) && !text.contains("s3cret")
        }
        #expect(throws: SourceFailure.self) { try XtreamSource("xtream://viewer@panel.example:8080", environment: [:]) }
        #expect(throws: SourceFailure.self) { try XtreamSource("xtream://viewer@panel.example:99999", environment: [XtreamSource.passwordVariable: "x"]) }
        #expect(try XtreamSource("lineup.yaml", environment: [:]) == nil)
        let secure = try #require(try XtreamSource("xtreams://viewer@panel.example", environment: [XtreamSource.passwordVariable: "abc"]))
        #expect(secure.server == "https://panel.example" && secure.description == "xtreams://viewer@panel.example")

        // From a file, with a warning when others may read it.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("xtream-pass-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        FileManager.default.createFile(atPath: file, contents: Data("from-file\n".utf8), attributes: [.posixPermissions: 0o644])
        let read = try XtreamSource.readPassword(file: file)
        #expect(read.password == "from-file" && read.warning?.contains("chmod 600") == true)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        #expect(try XtreamSource.readPassword(file: file).warning == nil)
        let fromFile = try #require(try XtreamSource("xtream://viewer@panel.example", environment: [XtreamSource.passwordFileVariable: file]))
        #expect(fromFile.password == "from-file")
    }
}

/// Secrets masked wherever a source URL is shown.
@Suite struct SourceTextMasking {
    @Test func passwordsTokensAndRegisteredSecretsAreMasked() {
        #expect(SourceText.shown("http://user:hunter2@cam.example/live") == "http://user:\(SourceText.mask)@cam.example/live")
        #expect(SourceText.shown("failed (http://p.example/get.php?username=u&password=abc&type=m3u)")
            == "failed (http://p.example/get.php?username=u&password=\(SourceText.mask)&type=m3u)")
        #expect(SourceText.shown("https://cdn.example/a.m3u8?TOKEN=xyz#t") == "https://cdn.example/a.m3u8?TOKEN=\(SourceText.mask)#t")
        #expect(SourceText.shown("https://cdn.example/a.m3u8?pass=1&passage=2") == "https://cdn.example/a.m3u8?pass=\(SourceText.mask)&passage=2")
        #expect(SourceText.shown("udp://@239.0.0.1:1234") == "udp://@239.0.0.1:1234")
        SourceText.register(secret: "Zq9#registered")
        #expect(SourceText.shown("http://h/live/u/Zq9%23registered/1.ts and Zq9#registered") == "http://h/live/u/\(SourceText.mask)/1.ts and \(SourceText.mask)")
        SourceText.register(secret: "ab")
        #expect(SourceText.shown("tab") == "tab", "too short a secret is not registered")
    }
}
