import Testing
@testable import Recordings

@Suite struct RecordingRuleTests {
    @Test func aPatternThatDoesNotCompileSaysWhereItFails() {
        let rule = RecordingRule(id: RuleID("news"), title: .pattern("News (at"))
        do {
            try rule.validate()
            Issue.record("the pattern does not compile")
        } catch {
            #expect(error.code == .badPattern)
            #expect(error.message.contains("News (at"), "\(error.message)")
            #expect(error.message.contains("at character 9"), "\(error.message)")
            #expect(error.kind == .badRequest)
        }
    }

    @Test func aPatternThatRepeatsARepetitionIsRefusedBeforeItCanHangTheScheduler() throws {
        for pattern in ["(a+)+$", "(a|a)*b", "x(\\w*)+y", "((ab)*)+", "(?:x+){2,}"] {
            #expect(throws: RecordingError.self, "\(pattern)") { try TitleMatcher(.pattern(pattern)) }
        }
        // What people write still compiles: groups repeated without inner repetition, classes,
        // escaped parentheses, alternatives that are not repeated.
        for pattern in ["(?i)^formula 1", "(News|Sport) at \\d+", "(ab)+c", "[(+*]+x", "\\(a+\\)+", "Doctor Who( \\(\\d{4}\\))?"] {
            #expect(throws: Never.self, "\(pattern)") { _ = try TitleMatcher(.pattern(pattern)) }
        }
        do {
            _ = try TitleMatcher(.pattern("News (a+)+"))
        } catch {
            #expect(error.message.contains("character 9"), "\(error.message)")
        }
    }

    @Test func exactTitlesIgnoreCaseAndSpacesAndPatternsSearch() throws {
        let exact = try TitleMatcher(.exact("  The News "))
        #expect(exact.matches("the news"))
        #expect(!exact.matches("The News at Ten"))
        let pattern = try TitleMatcher(.pattern("(?i)news at \\w+"))
        #expect(pattern.matches("BBC News at Ten"))
        #expect(!pattern.matches("Weather"))
    }

    @Test func boundsAreChecked() {
        let bad: [RecordingRule] = [
            RecordingRule(id: RuleID("a"), title: .exact(" ")),
            RecordingRule(id: RuleID("b"), title: .exact("x"), keepLatest: 0),
            RecordingRule(id: RuleID("c"), title: .exact("x"), priority: 5000),
            RecordingRule(id: RuleID("d"), title: .exact("x"), padding: Padding(before: -1, after: 0)),
            RecordingRule(id: RuleID("e"), title: .exact("x"), padding: Padding(before: 0, after: .infinity)),
            RecordingRule(id: RuleID("f"), title: .exact("x"), window: TimeWindow(startMinute: 0, endMinute: 1440)),
        ]
        for rule in bad {
            #expect(throws: RecordingError.self, "\(rule.id)") { try rule.validate() }
        }
        #expect(Padding.standard == Padding(before: 60, after: 180))
    }

    @Test func timeWindowsWrapPastMidnight() {
        let late = TimeWindow(startMinute: 22 * 60, endMinute: 2 * 60)
        #expect(late.contains(minute: 23 * 60))
        #expect(late.contains(minute: 60))
        #expect(!late.contains(minute: 2 * 60))
        #expect(!late.contains(minute: 12 * 60))
        #expect(Weekday(calendarWeekday: 1) == .sunday && Weekday(calendarWeekday: 2) == .monday)
    }
}
