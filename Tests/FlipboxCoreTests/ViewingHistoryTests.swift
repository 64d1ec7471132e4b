import FlipboxCore
import Foundation
import Testing

/// What a box is watched on, hour by hour, on a fixed calendar (UTC).
@Suite struct ViewingHistoryTests {
    let calendar: Calendar = {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "UTC")!
        return c
    }()

    /// 2026-11-23 is a Monday.
    func date(day: Int = 23, _ hour: Int, _ minute: Int = 0) -> Date {
        calendar.date(from: DateComponents(year: 2026, month: 11, day: day, hour: hour, minute: minute))!
    }

    @Test func secondsGoToTheHoursTheyFellIn() throws {
        var history = ViewingHistory()
        history.watched("news", from: date(19, 45), to: date(20, 30), calendar: calendar)
        let row = try #require(history.seconds["news"])
        let monday = 24  // Sunday is 0-23
        #expect(row[monday + 19] == 15 * 60)
        #expect(row[monday + 20] == 30 * 60)
        #expect(row.reduce(0, +) == 45 * 60)
    }

    @Test func surfingPastIsNotWatchingAndNothingCountsMoreThanADay() throws {
        var history = ViewingHistory()
        history.watched("quick", from: date(20, 0), to: date(20, 0).addingTimeInterval(9), calendar: calendar)
        #expect(history.seconds["quick"] == nil)
        history.watched("backwards", from: date(21), to: date(20), calendar: calendar)
        #expect(history.seconds["backwards"] == nil)
        history.watched("left on", from: date(day: 20, 0), to: date(day: 23, 0), calendar: calendar)
        #expect(try #require(history.seconds["left on"]).reduce(0, +) == 24 * 3600, "three days on counts as one")
    }

    @Test func theChannelsUsuallyWatchedAtThisHourComeFirst() {
        var history = ViewingHistory()
        // Monday evenings: the news at 20:00 for three weeks, a film at 21:00 once.
        for day in [9, 16, 23] { history.watched("news", from: date(day: day, 20), to: date(day: day, 20, 40), calendar: calendar) }
        history.watched("film", from: date(day: 23, 21), to: date(day: 23, 22), calendar: calendar)
        history.watched("sport", from: date(day: 22, 20), to: date(day: 22, 21), calendar: calendar)  // a Sunday
        let channels = ["film", "news", "sport", "weather"]
        #expect(history.usual(at: date(day: 30, 20, 10), calendar: calendar, among: channels) == ["news", "film"],
                "next Monday at 20:10: the news, then the film of the hour after (counted half)")
        #expect(history.usual(at: date(day: 29, 20, 10), calendar: calendar, among: channels) == ["sport"], "a Sunday")
        #expect(history.usual(at: date(day: 30, 8), calendar: calendar, among: channels).isEmpty, "nothing is watched at 8")
        #expect(history.usual(at: date(day: 30, 20), calendar: calendar, among: ["weather"]).isEmpty, "only the lineup's channels")
    }

    @Test func whatWasWatchedTwoWeeksAgoCountsHalf() throws {
        var history = ViewingHistory()
        history.watched("old", from: date(day: 2, 20), to: date(day: 2, 21), calendar: calendar)
        history.watched("new", from: date(day: 16, 20), to: date(day: 16, 21), calendar: calendar)
        let old = try #require(history.seconds["old"]?.reduce(0, +))
        #expect(abs(old - 1800) < 1, "an hour two weeks before counts half an hour: \(old)")
        // Two hours watched a month ago lose to one hour watched last week.
        var twoHoursLongAgo = ViewingHistory()
        twoHoursLongAgo.watched("a", from: date(day: 2, 20), to: date(day: 2, 22), calendar: calendar)
        twoHoursLongAgo.watched("b", from: date(day: 23, 20), to: date(day: 23, 21), calendar: calendar)
        #expect(twoHoursLongAgo.usual(at: date(day: 30, 20, 30), calendar: calendar, among: ["a", "b"]).first == "b")
    }

    @Test func aHistoryRoundTripsAndABadFileIsRefusedRowByRow() throws {
        var history = ViewingHistory()
        history.watched("news", from: date(20), to: date(21), calendar: calendar)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode(ViewingHistory.self, from: encoder.encode(history)) == history)
        let bad = #"{"seconds": {"short": [1, 2], "negative": [\#(Array(repeating: "-1", count: 168).joined(separator: ","))], "good": [\#(Array(repeating: "2", count: 168).joined(separator: ","))]}}"#
        let read = try decoder.decode(ViewingHistory.self, from: Data(bad.utf8))
        #expect(Set(read.seconds.keys) == ["good"])
    }
}
