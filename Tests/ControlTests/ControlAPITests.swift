import FlipboxCore
import Control
import Foundation
import Hummingbird
import HummingbirdTesting
import Lineup
import Switcher
import Testing

@Suite("Control API: endpoints and JSON shapes")
struct ControlAPITests {
    @Test func statusShape() async throws {
        let last = FlipResult(requestID: 3, outcome: .completed, channel: ChannelSummary(FakePlayer.red),
                              latency: .microseconds(18_400), path: .hot)
        let player = FakePlayer(status: PlayerStatus(
            channel: FakePlayer.red, output: OutputFormat(width: 1920, height: 1080, fps: 25, sink: "kms"),
            uptime: .milliseconds(61_900), lastFlip: last
        ))
        try await withControlAPI(player) { client in
            let response = try await client.execute(uri: "/api/v1/status", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json; charset=utf-8")
            let json = try jsonObject(response)
            #expect(Set(json.keys) == ["channel", "output", "uptimeSeconds", "lastFlip", "now", "next", "locked", "video", "audio", "subtitles", "radio", "pools"])
            #expect(json["video"] is NSNull && (json["audio"] as? [Any])?.isEmpty == true && json["radio"] as? Bool == false,
                    "a player that knows nothing of the stream says so")
            let channel = try #require(json["channel"] as? [String: Any])
            #expect(channel["number"] as? String == "7")
            #expect(channel["name"] as? String == "Red Test")
            #expect(channel["id"] as? String == "red")
            let output = try #require(json["output"] as? [String: Any])
            #expect(output["width"] as? Int == 1920)
            #expect(output["height"] as? Int == 1080)
            #expect(output["fps"] as? Int == 25)
            #expect(output["sink"] as? String == "kms")
            #expect(json["uptimeSeconds"] as? Int == 61)
            let flip = try #require(json["lastFlip"] as? [String: Any])
            #expect(flip["ok"] as? Bool == true)
            #expect(flip["requestId"] as? Int == 3)
            #expect(flip["outcome"] as? String == "completed")
            #expect(flip["latencyMs"] as? Double == 18.4)
            #expect(flip["path"] as? String == "hot")
            #expect(flip["error"] is NSNull)
        }
    }

    @Test func statusWithoutChannelHasNulls() async throws {
        let player = FakePlayer(status: PlayerStatus(
            channel: nil, output: OutputFormat(width: 1280, height: 720, fps: 30, sink: "headless"),
            uptime: .zero, lastFlip: nil
        ))
        try await withControlAPI(player) { client in
            let json = try jsonObject(try await client.execute(uri: "/api/v1/status", method: .get))
            #expect(json["channel"] is NSNull)
            #expect(json["lastFlip"] is NSNull)
            #expect(json["uptimeSeconds"] as? Int == 0)
        }
    }

