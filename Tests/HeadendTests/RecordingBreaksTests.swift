import Foundation
@testable import Headend
import Lineup
import Testing

/// A recording's breaks, pure: which the recorder keeps (clipped to what it wrote, bounded),
/// the marks they make in its playback, and where skipping them lands. Times are offsets from
/// `t0`; no clock, no media.
@Suite struct RecordingBreaksTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static func t(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }
    static func cued(_ from: Double, _ to: Double) -> DateInterval { DateInterval(start: t(from), end: t(to)) }
    static func scte(_ from: Double, _ to: Double) -> TimeshiftBreak { TimeshiftBreak(start: t(from), end: t(to), origin: .scte35) }

    @Test func theRecordingKeepsTheBreaksInsideWhatItWroteClipped() throws {
        let span = Self.t(100)...Self.t(400)
        let breaks = RecordingBreaks.within(span, cued: [Self.cued(0, 50), Self.cued(90, 130), Self.cued(200, 230), Self.cued(390, 450),
                                                         Self.cued(500, 560), Self.cued(150, 150)], schedule: nil)
        #expect(breaks == [Self.scte(100, 130), Self.scte(200, 230), Self.scte(390, 400)],
                "before and after the span left out, those across its ends clipped (an open one runs to its end), empty ones gone")
        // The lineup's schedule: every 2 min at 1 min for 30 s (t0 is a whole number of 2 min): 60-90 s and 180-210 s.
        let schedule = try BreakSchedule(parsing: "every 2m at 1m for 30s")
        let lineup = RecordingBreaks.within(Self.t(0)...Self.t(240), cued: [], schedule: schedule).filter { $0.origin == .lineup }
        #expect(lineup.map(\.start) == [Self.t(60), Self.t(180)] && lineup.map(\.end) == [Self.t(90), Self.t(210)], "\(lineup)")
        let many = (0..<2000).map { Self.cued(Double($0), Double($0) + 0.5) }
        #expect(RecordingBreaks.within(Self.t(0)...Self.t(3000), cued: many, schedule: nil).count == RecordingBreaks.limit)
    }

    @Test func eachBreakMarksItsStartAndEndAndTheMarksLeadOutOfIt() {
        let span = Self.t(0)...Self.t(600)
        let marks = Headend.recordingMarkers(span: span, title: "Match", programme: Self.t(60)...Self.t(540),
                                             breaks: [Self.scte(200, 290), Self.scte(0, 10)])
        #expect(marks.map(\.time) == [0, 10, 60, 200, 290, 540].map(Self.t), "\(marks)")
        #expect(marks.filter { $0.kind == .adBreak }.map(\.name) == ["End of break", "Break", "End of break"])
        let times = marks.map(\.time)
        #expect(TimeshiftNavigation.next(times, from: Self.t(230)) == Self.t(290), "next from inside a break: its end")
        #expect(TimeshiftNavigation.previous(times, from: Self.t(230)) == Self.t(200), "previous from inside a break: its start")
        #expect(TimeshiftNavigation.previous(times, from: Self.t(201)) == Self.t(60), "just after its start: the mark before")
    }

    @Test func skippingJumpsEachBreakOnceAndPlaysOneTheViewerWentInto() {
        var skipping = BreakSkipping(breaks: [Self.scte(300, 360), Self.scte(100, 130), Self.scte(130, 150), Self.scte(140, 145)])
        skipping.moved(to: Self.t(0))
        #expect(skipping.jump(at: Self.t(99.9)) == nil, "before the break: plays on")
        #expect(skipping.jump(at: Self.t(100.2)) == Self.t(150), "at its start: to its end, over the one right after")
        #expect(skipping.jump(at: Self.t(100.4)) == nil, "once: the next look does not jump again")
        // Back before it: the viewer sees it this time.
        skipping.moved(to: Self.t(90))
        #expect(skipping.jump(at: Self.t(101)) == nil && skipping.jump(at: Self.t(135)) == nil)
        // A seek into a break: it plays, the next one is skipped.
        skipping.moved(to: Self.t(310))
        #expect(skipping.jump(at: Self.t(320)) == nil)
        var fresh = BreakSkipping(breaks: [Self.scte(300, 360)])
        fresh.moved(to: Self.t(200))
        #expect(fresh.jump(at: Self.t(320)) == nil, "far past its start (paused, a slow machine): not jumped back into")
        #expect(fresh.jump(at: Self.t(303)) == Self.t(360), "within reach of its start")
        var none = BreakSkipping(breaks: [])
        #expect(none.jump(at: Self.t(0)) == nil)
    }
}
