import Foundation
import TestSupport
import Testing

/// The lineup's XMLTV guide reaches the player: `/api/v1/status` says what is on now and next.
@Suite(.serialized) struct GuideStatusTests {
    static func xmltvTime(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(secondsFromGMT: 0)
        f.dateFormat = "yyyyMMddHHmmss"
        return f.string(from: date) + " +0000"
    }

    @Test func statusCarriesNowAndNextFromTheGuide() async throws {
        try await offPool {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-guide-e2e-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let now = Date()
            let start = now.addingTimeInterval(-1800), change = now.addingTimeInterval(1800), end = now.addingTimeInterval(5400)
            let xml = """
                <?xml version="1.0" encoding="UTF-8"?>
                <tv>
                  <channel id="news.example"><display-name>Flipbox News</display-name></channel>
                  <programme channel="news.example" start="\(Self.xmltvTime(start))" stop="\(Self.xmltvTime(change))">
                    <title>Evening News</title><desc>The day's stories.</desc><rating system="VCHIP"><value>TV-G</value></rating>
                  </programme>
                  <programme channel="news.example" start="\(Self.xmltvTime(change))" stop="\(Self.xmltvTime(end))">
                    <title>Late Film</title>
                  </programme>
                </tv>
                """
            try xml.write(to: dir.appendingPathComponent("guide.xml"), atomically: true, encoding: .utf8)
            let yaml = """
                guide: guide.xml
                channels:
                  - number: 1
                    name: Flipbox News
                    id: news.example
                    source: test://color/ff0000?size=160x90&fps=15&gop=15
                """
            let lineup = dir.appendingPathComponent("lineup.yaml")
            try yaml.write(to: lineup, atomically: true, encoding: .utf8)
            let box = try FlipboxProcess(arguments: [lineup.path], port: freePort())
            defer { box.stop() }
            var last: [String: Any] = [:]
            let found = box.waitForStatus(seconds: 30) { status in
                last = status
                return (status["now"] as? [String: Any])?["title"] as? String == "Evening News"
            }
            #expect(found, "status: \(last), log: \(box.logText.suffix(600))")
            let nowJSON = last["now"] as? [String: Any]
            #expect(nowJSON?["rating"] as? String == "TV-G")
            #expect(nowJSON?["description"] as? String == "The day's stories.")
            #expect((last["next"] as? [String: Any])?["title"] as? String == "Late Film")
            // Every channel's entry says what is on it too, and that it is not locked.
            let entry = (box.json("GET", "/api/v1/channels").object["channels"] as? [[String: Any]])?.first
            #expect((entry?["now"] as? [String: Any])?["title"] as? String == "Evening News", "\(String(describing: entry))")
            #expect((entry?["next"] as? [String: Any])?["title"] as? String == "Late Film")
            #expect(entry?["locked"] is NSNull)
        }
    }
}
