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

    @Test func hugeNumbersAreRejectedNotOverflowed() {
        let report = numbers(["\(Int.max)", nil])
        #expect(report.errorLines == ["2: channel number \(Int.max) is too large (at most 999999)"])
    }
}
