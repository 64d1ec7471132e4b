import Foundation
@testable import Lineup
import Testing

/// The lineup's `breaks` rules: parsing with messages, and which breaks fall in a window.
@Suite struct BreakScheduleTests {
    static let midnight = Date(timeIntervalSince1970: TimeInterval(1_800_000_000 - 1_800_000_000 % 86_400))

    @Test func everyPeriodCountsFromMidnightUTC() throws {
        let schedule = try BreakSchedule(parsing: "every 30m at 28m for 2m")
        let window = Self.midnight.addingTimeInterval(3600)...Self.midnight.addingTimeInterval(7200)
        let breaks = schedule.breaks(in: window)
        let offsets: [TimeInterval] = breaks.map { $0.start.timeIntervalSince(Self.midnight) }
        #expect(offsets == [5280, 7080])
        #expect(breaks.allSatisfy { $0.duration == 120 })
        // A break already running at the window's start is in it.
        let late = Self.midnight.addingTimeInterval(3600 + 29 * 60)...Self.midnight.addingTimeInterval(3600 + 31 * 60)
        #expect(schedule.breaks(in: late).count == 1)
        #expect(schedule.description == "every 1800s at 1680s for 120s")
    }

    @Test func oneBreakAtAMomentAndSeveralRules() throws {
        let schedule = try BreakSchedule(parsing: "2026-11-22T20:15:00Z for 90s; every 20s at 10s for 5s")
        let start = try Date.ISO8601FormatStyle().parse("2026-11-22T20:14:00Z")
        let breaks = schedule.breaks(in: start...start.addingTimeInterval(60))
        #expect(breaks.count == 3, "three every 20 s; the one at 20:15 starts at the window's end: \(breaks)")
        #expect(breaks.contains { $0.start == start.addingTimeInterval(60) && $0.duration == 90 } == false, "20:15 is the window's end")
        #expect(schedule.breaks(in: start...start.addingTimeInterval(61)).contains { $0.duration == 90 })
    }

    @Test func badRulesSayWhatIsWrong() {
        for (text, words) in [("every 30m at 40m for 2m", "within the period"), ("every 30m for 2m", "not understood"),
                              ("yesterday for 2m", "ISO 8601"), ("every 0s at 0s for 1s", "not a period"), ("", "empty")] {
            #expect {
                try BreakSchedule(parsing: text)
            } throws: { error in
                guard let error = error as? LineupValueError else { return false }
                return error.code == .breaks && error.message.contains(words)
            }
        }
    }

    @Test func aYAMLLineupCarriesBreaksAndLinearBreaks() throws {
        let yaml = """
            channels:
              - number: 1
                name: News
                source: test://smpte
                linear-breaks: true
                breaks:
                  - every 30m at 28m for 2m
                  - 2026-11-22T20:15:00Z for 90s
              - number: 2
                name: Sport
                source: test://ball
                breaks: every 1h at 99m for 1m
            """
        var log = DiagnosticLog(file: "lineup.yaml")
        let draft = YAMLLineupParser.parse(yaml, log: &log)
        #expect(draft.channels[0].attributes["linear-breaks"] == "true")
        #expect(draft.channels[0].attributes["breaks"] == "every 30m at 28m for 2m; 2026-11-22T20:15:00Z for 90s")
        let channel = Channel(id: "news", number: ChannelNumber(1), name: "News", sources: [], attributes: draft.channels[0].attributes)
        #expect(channel.linearBreaks && channel.breakSchedule?.rules.count == 2)
        #expect(draft.channels[1].attributes["breaks"] == nil)
        #expect(log.entries.count == 1 && log.entries[0].message.contains("99m"), "\(log.entries.map(\.message))")
    }
}
