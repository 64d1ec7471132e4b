@testable import Control
import FlipboxCore
import Foundation
import Hummingbird
import HummingbirdTesting
import Lineup
import Switcher
import Testing

/// `/metrics` counts flips and cards from the player's events and every HTTP answer.
@Suite("Control API: metrics")
struct MetricsEndpointTests {
    static let red = ChannelSummary(FakePlayer.red)

    @Test func countsEventsRequestsAndChannels() async throws {
        let events: [PlayerEvent] = [
            .flipCompleted(FlipResult(requestID: 1, outcome: .completed, channel: Self.red, latency: .milliseconds(18), path: .warm)),
            .flipCompleted(FlipResult(requestID: 2, outcome: .completed, channel: Self.red, latency: .milliseconds(1400), path: .cold)),
            .flipCompleted(FlipResult(requestID: 3, outcome: .superseded, channel: Self.red, supersededBy: 4)),
            .cardShown(requestID: 2, channel: Self.red, kind: "tuning"),
            .channelState(channel: Self.red, state: .stalled(reason: "no data")),
        ]
        let player = FakePlayer(events: events, eventsOpenFor: .seconds(30))
        try await SameOriginTests.live(player) { port in
            _ = try await RawHTTPClient.exchange(port: port, "GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1")
            _ = try await RawHTTPClient.exchange(port: port, "GET /api/v1/nothing/7 HTTP/1.1\r\nHost: 127.0.0.1")
            var text = ""
            for _ in 0..<50 {
                let answer = try await RawHTTPClient.exchange(port: port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1")
                #expect(answer.status == 200)
                #expect(answer.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
                text = answer.body
                if text.contains("flipbox_cards_shown_total") { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(text.contains(#"flipbox_flips_total{path="warm",outcome="completed"} 1"#), "\(text)")
            #expect(text.contains(#"flipbox_flips_total{path="cold",outcome="completed"} 1"#))
            #expect(text.contains(#"flipbox_flips_total{path="none",outcome="superseded"} 1"#))
            #expect(text.contains(#"flipbox_flip_duration_seconds_bucket{path="warm",outcome="completed",le="0.025"} 1"#))
            #expect(text.contains(#"flipbox_flip_duration_seconds_bucket{path="cold",outcome="completed",le="1.0"} 0"#))
            #expect(text.contains(#"flipbox_flip_duration_seconds_bucket{path="cold",outcome="completed",le="2.0"} 1"#))
            #expect(text.contains(#"flipbox_cards_shown_total{kind="tuning"} 1"#))
            #expect(text.contains(#"flipbox_channel_state_changes_total{state="stalled"} 1"#))
            #expect(text.contains(#"flipbox_channels{state="hot"} 1"#))
            #expect(text.contains(#"flipbox_channels{state="stalled"} 1"#))
            #expect(text.contains(#"flipbox_channels{state="warm"} 0"#))
            #expect(text.contains(#"flipbox_http_requests_total{route="/api/v1/status",method="GET",status="200"} 1"#))
            #expect(text.contains(#"flipbox_http_requests_total{route="unmatched",method="GET",status="404"} 1"#))
        }
    }

    @Test func labelsFromFreeTextStayTame() {
        #expect(ControlMetrics.label("No Signal!") == "no_signal_")
        #expect(ControlMetrics.label("") == "none")
        #expect(ControlMetrics.label(String(repeating: "x", count: 100)).count == 32)
    }
}
