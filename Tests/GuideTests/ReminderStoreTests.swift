import Foundation
import Testing
@testable import Guide
import Lineup

@Suite struct ReminderStoreTests {
    @Test func remindersAreKeptAcrossReopeningAndOnePerChannelAndStart() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let store = try ReminderStore(directory: dir.path)
        let match = try store.add(channelID: "sport", title: "The Match", start: start, stop: start.addingTimeInterval(5400))
        let film = try store.add(channelID: "film", title: "Film", start: start.addingTimeInterval(-60), stop: start)
        let again = try store.add(channelID: "sport", title: "The Match (live)", start: start, stop: start.addingTimeInterval(5400))
        #expect(again.id == match.id, "the same channel and start: the same reminder")
        let reopened = try ReminderStore(directory: dir.path)
        #expect(try reopened.all().map(\.title) == ["Film", "The Match (live)"], "earliest first, kept on disk")
        #expect(try reopened.all().first?.start == start.addingTimeInterval(-60))
        #expect(try reopened.remove(id: film.id))
        #expect(try !reopened.remove(id: film.id), "gone")
        #expect(try reopened.all().map(\.channelID) == ["sport"])
    }

    @Test func anUnwritableDirectorySaysWhere() {
        do {
            _ = try ReminderStore(directory: "/proc/flipbox-no")
            Issue.record("/proc is not writable")
        } catch {
            #expect(error.code == .storage && error.description.contains("reminders"), "\(error)")
        }
    }
}

