import Foundation
import Lineup
import Testing
@testable import Recordings

/// Recordings and rules name channels by number: a lineup read again while the box runs moves
/// them with their channels.
@Suite struct RecordingStoreLineupTests {
    func channel(_ id: String, _ number: Int, _ name: String) -> Channel {
        Channel(id: id, number: ChannelNumber(number), name: name, sources: ["udp://@239.0.0.1:1234"])
    }

    @Test func theMovesOfAReadingAreTheRenumberedAndTheGone() {
        let old = Lineup(channels: [channel("a", 5, "Film"), channel("b", 6, "News"), channel("c", 7, "Kids")])
        // Film moves to 6, News leaves, a new channel takes 5.
        let (new, slots) = old.taking(Lineup(channels: [channel("a", 6, "Film"), channel("c", 7, "Kids"), channel("d", 5, "Sport")]))
        let moves = RecordingStore.ChannelMoves(from: old, to: new, slots: slots)
        #expect(moves.renumbered == [ChannelNumber(5): ChannelNumber(6)])
        #expect(moves.removed == [ChannelNumber(6): "News"])
    }

    @Test func scheduledRecordingsAndRulesFollowTheirChannels() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try RecordingStore(directory: dir.path)
        try store.save(RecordingRule(id: RuleID("films"), title: .pattern("^Film"), channel: ChannelNumber(5)))
        try store.save(RecordingRule(id: RuleID("kids"), title: .pattern("^Kids"), channel: ChannelNumber(7)))
        let onFilm = recording("film", channel: 5, "2026-11-27T20:00:00Z")
        let onNews = recording("news", channel: 6, "2026-11-27T21:00:00Z", title: "The News")
        let onKids = recording("kids", channel: 7, "2026-11-27T22:00:00Z")
        let begun = recording("begun", channel: 6, "2026-11-27T19:00:00Z", state: .recording)
        try store.save(Schedule(recordings: [onFilm, onNews, onKids, begun]))

        let failed = try store.followLineup(.init(renumbered: [ChannelNumber(5): ChannelNumber(6)], removed: [ChannelNumber(6): "News"]))
        #expect(failed.map(\.id.rawValue) == ["news"])
        #expect(failed.first?.state == .failed && failed.first?.error == "channel 6 News is no longer in the lineup")
        // Film's recording now names Film's new number (6), not News's old one.
        #expect(try store.recording(RecordingID("film"))?.channel == ChannelNumber(6))
        #expect(try store.recording(RecordingID("film"))?.state == .scheduled)
        #expect(try store.recording(RecordingID("kids"))?.channel == ChannelNumber(7))
        // One begun is the recorder's: left as it is.
        #expect(try store.recording(RecordingID("begun"))?.state == .recording)
        #expect(try store.recording(RecordingID("begun"))?.channel == ChannelNumber(6))
        let rules = Dictionary(uniqueKeysWithValues: try store.rules().map { ($0.id.rawValue, $0.channel) })
        #expect(rules["films"] == ChannelNumber(6) && rules["kids"] == ChannelNumber(7))
        // Nothing to follow: nothing changes.
        #expect(try store.followLineup(.init()).isEmpty)
    }
}
