import Control
import Foundation
import Guide
import Hummingbird
import HummingbirdTesting
import Lineup
import Testing

/// `GET /api/v1/guide`, answered from a real ``Guide`` imported from an XMLTV file.
@Suite struct GuideRoutesTests {
    /// Three channels, each with one programme 19:00-20:00 UTC titled after it.
    static let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <tv>
          <channel id="one.example"><display-name>One</display-name></channel>
          <channel id="two.example"><display-name>Two</display-name></channel>
          <channel id="three.example"><display-name>Three</display-name></channel>
          <programme channel="one.example" start="20261122190000 +0000" stop="20261122200000 +0000"><title>First Show</title></programme>
          <programme channel="two.example" start="20261122190000 +0000" stop="20261122200000 +0000"><title>Second Show</title></programme>
          <programme channel="three.example" start="20261122190000 +0000" stop="20261122200000 +0000"><title>Third Show</title></programme>
        </tv>
        """

    /// Runs `test` against the API of a box whose guide holds ``xml`` for channels 1, 2 and 9.1.
    func withGuideAPI(_ test: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("guide-routes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("guide.xml")
        try Self.xml.write(to: file, atomically: true, encoding: .utf8)
        let lineup = Lineup(channels: [
            Channel(id: "one", number: ChannelNumber(1), name: "One", sources: ["test://snow"], guideID: "one.example"),
            Channel(id: "two", number: ChannelNumber(2), name: "Two", sources: ["test://snow"], guideID: "two.example"),
            Channel(id: "three", number: ChannelNumber("9.1")!, name: "Three", sources: ["test://snow"], guideID: "three.example"),
        ], guideURLs: [file.path])
        let guide = try Guide(stateDirectory: dir.path, lineup: lineup, logger: quietLogger)
        try await guide.refresh()
        let app = try makeControlApplication(player: FakePlayer(), configuration: ControlServerConfiguration(), guide: guide, logger: quietLogger)
        try await app.test(.router, test)
    }

    static let evening = "from=2026-11-22T19:00:00Z&to=2026-11-22T20:00:00Z"

    /// The numbers and first programme titles of the answer's channels, in order.
    func listed(_ response: TestResponse) throws -> [String] {
        let channels = try jsonObject(response)["channels"] as? [[String: Any]] ?? []
        return channels.map { channel in
            let title = (channel["programmes"] as? [[String: Any]])?.first?["title"] as? String ?? "-"
            return "\(channel["number"] as? String ?? "?") \(title)"
        }
    }

    @Test func channelsRestrictsTheAnswerToThoseChannels() async throws {
        try await withGuideAPI { client in
            let all = try await client.execute(uri: "/api/v1/guide?\(Self.evening)", method: .get)
            #expect(all.status == .ok)
            #expect(try listed(all) == ["1 First Show", "2 Second Show", "9.1 Third Show"])

            let some = try await client.execute(uri: "/api/v1/guide?\(Self.evening)&channels=9.1,%201", method: .get)
            #expect(some.status == .ok)
            #expect(try listed(some) == ["9.1 Third Show", "1 First Show"], "in the order asked, nothing else")

            let one = try await client.execute(uri: "/api/v1/guide?\(Self.evening)&channels=2", method: .get)
            #expect(try listed(one) == ["2 Second Show"])
        }
    }

    @Test func aBadChannelsValueIs400WithWhatIsWrong() async throws {
        try await withGuideAPI { client in
            let word = try await client.execute(uri: "/api/v1/guide?\(Self.evening)&channels=1,news", method: .get)
            #expect(word.status == .badRequest)
            #expect(try jsonObject(word)["error"] as? String
                    == "channels: 'news' is not a channel number (write e.g. 7 or 9.1, comma separated)")

            let missing = try await client.execute(uri: "/api/v1/guide?\(Self.evening)&channels=1,42", method: .get)
            #expect(missing.status == .badRequest)
            #expect(try jsonObject(missing)["error"] as? String == "channels: there is no channel 42 in the lineup")

            let empty = try await client.execute(uri: "/api/v1/guide?\(Self.evening)&channels=1,,2", method: .get)
            #expect(empty.status == .badRequest)
            #expect(try jsonObject(empty)["error"] as? String == "channels: '' is not a channel number (write e.g. 7 or 9.1, comma separated)")
        }
    }
}
