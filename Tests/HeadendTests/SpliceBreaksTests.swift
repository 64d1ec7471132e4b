import Foundation
import GStreamer
@testable import Headend
import Testing

extension HeadendTests {
    /// SCTE-35 splice cues to breaks on the wall clock: the mapping from running time, durations,
    /// a splice back in ending a break without one, repeats and cancels. Pure, no pipeline.
    @Suite struct SpliceBreaksRules {
        static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        static func t(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }
        static func rt(_ seconds: Double) -> ClockTime { ClockTime(seconds * 1e9) }

        @Test func runningTimeMapsToTheWallClockThroughTheNewestFrame() {
            // The newest frame had running time 100 s and arrived at t0.
            let anchor = (runningTime: Self.rt(100), at: Self.t0)
            #expect(SpliceBreaks.wallTime(of: Self.rt(104.5), anchor: anchor) == Self.t(4.5), "a cue ahead of the picture")
            #expect(abs(SpliceBreaks.wallTime(of: Self.rt(99.25), anchor: anchor).timeIntervalSince(Self.t(-0.75))) < 1e-6, "one behind it")
            #expect(SpliceBreaks.wallTime(of: 0, anchor: anchor) == Self.t(-100))
        }

        @Test func aCueWithADurationIsABreakOfThatLength() {
            var breaks = SpliceBreaks()
            breaks.apply(SpliceInsert(eventID: 7, outOfNetwork: true, runningTime: 0, duration: Self.rt(30)), at: Self.t(10))
            #expect(breaks.intervals(until: Self.t(12)) == [DateInterval(start: Self.t(10), end: Self.t(40))])
            // Repeated before the splice (encoders do): still one break.
            breaks.apply(SpliceInsert(eventID: 7, outOfNetwork: true, runningTime: 0, duration: Self.rt(30)), at: Self.t(10.2))
            #expect(breaks.all.count == 1)
            // Back in early: the break ends there.
            breaks.apply(SpliceInsert(eventID: 7, outOfNetwork: false, runningTime: 0), at: Self.t(25))
            #expect(breaks.intervals(until: Self.t(50)) == [DateInterval(start: Self.t(10), end: Self.t(25))])
            // A splice back in after the end does not lengthen it.
            breaks.apply(SpliceInsert(eventID: 7, outOfNetwork: false, runningTime: 0), at: Self.t(45))
            #expect(breaks.intervals(until: Self.t(50)) == [DateInterval(start: Self.t(10), end: Self.t(25))])
        }

        @Test func aCueWithoutDurationRunsUntilTheSpliceBackIn() {
            var breaks = SpliceBreaks()
            breaks.apply(SpliceInsert(eventID: 3, outOfNetwork: true, runningTime: 0), at: Self.t(100))
            #expect(breaks.intervals(until: Self.t(90)) == [DateInterval(start: Self.t(100), end: Self.t(100))], "announced, not started")
            #expect(breaks.intervals(until: Self.t(130)) == [DateInterval(start: Self.t(100), end: Self.t(130))], "open: up to the live edge")
            breaks.apply(SpliceInsert(eventID: 3, outOfNetwork: false, runningTime: 0), at: Self.t(160))
            #expect(breaks.intervals(until: Self.t(200)) == [DateInterval(start: Self.t(100), end: Self.t(160))])
            // Another event's splice back in ends whatever break is open.
            breaks.apply(SpliceInsert(eventID: 4, outOfNetwork: true, runningTime: 0), at: Self.t(300))
            breaks.apply(SpliceInsert(eventID: 99, outOfNetwork: false, runningTime: 0), at: Self.t(320))
            #expect(breaks.intervals(until: Self.t(400)).last == DateInterval(start: Self.t(300), end: Self.t(320)))
            // A splice back in with nothing open before it changes nothing.
            breaks.apply(SpliceInsert(eventID: 5, outOfNetwork: false, runningTime: 0), at: Self.t(50))
            #expect(breaks.all.count == 2)
        }

