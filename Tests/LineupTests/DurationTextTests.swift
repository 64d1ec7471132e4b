import Testing
@testable import Lineup

/// The one reader of durations that people type (settings, seeks, clip ends) and the one way
/// durations are spoken in messages.
@Suite struct DurationTextTests {
    @Test func compactDurations() {
        #expect(Duration(compact: "90s") == .seconds(90))
        #expect(Duration(compact: "1h30m") == .seconds(5400))
        #expect(Duration(compact: "500ms") == .milliseconds(500))
        #expect(Duration(compact: "24h") == .seconds(86_400))
        #expect(Duration(compact: "1.5s") == .milliseconds(1500))
        #expect(Duration(compact: "1m6.25s") == .milliseconds(66_250))
        for bad in ["", "25h", "10", "5d", "1.5m", "1.2345s", "1.s", ".5s", "-5s", "s", "1234567s"] {
            #expect(Duration(compact: bad) == nil, "\(bad)")
        }
    }

    @Test func signedDurations() {
        #expect(Duration(signed: "-30s") == .seconds(-30))
        #expect(Duration(signed: "+10s") == .seconds(10))
        #expect(Duration(signed: "-1m30s") == .seconds(-90))
        #expect(Duration(signed: "-90") == .seconds(-90))
        #expect(Duration(signed: "45") == .seconds(45))
        #expect(Duration(signed: " -500ms ") == .milliseconds(-500))
        #expect(Duration(signed: "-86400") == .seconds(-86_400))
        #expect(Duration(signed: "-1.5s") == .milliseconds(-1500))
        #expect(Duration(signed: "-6.62") == .milliseconds(-6620))
        for bad in ["", "-", "+", "-86401", "--5s", "-5d", "yesterday", "-1.5.5", "-.5", "-1.2345s", "-9999999"] {
            #expect(Duration(signed: bad) == nil, "\(bad)")
        }
    }

    @Test func spokenDurations() {
        #expect(Duration.seconds(2).spoken == "2 s")
        #expect(Duration.milliseconds(1500).spoken == "1.5 s")
        #expect(Duration.milliseconds(250).spoken == "250 ms")
        #expect(Duration.seconds(95).spoken == "95 s")
        #expect(Duration.seconds(300).spoken == "5 min")
        #expect(Duration.seconds(150).spoken == "2 min 30 s")
        #expect(Duration.milliseconds(29_200).spokenWholeSecondsUp == "30 s")
    }
}
