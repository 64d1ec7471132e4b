import Foundation
import Lineup
import Testing
@testable import Guide

@Suite struct ExampleGuideTests {
    /// The made-up guide matches every channel of the lineup and has something on now, rated.
    @Test func anExampleGuideCoversTheLineupFromNow() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.file("guide.xml")
        var news = Channel(id: "news", number: ChannelNumber(1), name: "Flipbox News", sources: ["test://smpte"])
        news.guideID = "news.example"
        let film = Channel(id: "film", number: ChannelNumber(2), name: "Film & More", sources: ["test://snow"])
        let lineup = Lineup(channels: [news, film], guideURLs: [file])
        try ExampleGuide.write(to: file, lineup: lineup, hours: 6)
        let guide = try Guide(stateDirectory: dir.path, lineup: lineup)
        let summary = try await guide.refresh()
        #expect(summary.skipped == 0)
        #expect(guide.match.entries.count == 2, "both channels match")
        for id in ["news", "film"] {
            let on = guide.nowNext(channelID: id)
            #expect(on.now != nil && on.next != nil, "\(id): something on now and next")
            #expect(on.now?.ratings.first?.system == "VCHIP")
        }
        let later = guide.nowNext(channelID: "news", at: Date().addingTimeInterval(5 * 3600))
        #expect(later.now != nil, "six hours of programmes")
    }
}
