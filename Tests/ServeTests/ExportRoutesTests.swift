import Foundation
import Guide
import Headend
import Lineup
import Serve
import Testing

extension ServeTests {
    /// `/lineup.m3u`, `/logos/...` and `/guide.xml`, read back the way another Flipbox reads them.
    @Suite struct Exports {
        @Test func theM3UExportIsALineupWithLogosServedHere() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-export-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let logo = directory.appendingPathComponent("news.svg")
            let svg = #"<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8" fill="red"/></svg>"#
            try svg.write(to: logo, atomically: true, encoding: .utf8)
            var news = makeChannel("test://color/ff0000?size=160x90&fps=30&gop=15", number: 5, name: #"News "24""#)
            news.logo = .file(logo.path)
            news.group = "News"
            var radio = makeChannel("test://color/00ff00?size=160x90&fps=30&gop=15", number: 9, name: "Radio Nine")
            radio.isRadio = true
            var hidden = makeChannel("test://color/0000ff?size=160x90&fps=30&gop=15", number: 11, name: "Hidden")
            hidden.isHidden = true
            let harness = try await ServeHarness(channels: [news, radio, hidden], policy: .none)
            let m3u = try await runTool("curl", ["-s", harness.url("/lineup.m3u")])
            let report = LineupLoader.check(text: m3u.text, file: "export.m3u", format: .m3u)
            let exported = try #require(report.lineup, "the export is a lineup: \(report.diagnostics) \(m3u.text)")
            #expect(exported.channels.map(\.number) == [ChannelNumber(5), ChannelNumber(9)], "hidden channels are not exported")
            #expect(exported.channels.map(\.id) == ["ch5", "ch9"])
            #expect(exported.channels.first?.name == #"News "24""#, "the display name after the comma keeps its quotes")
            #expect(exported.channels.first?.group == "News")
            #expect(exported.channels.last?.isRadio == true)
            #expect(exported.channels.first?.sources == [harness.url("/stream/5.ts")])
            guard case .remote(let logoURL)? = exported.channels.first?.logo else {
                Issue.record("the logo is a URL on the head-end: \(String(describing: exported.channels.first?.logo))")
                await harness.stop()
                return
            }
            let fetched = try await runTool("curl", ["-s", "-D", "/dev/stderr", logoURL.absoluteString])
            #expect(fetched.text == svg && fetched.errors.lowercased().contains("image/svg+xml"), "\(fetched.errors)")
            #expect(try await runTool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", harness.url("/guide.xml")]).text == "404",
                    "no guide, no guide.xml")
            await harness.stop()
        }

        @Test func theGuideExportImportsIntoAnotherGuide() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-export-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let source = directory.appendingPathComponent("source.xml").path
            try SyntheticGuide.write(to: source, programmes: 120, channels: 2, start: Date().addingTimeInterval(-3600))
            var one = makeChannel("test://color/ff0000?size=160x90&fps=30&gop=15", number: 1, name: "One")
            one.guideID = "bench1.example"
            var two = makeChannel("test://color/00ff00?size=160x90&fps=30&gop=15", number: 2, name: "Two & Co")
            two.guideID = "bench2.example"
            let lineup = Lineup(channels: [one, two], guideURLs: [source])
            let guide = try Guide(stateDirectory: directory.appendingPathComponent("first").path, lineup: lineup, logger: testLogger)
            try await guide.refresh()
            let harness = try await ServeHarness(channels: [one, two], policy: .none, guide: guide, guideURLs: [source])

            // Another box takes the exported lineup's ids (tvg-id) and guide URL.
            let m3u = try await runTool("curl", ["-s", harness.url("/lineup.m3u")])
            #expect(m3u.text.hasPrefix("#EXTM3U url-tvg=\"\(harness.url("/guide.xml"))\""), "\(m3u.text)")
            let exported = try #require(LineupLoader.check(text: m3u.text, file: "export.m3u", format: .m3u).lineup)
            #expect(exported.guideURLs == [harness.url("/guide.xml")])
            let second = try Guide(stateDirectory: directory.appendingPathComponent("second").path, lineup: exported, logger: testLogger)
            try await second.refresh()
            let from = Date(), to = Date().addingTimeInterval(6 * 3600)
            let original = try guide.programmes(channelIDs: ["ch1", "ch2"], from: from, to: to)
            let copied = try second.programmes(channelIDs: ["ch1", "ch2"], from: from, to: to)
            #expect((original["ch1"]?.count ?? 0) > 3)
            #expect(copied["ch1"]?.map(\.title) == original["ch1"]?.map(\.title))
            #expect(copied["ch2"]?.map(\.start) == original["ch2"]?.map(\.start))
            #expect(copied["ch2"]?.first?.description == original["ch2"]?.first?.description)
            #expect(copied["ch2"]?.first?.ratings == original["ch2"]?.first?.ratings)
            await harness.stop()
        }
    }
}
