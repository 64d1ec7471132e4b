import Testing
@testable import Lineup

/// A lineup taking later readings of its source in place: every channel keeps its slot.
@Suite struct LineupSlotsTests {
    func channel(_ id: String, _ number: Int, _ name: String, _ url: String = "udp://@239.0.0.1:1234") -> Channel {
        Channel(id: id, number: ChannelNumber(number), name: name, sources: [url])
    }

    @Test func aReadingKeepsEverySlotAppendsNewChannelsAndRetiresGoneOnes() {
        let start = Lineup(channels: [channel("a", 1, "One"), channel("b", 2, "Two"), channel("c", 3, "Three"), channel("d", 4, "Four")])
        #expect(start.listed == [0, 1, 2, 3] && start.retired.isEmpty)
        // b gone, c renamed, d renumbered to 0 (now first), e new as 2 (between a and c).
        let reading = Lineup(channels: [channel("a", 1, "One"), channel("c", 3, "Three HD"), channel("d", 0, "Four"), channel("e", 2, "Two New")])
        let (taken, slots) = start.taking(reading)
        #expect(taken.channels.map(\.id) == ["a", "b", "c", "d", "e"], "old slots stay where they were; the new one is appended")
        #expect(slots.added == [4] && slots.retired == [1] && slots.changed.sorted() == [2, 3])
        #expect(taken.retired == [1])
        #expect(taken.listed == [3, 0, 4, 2], "listed in number order: 0 Four, 1 One, 2 Two New, 3 Three HD")
        #expect(taken.listedChannels.map(\.name) == ["Four", "One", "Two New", "Three HD"])
        #expect(taken.channels[2].name == "Three HD" && taken.channels[3].number == ChannelNumber(0))
        // A retired channel is found by neither number nor id; its slot still holds it.
        #expect(taken.channel(number: ChannelNumber(2))?.id == "e")
        #expect(taken.channel(id: "b") == nil && taken.index(id: "b") == nil && !taken.isListed(1))
        #expect(taken.channels[1].id == "b")
        // Settings and the rest stay as read at start.
        #expect(taken.settings == start.settings && taken.file == start.file)
    }

    @Test func aRetiredChannelThatComesBackTakesItsSlotAgain() {
        let start = Lineup(channels: [channel("a", 1, "One"), channel("b", 2, "Two")])
        let (without, _) = start.taking(Lineup(channels: [channel("a", 1, "One")]))
        let (back, slots) = without.taking(Lineup(channels: [channel("a", 1, "One"), channel("b", 2, "Two")]))
        #expect(slots.added.isEmpty && slots.retired.isEmpty && slots.changed == [1])
        #expect(back.channels.count == 2 && back.retired.isEmpty && back.listed == [0, 1])
        #expect(back.channel(number: ChannelNumber(2))?.id == "b")
    }

    @Test func aNewChannelMayTakeTheNumberOfOneRetired() {
        let start = Lineup(channels: [channel("a", 1, "One"), channel("b", 2, "Two")])
        let (taken, slots) = start.taking(Lineup(channels: [channel("a", 1, "One"), channel("z", 2, "Zed")]))
        #expect(slots.added == [2] && slots.retired == [1])
        #expect(taken.index(of: ChannelNumber(2)) == 2, "number 2 is the new channel's, not the retired one's")
        #expect(taken.listed == [0, 2])
    }

    @Test func theSameReadingTwiceChangesNothing() {
        let start = Lineup(channels: [channel("a", 1, "One")])
        let reading = Lineup(channels: [channel("a", 1, "One"), channel("b", 2, "Two")])
        let (taken, first) = start.taking(reading)
        #expect(!first.isEmpty)
        let (again, second) = taken.taking(reading)
        #expect(second.isEmpty && again == taken)
    }
}