    @Test func channelsShape() async throws {
        try await withControlAPI(FakePlayer()) { client in
            let response = try await client.execute(uri: "/api/v1/channels", method: .get)
            #expect(response.status == .ok)
            let channels = try #require(try jsonObject(response)["channels"] as? [[String: Any]])
            #expect(channels.count == 2)
            let red = channels[0]
            #expect(Set(red.keys) == ["number", "name", "id", "group", "logo", "state", "detail", "reason", "sources", "thumbnail", "favourite", "hidden",
                                      "video", "audio", "subtitles", "radio", "now", "next", "locked"])
            #expect(red["now"] is NSNull && red["locked"] is NSNull, "no guide, not locked")
            let video = try #require(red["video"] as? [String: Any])
            #expect(video["codec"] as? String == "H.264" && video["width"] as? Int == 1920 && video["interlaced"] as? Bool == true)
            #expect(video["colour"] as? String == "BT.709" && video["colourAssumed"] as? Bool == false && video["hdr"] as? Bool == false)
            #expect(video["peakLuminance"] is NSNull, "an SDR stream says no peak")
            let audio = try #require(red["audio"] as? [[String: Any]])
            #expect(audio.map { $0["language"] as? String } == ["deu", "eng"] && audio.map { $0["playing"] as? Bool } == [false, true])
            #expect(audio.first?["codec"] as? String == "AC-3" && audio.last?["channels"] as? Int == 6 && audio.last?["track"] as? Int == 2)
            #expect(red["radio"] as? Bool == false)
            let subtitles = try #require(red["subtitles"] as? [[String: Any]])
            #expect(subtitles.map { $0["format"] as? String } == ["DVB", "CC1"] && subtitles.map { $0["language"] as? String } == ["deu", nil])
            #expect(subtitles.map { $0["showing"] as? Bool } == [true, false] && subtitles.map { $0["track"] as? Int } == [1, 2])
            #expect(red["thumbnail"] as? String == "/api/v1/channels/7/thumbnail.jpg", "channel 7 is playing: it has a picture")
            #expect(red["number"] as? String == "7")
            #expect(red["group"] as? String == "Tests")
            #expect(red["logo"] as? String == "/logos/red.png")
            #expect(red["state"] as? String == "hot")
            #expect(red["detail"] as? String == "playing")
            #expect(red["reason"] is NSNull)
            #expect(red["sources"] as? Int == 1)
            let news = channels[1]
            #expect(news["number"] as? String == "9.1")
            #expect(news["group"] is NSNull)
            #expect(news["logo"] is NSNull)
            #expect(news["state"] as? String == "stalled")
            #expect(news["detail"] as? String == "stalled: no data for 5 s")
            #expect(news["reason"] as? String == "no data for 5 s")
            #expect(news["sources"] as? Int == 2)
            #expect(news["thumbnail"] is NSNull, "a stalled channel has no picture to show")
        }
    }

    @Test func flipEndpointsSendTheirRequests() async throws {
        let player = FakePlayer()
        try await withControlAPI(player) { client in
            for uri in ["/api/v1/flip/next", "/api/v1/flip/previous", "/api/v1/recall", "/api/v1/tune/7",
                        "/api/v1/tune/9.1", "/api/v1/tune/id/news.one", "/api/v1/tune/id/a%20b"] {
                let response = try await client.execute(uri: uri, method: .post)
                #expect(response.status == .ok, "\(uri)")
            }
        }
        #expect(player.flipRequests == [
            .next, .previous, .recall, .tune(ChannelNumber(7)), .tune(ChannelNumber(9, 1)),
            .tuneID("news.one"), .tuneID("a b"),
        ])
    }

    @Test func completedFlipShape() async throws {
        try await withControlAPI(FakePlayer()) { client in
            let response = try await client.execute(uri: "/api/v1/flip/next", method: .post)
            #expect(response.status == .ok)
            let json = try jsonObject(response)
            #expect(Set(json.keys) == ["ok", "requestId", "outcome", "channel", "latencyMs", "path", "error", "failure", "supersededBy", "interstitialShown"])
            #expect(json["ok"] as? Bool == true)
            #expect(json["requestId"] as? Int == 1)
            #expect(json["outcome"] as? String == "completed")
            #expect((json["channel"] as? [String: Any])?["name"] as? String == "Red Test")
            #expect(json["latencyMs"] as? Double == 18)
            #expect(json["path"] as? String == "warm")
            #expect(json["error"] is NSNull)
            #expect(json["supersededBy"] is NSNull)
        }
    }

    @Test func malformedChannelNumberIs400() async throws {
        let player = FakePlayer()
        try await withControlAPI(player) { client in
            for uri in ["/api/v1/tune/abc", "/api/v1/tune/-3", "/api/v1/tune/9.", "/api/v1/tune/1.2.3"] {
                let response = try await client.execute(uri: uri, method: .post)
                #expect(response.status == .badRequest, "\(uri)")
                let message = try jsonObject(response)["error"] as? String
                #expect(message?.contains("not a channel number") == true, "\(uri)")
            }
        }
        #expect(player.flipRequests.isEmpty)
    }

    @Test(arguments: [
        ("unknown channel 12", FlipFailure.unknownChannel, HTTPResponse.Status.notFound),
        ("unknown channel id 'x'", .unknownChannel, .notFound),
        ("timed out after 5 s waiting for a keyframe", .timedOut, .gatewayTimeout),
        ("source failed: connection refused", .sourceFailed, .badGateway),
        ("no channel to go back to", .nothingToFlipTo, .conflict),
    ])
    func failedFlipStatus(error: String, failure: FlipFailure, status: HTTPResponse.Status) async throws {
        try await withControlAPI(FakePlayer(script: FakePlayer.failing(error, failure))) { client in
            let response = try await client.execute(uri: "/api/v1/tune/12", method: .post)
            #expect(response.status == status)
            let json = try jsonObject(response)
            #expect(json["ok"] as? Bool == false)
            #expect(json["outcome"] as? String == "failed")
            #expect(json["error"] as? String == error)
            #expect(json["failure"] as? String == failure.rawValue)
            #expect(json["channel"] is NSNull)
            #expect(json["latencyMs"] is NSNull)
            #expect(json["path"] is NSNull)
        }
    }

    @Test func supersededFlipIs409() async throws {
        let player = FakePlayer(script: { _ in
            FlipResult(requestID: 0, outcome: .superseded, channel: ChannelSummary(FakePlayer.news), supersededBy: 9)
        })
        try await withControlAPI(player) { client in
            let response = try await client.execute(uri: "/api/v1/flip/next", method: .post)
            #expect(response.status == .conflict)
            let json = try jsonObject(response)
            #expect(json["outcome"] as? String == "superseded")
            #expect(json["supersededBy"] as? Int == 9)
            #expect(json["ok"] as? Bool == false)
        }
    }

    @Test func snapshotIsPNG() async throws {
        let player = FakePlayer()
        try await withControlAPI(player) { client in
            let plain = try await client.execute(uri: "/api/v1/snapshot.png", method: .get)
            #expect(plain.status == .ok)
            #expect(plain.headers[.contentType] == "image/png")
            #expect(Array(plain.body.readableBytesView) == FakePlayer.pngBytes)
            let scaled = try await client.execute(uri: "/api/v1/snapshot.png?width=320", method: .get)
            #expect(scaled.status == .ok)
        }
        #expect(player.snapshotRequests == [nil, 320])
    }

    @Test func badSnapshotWidthIs400() async throws {
        let player = FakePlayer()
        try await withControlAPI(player) { client in
            for width in ["abc", "15", "7681", "-1", "2.5", ""] {
                let response = try await client.execute(uri: "/api/v1/snapshot.png?width=\(width)", method: .get)
                #expect(response.status == .badRequest, "width=\(width)")
                #expect(try jsonObject(response)["error"] is String)
            }
            for width in ["16", "7680"] {
                let response = try await client.execute(uri: "/api/v1/snapshot.png?width=\(width)", method: .get)
                #expect(response.status == .ok, "width=\(width)")
            }
        }
        #expect(player.snapshotRequests == [16, 1280], "7680 is accepted and capped at the output's 1280")
    }

    @Test func snapshotFailureIs503() async throws {
        let player = FakePlayer(snapshot: .failure(.init(description: "no frame yet")))
        try await withControlAPI(player) { client in
            let response = try await client.execute(uri: "/api/v1/snapshot.png", method: .get)
            #expect(response.status == .serviceUnavailable)
            #expect(try jsonObject(response)["error"] as? String == "no snapshot: no frame yet")
        }
    }

    @Test func unknownRouteIsJSON404() async throws {
        try await withControlAPI(FakePlayer()) { client in
            for uri in ["/api/v1/nope", "/favicon.ico", "/api/v1/tune"] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .notFound, "\(uri)")
                #expect(response.headers[.contentType] == "application/json; charset=utf-8")
                #expect((try jsonObject(response)["error"] as? String)?.contains("no such endpoint") == true)
            }
        }
    }

    @Test func wrongMethodIs405() async throws {
        let player = FakePlayer()
        try await withControlAPI(player) { client in
            let get = try await client.execute(uri: "/api/v1/flip/next", method: .get)
            #expect(get.status == .methodNotAllowed)
            #expect(get.headers[.allow] == "POST")
            #expect(try jsonObject(get)["error"] is String)
            let post = try await client.execute(uri: "/api/v1/status", method: .post)
            #expect(post.status == .methodNotAllowed)
            #expect(post.headers[.allow] == "GET")
        }
        #expect(player.flipRequests.isEmpty)
    }

    @Test func webRemotePage() async throws {
        try await withControlAPI(FakePlayer()) { client in
            let response = try await client.execute(uri: "/", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            let html = String(buffer: response.body)
            #expect(html.hasPrefix("<!doctype html>"))
            #expect(html.contains("/api/v1/events"))
            #expect(html.contains("/api/v1/snapshot.png"))
            #expect(!html.contains("http://") && !html.contains("https://"), "the page loads nothing from elsewhere")
        }
    }
}

@Suite("Control API: flip scope")
struct FlipScopeAPITests {
    @Test func setsTheScopeAndRefusesUnknownOnes() async throws {
        let player = FakePlayer()
        try await withControlAPI(player) { client in
            let ok = try await client.execute(uri: "/api/v1/flip-scope/favourites", method: .post)
            #expect(ok.status == .ok)
            #expect(try jsonObject(ok)["scope"] as? String == "favourites")
            let group = try await client.execute(uri: "/api/v1/flip-scope/group", method: .post)
            #expect(group.status == .ok)
            let bad = try await client.execute(uri: "/api/v1/flip-scope/sport", method: .post)
            #expect(bad.status == .badRequest)
            #expect((try jsonObject(bad)["error"] as? String)?.contains("'sport' is not a flip scope") == true)
        }
        #expect(player.scopeRequests == [.favourites, .group])
    }
}
