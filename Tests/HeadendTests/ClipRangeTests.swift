import Foundation
import Headend
import Testing

extension HeadendTests {
    /// The ends of a clip: parsed (`now`, `-60s`, ISO 8601) and checked against the buffer.
    @Suite struct ClipRangeTests {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var buffer: ClosedRange<Date> { start...start.addingTimeInterval(300) }

        @Test func relativeTimesCountFromTheLiveEdge() throws {
            let range = try ClipRange.resolve(from: try #require(ClipTime("-60s")), to: try #require(ClipTime("now")), buffer: buffer)
            #expect(range == start.addingTimeInterval(240)...start.addingTimeInterval(300))
            let iso = try #require(ClipTime("2027-01-15T08:02:00Z"))
            #expect(iso == .absolute(Date(timeIntervalSince1970: 1_800_000_120)))
            #expect(ClipTime("-1m30s") == .relative(.seconds(-90)))
            #expect(ClipTime("yesterday") == nil)
        }

        @Test func rangesOutsideTheBufferNameIt() throws {
            for (from, to) in [("-10m", "now"), ("-10s", "-20s"), ("+10s", "+20s")] {
                let ends = (try #require(ClipTime(from)), try #require(ClipTime(to)))
                do throws(ClipFailure) {
                    _ = try ClipRange.resolve(from: ends.0, to: ends.1, buffer: buffer)
                    Issue.record("\(from)...\(to) accepted")
                } catch {
                    #expect(error.code == .badRange)
                    #expect(error.message.contains("the buffer holds 2027-01-15T08:00:00.000Z to 2027-01-15T08:05:00.000Z"), "\(error.message)")
                }
            }
        }
    }
}
