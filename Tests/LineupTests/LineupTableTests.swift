import Foundation
import Testing
@testable import Lineup

@Suite struct LineupTableTests {
    @Test func rendersAlignedColumns() throws {
        let lineup = try LineupLoader.parse(text: """
            guide: [http://a/guide.xml, http://b/guide.xml]
            channels:
              - {number: 1, name: Red, id: red, source: test://color/ff0000, group: Test, logo: https://x/r.png}
              - {number: 9.1, name: 中国气象, sources: [udp://@239.0.0.1:1234, test://smpte, test://ball], logo: /no/such.png}
              - {number: 12, name: Plain, source: test://snow}
            """, file: "/tmp/t.yaml", format: .yaml)
        #expect(LineupTable.render(lineup) == """
            No   Name   Group  Source                              Logo    ID
            ---  -----  -----  ----------------------------------  ------  -----
            1    Red    Test   test://color/ff0000                 remote  red
            9.1  中国气象          udp://@239.0.0.1:1234 (+2 backups)  yes     中国气象
            12   Plain         test://snow                         no      plain

            """)
        #expect(LineupTable.summary(lineup) == "3 channels, 1 group, guide: http://a/guide.xml, http://b/guide.xml")
    }

    @Test func longSourcesAreShortened() throws {
        let long = "http://example.com/" + String(repeating: "a", count: 100) + ".ts"
        let lineup = try LineupLoader.parse(text: "#EXTINF:-1,A\n\(long)\n#EXTINF:-1,B\n\(long)\n\(long)", format: .m3u)
        let row = LineupTable.render(lineup).split(separator: "\n")[2]
        #expect(row.contains(String(long.prefix(59)) + "…"))
        #expect(LineupTable.summary(lineup) == "3 channels, 0 groups, guide: none")
    }
}
