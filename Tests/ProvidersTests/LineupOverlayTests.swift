import Foundation
import Lineup
import LoopbackStreams
@testable import Providers
import Testing

/// A YAML lineup that names its source (`lineup:`, `xtream:`, `tvheadend:`) and adds the box's own settings,
/// guides, pools and groups, read through `SourcedLineup.report(for:)` as play, serve, doctor and
/// `lineup check` read it, from real servers on loopback.
@Suite struct LineupOverlayTests {
    /// A directory for the overlay files and the state, removed after.
    final class Place {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-overlay-\(UUID().uuidString)").path
        var state: String { (directory as NSString).appendingPathComponent("state") }
        init() throws { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: directory) }
        func write(_ name: String, _ text: String, mode: Int = 0o644) -> String {
            let path = (directory as NSString).appendingPathComponent(name)
            FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: mode])
            return path
        }
    }

    @Test func anXtreamAccountNamedInALineupTakesItsSettingsPoolsAndGroups() async throws {
        let panel = XtreamSourceTests.Panel()
        let server = try XtreamSourceTests.panel(panel)
        defer { server.stop() }
        let place = try Place()
        _ = place.write("xtream.pass", "\(XtreamSourceTests.password)\n", mode: 0o600)
        let base = "http://\(XtreamSourceTests.port(server))"
        let path = place.write("box.yaml", """
        # My account, one connection of its two for this box.
        xtream:
          server: \(base)/
          username: viewer
          password-file: xtream.pass
        groups: [news, Sports]
        guide: extra-guide.xml
        pools:
          - name: This box's share
            match: "\(base)/"
            streams: 1
        settings:
          start: 2
          banner-seconds: 3
          logo-corner: bottom-left
        """)
        let lines = LogLines()
        let report = try await SourcedLineup.report(for: path, stateDirectory: place.state, logger: lines.logger, environment: [:])
        #expect(report.errors.isEmpty, "\(report.diagnostics)")
        let lineup = try #require(report.lineup)
        // Only News and Sports (case as the panel writes it), numbered as the panel numbers them.
        #expect(lineup.channels.map(\.name) == ["News One", "SportTwo"])
        #expect(lineup.channels.map(\.number.description) == ["1", "2"])
        #expect(lineup.channels[0].sources == ["\(base)/live/viewer/\(XtreamSourceTests.encodedPassword)/101.ts"])
        // The overlay's settings apply to the source's channels.
        #expect(lineup.settings.start == ChannelNumber(2) && lineup.settings.bannerSeconds == 3)
        #expect(lineup.channels[0].logoStyle.corner == .bottomLeft, "\(lineup.channels[0].logoStyle)")
        // The panel's guide, then the overlay's, resolved beside the overlay.
        #expect(lineup.guideURLs == ["\(base)/xmltv.php?username=viewer&password=\(XtreamSourceTests.encodedPassword)",
                                     (place.directory as NSString).appendingPathComponent("extra-guide.xml")])
        // The box's share of the account, the lineup's word, in place of the account's two.
        #expect(lineup.pools.count == 1 && lineup.pools[0].streams == 1 && !lineup.pools[0].toldBySource, "\(lineup.pools)")
        #expect(lineup.file == path)
        // The account's lineup was kept all the same, and its password is in no line said.
        #expect(FileManager.default.fileExists(atPath: (SourcedLineup.keptDirectory(place.state) as NSString)
            .appendingPathComponent("xtream-127.0.0.1-\(server.port)-viewer.yaml")))
        #expect(!lines.all.withLock { $0 }.joined().contains(XtreamSourceTests.password))

        // The panel down: the kept account plays under the same overlay, and why is said first.
        panel.mode.withLock { $0 = .down }
        let kept = try await SourcedLineup.report(for: path, stateDirectory: place.state, logger: lines.logger, environment: [:])
        #expect(kept.lineup?.channels.map(\.name) == ["News One", "SportTwo"] && kept.lineup?.pools.first?.streams == 1)
        let first = kept.warnings.first.map { "\($0)" } ?? ""
        #expect(first.contains("cannot be reached") && first.contains("playing its lineup as read at") && !first.contains(XtreamSourceTests.password), "\(first)")
    }

    @Test func aPlaylistURLNamedInALineupKeepsTheProvidersPoolsUnlessTheLineupSaysOtherwise() async throws {
        let playlist = """
        #EXTM3U url-tvg="http://epg.example/guide.xml" max-streams="3" x-provider-thing="1"
        #EXTINF:-1 tvg-id="a" group-title="Movies",Film One
        http://streams.example/1.ts
        #EXTINF:-1 tvg-id="b" group-title="Kids",Cartoons
        http://streams.example/2.ts
        """
        let server = try LoopbackHTTPServer { connection in
            connection.sendHead(status: 200, reason: "OK", contentType: "audio/x-mpegurl", length: playlist.utf8.count)
            _ = connection.send(Array(playlist.utf8)[...])
        }
        defer { server.stop() }
        let place = try Place()
        let path = place.write("box.yaml", """
        lineup: http://127.0.0.1:\(server.port)/get.php?username=u&password=p&type=m3u_plus
        groups: [Kids, Documentaries]
        settings:
          start: 2
          locked: 2
          no-such-setting: 1
        """)
        let report = try await SourcedLineup.report(for: path, stateDirectory: place.state, logger: LogLines().logger)
        #expect(report.errors.isEmpty, "\(report.diagnostics)")
        let lineup = try #require(report.lineup)
        #expect(lineup.channels.map(\.name) == ["Cartoons"] && lineup.channels[0].number == ChannelNumber(2))
        #expect(lineup.settings.start == ChannelNumber(2) && lineup.settings.locked == [ChannelNumber(2)], "\(report.diagnostics)")
        #expect(lineup.guideURLs == ["http://epg.example/guide.xml"])
        // The M3U header's max-streams stands (the overlay names no pool); its other attributes are not warned about.
        #expect(lineup.settings.maxStreams == 3)
        let said = report.warnings.map { "\($0)" }
        #expect(said.contains { $0.hasPrefix("\(path):") && $0.contains("no-such-setting") }, "the overlay's own unknown setting, on its line: \(said)")
        #expect(said.contains { $0.contains("no group 'Documentaries'") && $0.contains("Movies, Kids") }, "\(said)")
        #expect(!said.contains { $0.contains("x-provider-thing") }, "\(said)")
    }

    @Test func aWrongOverlayIsRefusedOnItsLinesBeforeAnySourceIsAsked() async throws {
        let place = try Place()
        let cases: [(String, String)] = [
            ("xtream:\n  server: http://panel.example:8080\n  username: u\n  password: hunter2\n", "never written in a lineup"),
            ("xtream:\n  server: panel.example\n  username: u\n  password-file: p\n", "http://HOST:PORT"),
            ("xtream:\n  server: http://panel.example\n  username: u\n", "`xtream` needs `password-file`"),
            ("lineup: hdhomerun://auto\nchannels:\n  - {number: 1, name: A, source: test://smpte}\n", "remove `channels:`"),
            ("lineup: hdhomerun://auto\nxtream: {server: http://p.example, username: u, password-file: p}\n", "a lineup names one source"),
            ("lineup: ftp://files.example/list.m3u\n", "names no playlist URL, source or file"),
            ("lineup: missing.m3u\n", "no such file"),
            ("groups: [News]\nchannels:\n  - {number: 1, name: A, source: test://smpte}\n", "names no source"),
            ("tvheadend:\n  server: http://tvh.lan:9981\n  username: u\n  password: hunter2\n", "a Tvheadend password is never written"),
            ("tvheadend:\n  server: http://tvh.lan:9981\n  username: u\n", "`tvheadend` needs `password-file`"),
            ("tvheadend:\n  server: http://tvh.lan:9981\n  password-file: p\n", "without `username`"),
            ("tvheadend:\n  server: tvh.lan:9981\n", "its web root after it"),
            ("tvheadend:\n  server: http://tvh.lan\n  streams: 0\n", "1 to 64"),
            ("tvheadend:\n  server: http://tvh.lan\n  profil: pass\n", "unknown key 'tvheadend.profil'"),
            ("tvheadend: http://tvh.lan\n", "`tvheadend` is a mapping"),
            ("tvheadend:\n  server: http://tvh.lan/a/../b\n", "is no web root"),
        ]
        for (index, (text, expected)) in cases.enumerated() {
            let path = place.write("wrong-\(index).yaml", text)
            let said: String
            do {
                let report = try await SourcedLineup.report(for: path, stateDirectory: place.state, logger: LogLines().logger, environment: [:])
                #expect(report.lineup == nil, "\(text)")
                said = report.errors.map { "\($0)" }.joined(separator: "\n")
            } catch {
                said = "\(error)"
            }
            #expect(said.contains(expected), "\(text): \(said)")
            #expect(!said.contains("hunter2"))
        }
        // A file lineup under an overlay, relative to it; the overlay's groups keep nothing: said.
        try FileManager.default.createDirectory(atPath: (place.directory as NSString).appendingPathComponent("provider"), withIntermediateDirectories: true)
        _ = place.write("provider/base.m3u", "#EXTM3U\n#EXTINF:-1 group-title=\"News\" tvg-logo=\"logos/one.png\",One\nhttp://s.example/1.ts\n")
        let none = try await SourcedLineup.report(for: place.write("none.yaml", "lineup: provider/base.m3u\ngroups: [Sport]\n"),
                                                  stateDirectory: nil, logger: LogLines().logger)
        #expect(none.lineup == nil && none.errors.contains { $0.message.contains("keeps none of the source's 1 channels") }, "\(none.diagnostics)")
        let some = try await SourcedLineup.report(for: place.write("some.yaml", "lineup: provider/base.m3u\nguide: guide.xml\nsettings: {start: 1}\n"),
                                                  stateDirectory: nil, logger: LogLines().logger)
        #expect(some.lineup?.channels.map(\.name) == ["One"] && some.lineup?.settings.start == ChannelNumber(1), "\(some.diagnostics)")
        // Its logos are the file's directory's; the overlay's guide is the overlay's.
        #expect(some.lineup?.channels.first?.logo?.description.hasSuffix("/provider/logos/one.png") == true, "\(String(describing: some.lineup?.channels.first?.logo))")
        #expect(some.lineup?.guideURLs == [(place.directory as NSString).appendingPathComponent("guide.xml")], "\(String(describing: some.lineup?.guideURLs))")
        // Read without a command that reads sources, an overlay says so rather than "no channels".
        let direct = LineupLoader.check(path: place.write("direct.yaml", "lineup: hdhomerun://auto\n"))
        #expect(direct.errors.first?.message.contains("takes its channels from a source") == true, "\(direct.diagnostics)")
    }
}
