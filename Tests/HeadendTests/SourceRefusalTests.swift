import Foundation
@testable import Headend
import Testing

extension HeadendTests {
    /// Which answers of a server are refusals for want of a free stream, and how long it asks
    /// to be left alone.
    @Suite struct SourceRefusals {
        @Test func aBusyHDHomeRunRefusesAndItsOtherErrorsAreTheChannels() {
            let busy = SourceRefusal.Response(status: 503, headers: ["x-hdhomerun-error": "805 All Tuners In Use"])
            #expect(busy.isRefusal)
            #expect(busy.deviceError?.code == 805)
            let tuneFailed = SourceRefusal.Response(status: 503, headers: ["x-hdhomerun-error": "806 Tune Failed"])
            #expect(!tuneFailed.isRefusal, "a tuner that cannot tune is the channel's failure")
            #expect(tuneFailed.deviceError?.text == "806 Tune Failed")
            #expect(SourceRefusal.Response(status: 503, headers: [:]).isRefusal, "a plain 503 from an IPTV panel")
            #expect(SourceRefusal.Response(status: 429, headers: [:]).isRefusal)
            #expect(!SourceRefusal.Response(status: 404, headers: [:]).isRefusal)
            #expect(!SourceRefusal.Response(status: 500, headers: ["x-hdhomerun-error": "805"]).isRefusal)
            #expect(SourceRefusal.Response(status: 503, headers: ["x-hdhomerun-error": "99999999999999999999 x"]).deviceError == nil,
                    "a code too long to be one is no code")
        }

        @Test func retryAfterIsSecondsOrADateBoundedToAnHour() throws {
            let now = try #require(ISO8601DateFormatter().date(from: "2026-11-28T10:00:00Z"))
            #expect(SourceRefusal.retryAfter("30", now: now) == .seconds(30))
            #expect(SourceRefusal.retryAfter(" 0 ", now: now) == .zero)
            #expect(SourceRefusal.retryAfter("999999999999", now: now) == .seconds(3600), "bounded")
            #expect(SourceRefusal.retryAfter("99999999999999999999999", now: now) == nil, "too long to be seconds, and no date")
            #expect(SourceRefusal.retryAfter("Sat, 28 Nov 2026 10:02:00 GMT", now: now) == .seconds(120))
            #expect(SourceRefusal.retryAfter("Sat, 28 Nov 2026 09:00:00 GMT", now: now) == .zero, "a date past is no wait")
            #expect(SourceRefusal.retryAfter("Fri, 01 Jan 2100 00:00:00 GMT", now: now) == .seconds(3600))
            #expect(SourceRefusal.retryAfter("-5", now: now) == nil)
            #expect(SourceRefusal.retryAfter("soon", now: now) == nil)
            let response = SourceRefusal.Response(status: 503, headers: ["retry-after": "7"])
            #expect(response.retryAfter(now: now) == .seconds(7))
        }

        @Test func theReasonQuotesTheDevice() {
            let reason = SourceRefusal.reason(url: "http://192.168.1.20:5004/auto/v7", status: 503, text: "Service Unavailable",
                                              deviceError: "805 All Tuners In Use")
            #expect(reason == "192.168.1.20:5004 refused the stream (503 Service Unavailable, 805 All Tuners In Use): all its streams are in use")
        }
    }
}
