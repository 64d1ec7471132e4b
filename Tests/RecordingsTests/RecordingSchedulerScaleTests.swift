import Foundation
import Guide
import Lineup
import Testing
@testable import Recordings

@Suite struct RecordingSchedulerScaleTests {
    /// Two weeks of hourly programmes on 200 channels (67 200) and ten rules, four of them
    /// patterns: every rule is matched once per programme, not once per question.
    @Test func aTwoWeekGuideOfTwoHundredChannels() {
        let base = at("2026-11-27T00:00:00Z")
        var guide: [GuideProgramme] = []
        guide.reserveCapacity(67_200)
        for channel in 1...200 {
            let number = ChannelNumber(channel)
            for hour in 0..<(14 * 24) {
                let start = base.addingTimeInterval(Double(hour) * 3600)
                let title = hour % 24 == 20 ? "Evening Show \(channel % 5)" : "Programme \(hour % 24)"
                guide.append(GuideProgramme(
                    id: GuideProgramme.derivedID(channel: number, start: start), channel: number,
                    programme: Programme(channel: "c\(channel)", start: start, stop: start.addingTimeInterval(3600), title: title,
                                         episodeXMLTVNS: "0.\(hour / 24).")))
            }
        }
        var rules = (0..<6).map { RecordingRule(id: RuleID("exact\($0)"), title: .exact("Nothing \($0)")) }
        rules += (0..<3).map { RecordingRule(id: RuleID("pattern\($0)"), title: .pattern("^Nope \($0)")) }
        rules.append(RecordingRule(id: RuleID("evening"), title: .pattern("^Evening Show 3$"), channel: ChannelNumber(3),
                                   newEpisodesOnly: true))
        let result = RecordingScheduler.derive(ScheduleInput(rules: rules, programmes: guide, timeZone: utcZone, now: base))
        #expect(result.recordings.count == 14, "one a day on channel 3")
        #expect(result.notes.filter { $0.kind == .ruleMatchedNothing }.count == 9)
    }
}
