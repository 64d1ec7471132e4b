import Foundation
import Switcher
import Testing

/// The on-screen guide's moves with made-up times.
@Suite struct GuideNavigatorTests {
    // 20:10 on a day, in seconds since 1970 (a multiple of 1800 plus 600).
    let now = Date(timeIntervalSince1970: 1_800_000_000 + 600)
    var halfHour: Date { GuideNavigator.aligned(now) }
    func t(_ minutes: Double) -> Date { halfHour.addingTimeInterval(minutes * 60) }
    var row: [ProgrammeSummary] {
        [ProgrammeSummary(title: "News", start: t(-30), end: t(30)),
         ProgrammeSummary(title: "Film", start: t(30), end: t(150)),
         ProgrammeSummary(title: "Late", start: t(150), end: t(210))]
    }

    @Test func opensOnTheProgrammeOnNowOnTheChannelOnScreen() {
        let g = GuideNavigator(channelCount: 12, rowsPerPage: 5, current: 7, now: now)
        #expect(g.row == 7 && g.visibleRows == 5..<10)
        #expect(g.windowStart == halfHour && g.focused(in: row)?.title == "News")
    }

    @Test func leftAndRightWalkTheProgrammesAndTheWindowFollows() {
        var g = GuideNavigator(channelCount: 3, rowsPerPage: 5, current: 0, now: now)
        g.move(.right, programmes: row, now: now)
        #expect(g.focused(in: row)?.title == "Film" && g.windowStart == halfHour)
        g.move(.right, programmes: row, now: now)
        #expect(g.focused(in: row)?.title == "Late")
        #expect(g.windowStart == t(120), "Late starts past the two hours shown: the window moves, half an hour before it")
        g.move(.left, programmes: row, now: now)
        #expect(g.focused(in: row)?.title == "Film")
        g.move(.left, programmes: row, now: now)
        #expect(g.focused(in: row)?.title == "News" && g.windowStart == halfHour)
        g.move(.left, programmes: row, now: now)
        #expect(g.focused(in: row)?.title == "News" && g.focusTime == now, "never before the programme on now")
        // A row without programmes moves in half hours.
        g.move(.right, programmes: [], now: now)
        #expect(g.focusTime == t(30))
    }

    @Test func upDownAndPagesKeepTheFocusedRowOnThePage() {
        var g = GuideNavigator(channelCount: 12, rowsPerPage: 5, current: 4, now: now)
        g.move(.down, programmes: [], now: now)
        #expect(g.row == 5 && g.visibleRows == 1..<6)
        g.move(.pageDown, programmes: [], now: now)
        #expect(g.row == 10 && g.visibleRows.contains(10))
        g.move(.pageDown, programmes: [], now: now)
        #expect(g.row == 11 && g.visibleRows.contains(11), "the last channel, not past it")
        g.move(.pageUp, programmes: [], now: now)
        #expect(g.row == 6 && g.visibleRows.contains(6))
        for _ in 0..<20 { g.move(.up, programmes: [], now: now) }
        #expect(g.row == 0 && g.firstRow == 0)
    }

    @Test func timePassingKeepsTheFocusOutOfThePast() {
        var g = GuideNavigator(channelCount: 1, rowsPerPage: 5, current: 0, now: now)
        let later = now.addingTimeInterval(3600)
        g.tick(now: later)
        #expect(g.focusTime == later && g.windowStart == GuideNavigator.aligned(later))
    }

    /// A channel whose provider keeps its past goes back to its archive's start, and no
    /// further; a row without one brings the focus back to now.
    @Test func aRowWithAnArchiveGoesBackToItsStart() {
        let past = [ProgrammeSummary(title: "Morning", start: t(-150), end: t(-90)),
                    ProgrammeSummary(title: "Noon", start: t(-90), end: t(-30))] + row
        var g = GuideNavigator(channelCount: 3, rowsPerPage: 5, current: 0, now: now)
        let archive = t(-120)
        g.move(.left, programmes: past, now: now, earliest: archive)
        #expect(g.focused(in: past)?.title == "Noon" && g.windowStart == t(-90), "the window follows into the past")
        g.move(.left, programmes: past, now: now, earliest: archive)
        #expect(g.focusTime == archive && g.focused(in: past)?.title == "Morning", "the archive's start, not Morning's")
        g.move(.left, programmes: past, now: now, earliest: archive)
        #expect(g.focusTime == archive, "no further than the archive")
        g.tick(now: now.addingTimeInterval(60), earliest: archive)
        #expect(g.focusTime == archive, "time passing leaves a past the row can play")
        // Down to a row without an archive: back to now.
        g.move(.down, programmes: past, now: now, earliest: archive)
        g.keep(after: nil, now: now)
        #expect(g.row == 1 && g.focusTime == now && g.windowStart == halfHour)
    }
}
