import Foundation
import Testing
@testable import Headend

@Suite struct RecordingTimelineTests {
    let t0 = Date(timeIntervalSince1970: 1_795_000_000)
    func at(_ s: Double) -> Date { t0.addingTimeInterval(s) }

    @Test func aMomentIsFoundInProportionToItsPartsBytesInWholePackets() {
        // Two parts with a 10 s gap (a restart): 0-100 s in 188 000 bytes, 110-210 s in 376 000.
        let timeline = RecordingTimeline(parts: [.init(start: at(0), end: at(100), bytes: 188_000),
                                                 .init(start: at(110), end: at(210), bytes: 376_000)], fileSize: 564_000)
        #expect(timeline.span == at(0)...at(210))
        #expect(timeline.offset(at: at(0)) == 0)
        #expect(timeline.offset(at: at(50)) == 94_000)
        #expect(timeline.offset(at: at(50)) % 188 == 0)
        #expect(timeline.offset(at: at(33.3)) % 188 == 0)
        // In the gap: the next part's start.
        #expect(timeline.offset(at: at(105)) == 188_000)
        #expect(timeline.moment(at(105)) == at(110))
        #expect(timeline.offset(at: at(160)) == 188_000 + 188_000)
        // Before and after: clamped.
        #expect(timeline.offset(at: at(-60)) == 0)
        #expect(timeline.offset(at: at(500)) == 564_000)
        #expect(timeline.moment(at(500)) == at(210))
    }

    @Test func theLastPartOwnsWhatTheFileHoldsBeyondItsCountAndGrows() {
        // The count lags the writes: the file holds 3 760 bytes more, written until now (+12 s).
        let timeline = RecordingTimeline(parts: [.init(start: at(0), end: at(10), bytes: 18_800)], fileSize: 22_560, growingUntil: at(12))
        #expect(timeline.span == at(0)...at(12))
        #expect(timeline.offset(at: at(12)) == 22_560)
        #expect(timeline.offset(at: at(6)) == 11_280)
    }

    @Test func emptyOrBackwardPartsAreLeftOutAndNothingWrittenHasNoSpan() {
        #expect(RecordingTimeline(parts: [], fileSize: 0).span == nil)
        #expect(RecordingTimeline(parts: [.init(start: at(0), end: at(10), bytes: 0)], fileSize: 0).span == nil)
        let odd = RecordingTimeline(parts: [.init(start: at(0), end: at(10), bytes: 1880), .init(start: at(20), end: at(15), bytes: 1880),
                                            .init(start: at(30), end: at(40), bytes: 1880)], fileSize: 5640)
        #expect(odd.parts.count == 2)
        // The backward part's bytes still come before the third part's in the file.
        #expect(odd.offset(at: at(30)) == 3760)
        // Huge counts do not overflow.
        let huge = RecordingTimeline(parts: [.init(start: at(0), end: at(10), bytes: .max), .init(start: at(20), end: at(30), bytes: .max)], fileSize: .max)
        #expect(huge.span != nil)
        _ = huge.offset(at: at(25))
    }
}
