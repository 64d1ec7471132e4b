import Foundation
import Guide
import Lineup
import Testing
@testable import Recordings

@Suite struct RecordingGuideTests {
    @Test func lineupChannelsTakeTheirGuideChannelsProgrammesWithDerivedIDs() {
        let a = show("News", channel: 1, "2026-11-27T20:00:00Z").programme
        let b = show("Film", channel: 1, "2026-11-27T18:00:00Z").programme
        let programmes = RecordingGuide.programmes(
            ["bbc1": [a, b]], on: [(ChannelNumber(101), "bbc1"), (ChannelNumber(1), "bbc1"), (ChannelNumber(7), "none")])
        #expect(programmes.map(\.channel) == [1, 1, 101, 101].map { ChannelNumber($0) })
        #expect(programmes.map(\.programme.title) == ["Film", "News", "Film", "News"])
        #expect(programmes[1].id == "1@\(Int64(at("2026-11-27T20:00:00Z").timeIntervalSince1970))")
        let rule = RecordingRule(id: RuleID("news"), title: .exact("News"), channel: ChannelNumber(101))
        #expect(schedule(rules: [rule], programmes).recordings.map(\.programmeID) == [programmes[3].id])
    }
}
