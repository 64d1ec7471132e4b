import Testing
@testable import Lineup

/// Two readings of a lineup compared channel by channel, by id.
@Suite struct LineupChangeTests {
    func channel(_ id: String, _ number: Int, _ name: String, _ url: String = "udp://@239.0.0.1:1234", group: String? = nil) -> Channel {
        Channel(id: id, number: ChannelNumber(number), name: name, sources: [url], group: group)
    }

    @Test func eachKindOfChangeIsFoundByTheChannelsID() {
        let old = Lineup(channels: [channel("a", 1, "One"), channel("b", 2, "Two"), channel("c", 3, "Three"), channel("d", 4, "Four")])
        let new = Lineup(channels: [channel("a", 1, "One"), channel("b", 5, "Two"), channel("c", 3, "Three HD", "udp://@239.0.0.9:1234"),
                                    channel("d", 4, "Four", group: "Films"), channel("e", 6, "Six")])
        let change = LineupChange(from: old, to: new)
        #expect(change.added.map(\.id) == ["e"])
        #expect(change.removed.isEmpty)
        #expect(change.renumbered.map(\.after.id) == ["b"])
        #expect(change.renamed.map(\.after.id) == ["c"])
        #expect(change.readdressed.map(\.after.id) == ["c"])
        #expect(change.otherwise.map(\.after.id) == ["d"], "a new group is another detail")
        #expect(!change.keepsTheChannels)
        #expect(change.summary == "1 channel added (6 Six), 1 channel renumbered (2 Two → 5), 1 channel renamed (3 Three → Three HD), 1 channel with new stream addresses, 1 channel with other details (logo, group, guide id…)")
    }

    @Test func aLineupComparedWithItselfHasNoChangeAndNewAddressesKeepTheChannels() {
        let lineup = Lineup(channels: [channel("a", 1, "One"), channel("b", 2, "Two")])
        #expect(LineupChange(from: lineup, to: lineup).isEmpty)
        let moved = Lineup(channels: [channel("a", 1, "One", "http://other.example/a.ts"), channel("b", 2, "Two")])
        let change = LineupChange(from: lineup, to: moved)
        #expect(change.keepsTheChannels && !change.isEmpty)
        #expect(change.summary == "1 channel with new stream addresses")
    }

    @Test func manyChannelsAreNamedAFewAtATime() {
        let old = Lineup(channels: [channel("a", 1, "One")])
        let new = Lineup(channels: [channel("a", 1, "One")] + (2...7).map { channel("n\($0)", $0, "New \($0)") })
        #expect(LineupChange(from: old, to: new).summary == "6 channels added (2 New 2, 3 New 3, 4 New 4 and 3 more)")
        #expect(LineupChange(from: new, to: old).summary == "6 channels removed (2 New 2, 3 New 3, 4 New 4 and 3 more)")
    }

    @Test func theRefreshSettingReadsLikeTheGuides() {
        func read(_ text: String) -> LineupReport {
            checkYAML("""
                settings:
                  lineup-refresh: \(text)
                channels:
                  - {number: 1, name: One, source: "test://smpte"}
                """)
        }
        #expect(read("6h").lineup?.settings.lineupRefresh == .every(.seconds(6 * 3600)))
        #expect(read("off").lineup?.settings.lineupRefresh == .off)
        #expect(LineupSettings().lineupRefresh == .every(.seconds(12 * 3600)))
        let bad = read("soon")
        #expect(bad.lineup == nil)
        #expect(bad.diagnostics.map(\.message) == ["settings.lineup-refresh \"soon\" is not a duration; write e.g. 12h, 90m, 1d or off"], "\(bad.diagnostics)")
    }
}
