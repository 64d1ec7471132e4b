@testable import Control
import Foundation
import Hummingbird
import HummingbirdTesting
import Lineup
import Recordings
import Testing

/// The recording endpoints' requests, read into what the scheduler gets, and their answers in a
/// box without recordings. The endpoints on a running box: FlipboxTests/RecordBoxTests.
@Suite struct RecordingRoutesTests {
    static let lineup = Lineup(channels: [
        Channel(id: "news", number: ChannelNumber(5), name: "News", sources: ["test://snow"]),
    ])

    static func request(_ json: String) throws -> RecordingRequest {
        try JSONDecoder().decode(RecordingRequest.self, from: Data(json.utf8))
    }

    static func refusal(_ json: String) throws -> RecordingRequestError? {
        let decoded = try request(json)
        do {
            _ = try decoded.oneOff(lineup: lineup, id: RecordingID("o-1"))
            return nil
        } catch { return error }
    }

    @Test func aProgrammeIsAskedByItsStartWithItsPadding() throws {
        let asked = try Self.request(#"{"channel": "5", "programme": "2026-11-28T20:00:00Z", "padding": {"before": "2m", "after": 30}, "priority": 7}"#)
            .oneOff(lineup: Self.lineup, id: RecordingID("o-1"))
        #expect(asked.target == .programmeAt(channel: ChannelNumber(5), start: Date(timeIntervalSince1970: 1_795_896_000)))
        #expect(asked.padding == Padding(before: 120, after: 30))
        #expect(asked.priority == 7)
        let byID = try Self.request(#"{"programmeId": "5@1795896000"}"#).oneOff(lineup: Self.lineup, id: RecordingID("o-2"))
        #expect(byID.target == .programme(id: "5@1795896000") && byID.padding == .standard)
    }

    @Test func aTimeRangeIsRecordedExactlyAsAsked() throws {
        let asked = try Self.request(#"{"channel": "5", "start": "2026-11-28T20:00:00Z", "end": "2026-11-28T21:30:00Z", "title": "Match"}"#)
            .oneOff(lineup: Self.lineup, id: RecordingID("o-1"))
        #expect(asked.target == .timeRange(channel: ChannelNumber(5), start: Date(timeIntervalSince1970: 1_795_896_000),
                                           end: Date(timeIntervalSince1970: 1_795_901_400), title: "Match"))
        #expect(asked.padding == .none)
    }

    @Test func badRequestsSayWhichFieldAndWhy() throws {
        #expect(try Self.refusal(#"{"channel": "42", "programme": "2026-11-28T20:00:00Z"}"#)?.code == .unknownChannel)
        #expect(try Self.refusal(#"{"channel": "5", "programme": "tonight"}"#)?.message
                == "programme 'tonight' is not a time in ISO 8601, such as 2026-11-22T20:00:00Z")
        #expect(try Self.refusal(#"{"channel": "5"}"#)?.message.contains("needs programme") == true)
        #expect(try Self.refusal(#"{"channel": "5", "start": "2026-11-28T20:00:00Z", "end": "2026-11-30T20:00:00Z"}"#)?.message
                .contains("24 hours at most") == true)
        #expect(try Self.refusal(#"{"channel": "5", "start": "2026-11-28T20:00:00Z", "end": "2026-11-28T21:00:00Z", "padding": {"after": "1m"}}"#)?
                .message.contains("exactly as asked") == true)
        #expect(try Self.refusal(#"{"channel": "5", "programme": "2026-11-28T20:00:00Z", "padding": {"after": "forever"}}"#)?.message
                == "padding.after 'forever' is not a duration such as 90s, 1m or 1h30m")
        #expect(try Self.refusal(#"{"channel": "5", "programme": "2026-11-28T20:00:00Z", "padding": {"before": -5}}"#)?.message
                == "padding.before must be 0 to 21600 seconds")
        #expect(try Self.refusal(#"{"programmeId": "5@1", "channel": "5"}"#) != nil)
    }

    @Test func aRuleReadsItsDaysWindowAndPadding() throws {
        let json = #"{"title": "News", "channel": "5", "days": ["Mon", "fri"], "window": {"from": "22:00", "to": "2:00"}, "newOnly": true, "keep": 3, "id": "news"}"#
        let rule = try JSONDecoder().decode(RecordingRuleRequest.self, from: Data(json.utf8)).rule(lineup: Self.lineup, id: RuleID("r-1"))
        #expect(rule.id == RuleID("news") && rule.title == .exact("News") && rule.channel == ChannelNumber(5))
        #expect(rule.days == [.monday, .friday])
        #expect(rule.window == TimeWindow(startMinute: 1320, endMinute: 120))
        #expect(rule.newEpisodesOnly && rule.keepLatest == 3 && rule.padding == .standard)
        #expect(RecordingRuleJSON(rule).days == ["mon", "fri"])
        #expect(RecordingRuleJSON(rule).window.map { "\($0.from)-\($0.to)" } == "22:00-02:00")

        func refusal(_ json: String) -> String? {
            do {
                _ = try JSONDecoder().decode(RecordingRuleRequest.self, from: Data(json.utf8)).rule(lineup: Self.lineup, id: RuleID("r-1"))
                return nil
            } catch let e as RecordingRequestError { return e.message } catch { return "\(error)" }
        }
        #expect(refusal(#"{"title": "News", "days": ["someday"]}"#) == "day 'someday' is not one of mon, tue, wed, thu, fri, sat, sun")
        #expect(refusal(#"{"title": "News", "window": {"from": "25:00", "to": "26:00"}}"#) == "window.from '25:00' is not a time of day such as 19:00")
        #expect(refusal(#"{"title": "News", "match": "fuzzy"}"#) == "match must be exact or pattern, not 'fuzzy'")
        #expect(refusal(#"{"title": "News", "id": "a/b"}"#)?.hasPrefix("id 'a/b' must be") == true)
        #expect(refusal(#"{"title": "  "}"#)?.hasPrefix("the body must give the title") == true)
    }

    @Test func withoutRecordingsEveryEndpointSaysSo() async throws {
        try await withControlAPI(FakePlayer()) { client in
            for (method, path) in [(HTTPRequest.Method.get, "/api/v1/recordings"), (.post, "/api/v1/recordings"),
                                   (.delete, "/api/v1/recordings/p:5@1"), (.get, "/api/v1/recording-rules"),
                                   (.post, "/api/v1/recording-rules"), (.delete, "/api/v1/recording-rules/news")] {
                let response = try await client.execute(uri: path, method: method)
                #expect(response.status == .notFound, "\(method) \(path)")
                #expect(try jsonObject(response)["error"] as? String == "this box keeps no recordings: its recordings directory could not be used (the log at start says why)")
            }
        }
    }
}
