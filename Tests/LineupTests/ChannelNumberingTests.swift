import Foundation
import Testing
@testable import Lineup

@Suite struct ChannelNumberingTests {
    private func numbers(_ spec: [String?]) -> LineupReport {
        let channels = spec.enumerated().map { index, number in
            "  - {name: C\(index), source: test://smpte\(number.map { ", number: \"\($0)\"" } ?? "")}"
        }
        return checkYAML("channels:\n" + channels.joined(separator: "\n"))
    }

    @Test func unnumberedChannelsFollowTheHighestSoFar() throws {
        let lineup = try numbers([nil, nil, "10", nil, "3", nil, "12.2", nil]).get()
        #expect(lineup.channels.map(\.name) == ["C0", "C1", "C4", "C2", "C3", "C5", "C6", "C7"])
        #expect(lineup.channels.map(\.number.description) == ["1", "2", "3", "10", "11", "12", "12.2", "13"])
    }

    @Test func subChannelsSortAfterTheirMajor() throws {
        let lineup = try numbers(["9.2", "9", "9.1", "009.10"]).get()
        #expect(lineup.channels.map(\.number.description) == ["9", "9.1", "9.2", "9.10"])
    }

    @Test func implicitNumberCanCollideWithALaterExplicitOne() {
        let report = numbers([nil, "1"])
        #expect(report.errorLines == ["3: duplicate channel number 1: 'C1' on line 3 and 'C0' on line 2"])
    }

    @Test func aPathOrFieldThatIsNoNumberIsRefusedInOneWording() throws {
        #expect(try ChannelNumber.inPath("9%2E1") == ChannelNumber(9, 1))
        #expect(throws: LineupValueError(.channelNumber, "'seven' is not a channel number; use a number such as 7 or 9.1")) {
            try ChannelNumber.reading("seven")
        }
        #expect(throws: LineupValueError(.channelNumber, ChannelNumber.notANumber(""))) { try ChannelNumber.inPath(nil) }
    }

    @Test func hugeNumbersAreRejectedNotOverflowed() {
        let report = numbers(["\(Int.max)", nil])
        #expect(report.errorLines == ["2: channel number \(Int.max) is too large (at most 999999)"])
    }

    @Test func subChannelAndAutomaticNumbersStayWithinTheLimit() throws {
        let sub = LineupLoader.check(text: "channels:\n  - number: 9.99999999999\n    name: A\n    source: udp://@239.0.0.1:1234\n", format: .yaml)
        #expect(sub.diagnostics.first?.message == "channel number 9.99999999999: the sub-channel after the dot is at most 999999")
        let auto = LineupLoader.check(text: """
            channels:
              - number: 999999
                name: Last
                source: udp://@239.0.0.1:1234
              - name: Overflow
                source: udp://@239.0.0.1:1235
            """, format: .yaml)
        #expect(auto.lineup == nil)
        #expect(auto.diagnostics.contains { $0.message == "'Overflow' has no number and none is left after 999999; give it a number" && $0.line == 5 })
    }
}