        @Test func aCancelDropsTheBreakAndOldBreaksAreForgotten() {
            var breaks = SpliceBreaks()
            breaks.apply(SpliceInsert(eventID: 1, outOfNetwork: true, runningTime: 0, duration: Self.rt(10)), at: Self.t(0))
            breaks.apply(SpliceInsert(eventID: 2, outOfNetwork: true, runningTime: 0, duration: Self.rt(10)), at: Self.t(60))
            breaks.apply(SpliceInsert(eventID: 2, isCancel: true, outOfNetwork: false, runningTime: nil), at: Self.t(50))
            #expect(breaks.all.map(\.event) == [.insert(1)])
            breaks.apply(SpliceInsert(eventID: 3, outOfNetwork: true, runningTime: 0), at: Self.t(100))
            breaks.forget(before: Self.t(20))
            #expect(breaks.all.map(\.event) == [.insert(3)], "ended before the buffer: gone; open: kept")
        }

        /// time_signal segmentation descriptors: a placement opportunity start with its duration,
        /// a break start ended by its end type; other types (a programme start) make no break; a
        /// segmentation event id does not touch the splice_insert with the same number.
        @Test func segmentationDescriptorsOfBreaksMakeBreaks() {
            var breaks = SpliceBreaks()
            let made1 = breaks.apply(SpliceSegmentation(eventID: 5, typeID: 0x34, duration: Self.rt(20)), at: Self.t(10))
            #expect(made1)
            let made2 = breaks.apply(SpliceSegmentation(eventID: 6, typeID: 0x10), at: Self.t(15))
            #expect(!made2, "a programme start is no break")
            breaks.apply(SpliceInsert(eventID: 7, outOfNetwork: true, runningTime: 0), at: Self.t(40))
            let made3 = breaks.apply(SpliceSegmentation(eventID: 7, typeID: 0x22), at: Self.t(60))
            #expect(made3)
            let made4 = breaks.apply(SpliceSegmentation(eventID: 7, typeID: 0x23), at: Self.t(75))
            #expect(made4)
            #expect(breaks.intervals(until: Self.t(100)) == [DateInterval(start: Self.t(10), end: Self.t(30)),
                                                             DateInterval(start: Self.t(40), end: Self.t(60)),
                                                             DateInterval(start: Self.t(60), end: Self.t(75))])
            let made5 = breaks.apply(SpliceSegmentation(eventID: 5, isCancel: true, typeID: 0), at: Self.t(80))
            #expect(made5)
            #expect(breaks.all.map(\.event) == [.insert(7), .segmentation(7)], "the cancel drops the opportunity")
            let log = SpliceCueLog()
            let signal = SpliceTimeSignal(runningTime: Self.rt(52), segmentations: [SpliceSegmentation(eventID: 1, typeID: 0x36, duration: Self.rt(3))])
            #expect(log.record(.timeSignal(signal), anchor: (runningTime: Self.rt(50), at: Self.t0)) == nil)
            #expect(log.intervals(until: Self.t(10)) == [DateInterval(start: Self.t(2), end: Self.t(5))])
        }

        @Test func theLogRecordsCuesByTheNewestFrameAndTellsEachProblemOnce() {
            let log = SpliceCueLog()
            let anchor = (runningTime: Self.rt(50), at: Self.t0)
            #expect(log.record(.insert(SpliceInsert(eventID: 1, outOfNetwork: true, runningTime: Self.rt(52), duration: Self.rt(4))), anchor: anchor) == nil)
            #expect(log.intervals(until: Self.t(10)) == [DateInterval(start: Self.t(2), end: Self.t(6))])
            // Immediate: at the newest frame.
            _ = log.record(.insert(SpliceInsert(eventID: 2, outOfNetwork: true, runningTime: nil, duration: Self.rt(1))), anchor: (Self.rt(60), Self.t(10)))
            #expect(log.intervals(until: Self.t(20)).last == DateInterval(start: Self.t(10), end: Self.t(11)))
            #expect(log.record(.empty, anchor: anchor) == nil, "splice_null is a heartbeat")
            #expect(log.record(.malformed, anchor: anchor) != nil)
            #expect(log.record(.malformed, anchor: anchor) == nil, "once per channel")
            #expect(log.record(.unsupported("time_signal"), anchor: anchor)?.contains("time_signal") == true)
            #expect(log.record(.unsupported("time_signal"), anchor: anchor) == nil)
            #expect(log.record(.insert(SpliceInsert(eventID: 3, outOfNetwork: true, runningTime: 0)), anchor: nil) != nil, "no video yet")
            #expect(log.record(.malformed as SpliceSectionRejection) != nil && log.record(.malformed as SpliceSectionRejection) == nil)
        }
    }
}
