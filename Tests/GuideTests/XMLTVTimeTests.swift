import Foundation
import Testing
@testable import Guide

@Suite struct XMLTVTimeTests {
    @Test func offsetsAreHonoured() {
        let utc19 = XMLTVTime.parse("20261122190000 +0000")
        #expect(utc19 == Int64(utc("2026-11-22T19:00:00Z").timeIntervalSince1970))
        #expect(XMLTVTime.parse("20261122200000 +0100") == utc19)
        #expect(XMLTVTime.parse("20261122140000 -0500") == utc19)
        #expect(XMLTVTime.parse("20261123003000 +0530") == utc19)
        #expect(XMLTVTime.parse("20261122190000") == utc19)
        #expect(XMLTVTime.parse("20261122190000Z") == utc19 || XMLTVTime.parse("20261122190000 Z") == utc19)
    }

    @Test func shortFormsMeanTheStartOfTheUnit() {
        #expect(XMLTVTime.parse("200006031633") == Int64(utc("2000-06-03T16:33:00Z").timeIntervalSince1970))
        #expect(XMLTVTime.parse("20000603") == Int64(utc("2000-06-03T00:00:00Z").timeIntervalSince1970))
        #expect(XMLTVTime.parse("2024022912 +0100") == Int64(utc("2024-02-29T11:00:00Z").timeIntervalSince1970))
    }

    @Test func garbageIsNotATime() {
        for text in ["", "tomorrow", "2026112", "20261322190000", "20261122250000", "20261122190000 +01", "20261122190000 +01000",
                     "20261122190000 CET", "２０２６１１２２"] {
            #expect(XMLTVTime.parse(text) == nil, "\(text)")
        }
    }

    @Test func formatRoundTrips() {
        for seconds: Int64 in [0, 951_782_400, 1_795_374_000, -86_400 * 365] {
            #expect(XMLTVTime.parse(XMLTVTime.format(seconds, offsetMinutes: 60)) == seconds)
            #expect(XMLTVTime.parse(XMLTVTime.format(seconds, offsetMinutes: -330)) == seconds)
        }
    }
}
