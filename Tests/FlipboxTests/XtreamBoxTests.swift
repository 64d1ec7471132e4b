import Foundation
import GStreamer
import LoopbackStreams
import Synchronization
import Testing

/// A box started on an Xtream Codes account as a person starts one
/// (`FLIPBOX_XTREAM_PASSWORD_FILE=… flipbox play xtream://viewer@HOST:PORT`), against a panel on
/// loopback whose account allows 2 connections and ends the oldest when a third opens, as IPTV
/// panels do: the box plays the account's channels, knows its limit from the start and never
/// opens a third stream, and its password is in no line it writes.
@Suite(.serialized) struct XtreamBoxTests {
    static let password = "box-Pa55/word"
    static let encoded = "box-Pa55%2Fword"

    /// `player_api.php` of an account with 3 live channels (stream ids 11, 12, 13) in 2 groups.
    static func panel(_ connection: LoopbackHTTPConnection, authorised: Bool) {
        let path = connection.path
        let body: String
        if !path.hasPrefix("/player_api.php") {
            body = path.hasPrefix("/xmltv.php") ? "<?xml version=\"1.0\"?><tv></tv>" : ""
        } else if !authorised || !path.contains("username=viewer&password=\(encoded)") {
            body = #"{"user_info":{"auth":0}}"#
        } else if path.contains("action=get_live_categories") {
            body = #"[{"category_id":"1","category_name":"Reds"},{"category_id":"2","category_name":"Others"}]"#
        } else if path.contains("action=get_live_streams") {
            body = """
            [{"num":1,"name":"Red One","stream_id":11,"category_id":"1","epg_channel_id":"red.one"},
             {"num":2,"name":"Green Two","stream_id":12,"category_id":"2"},
             {"num":3,"name":"Blue Three","stream_id":13,"category_id":"2"}]
            """
        } else {
            body = #"{"user_info":{"username":"viewer","auth":1,"status":"Active","max_connections":"2","active_cons":"0","allowed_output_formats":["ts"]}}"#
        }
        connection.sendHead(status: 200, reason: "OK", contentType: "application/json", length: body.utf8.count)
        _ = connection.send(Array(body.utf8)[...])
    }

    @Test func aBoxOnAnAccountPlaysItsChannelsWithinItsConnections() async throws {
        try GStreamer.initialize()
        var clips: [TransportStreamClip] = []
        for (i, colour) in [0xE01010, 0x10E010, 0x1010E0].enumerated() {
            let format = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 4,
                                    bitrateKbps: 300, toneHz: 400 + 100 * i, colour: UInt32(colour))
            clips.append(try TransportStreamClip(path: try await format.made(in: ClipFormat.cacheDirectory)))
        }
        let authorised = Mutex(true)
        let server = try LivePoolServer(clips: clips, streams: 2, whenFull: .endsOldest, route: { path in
            // /live/viewer/PASSWORD/ID.ts, with the account's password only.
            let parts = path.split(separator: "/")
            guard parts.count == 4, parts[0] == "live", parts[1] == "viewer", parts[2] == Self.encoded,
                  parts[3].hasSuffix(".ts"), let id = Int(parts[3].dropLast(3)), (11...13).contains(id) else { return nil }
            return id - 11
        }, other: { connection in Self.panel(connection, authorised: authorised.withLock { $0 }) })
        defer { server.stop() }
        let host = server.base.dropFirst("http://".count)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-xtream-box-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let passwordFile = directory.appendingPathComponent("xtream.pass").path
        FileManager.default.createFile(atPath: passwordFile, contents: Data("\(Self.password)\n".utf8), attributes: [.posixPermissions: 0o600])
        let state = directory.appendingPathComponent("state")
        let environment = ["FLIPBOX_XTREAM_PASSWORD_FILE": passwordFile]

        let port = freePort()
        let box = try FlipboxProcess(arguments: ["xtream://viewer@\(host)"], port: port, environment: environment, stateDirectory: state)
        defer { box.stop() }
        // Channel 1 (the panel's red) on screen.
        let red = box.waitForSnapshot(seconds: 30) { $0.looks(230, 30, 30, atX: $0.width / 2, y: $0.height / 2, tolerance: 70) }
        #expect(red != nil, "the account's channel 1 shows: \(box.logText.suffix(1500))")
        // The account's limit, known from the start: told by the source, never a third stream.
        let told = box.waitForStatus(seconds: 10) { status in
            ((status["pools"] as? [[String: Any]])?.first).map { ($0["limit"] as? Int) == 2 && ($0["limitOrigin"] as? String) == "told by the source" } ?? false
        }
        #expect(told, "\(box.json("GET", "/api/v1/status").object["pools"] ?? "no pools")")
        // A flip to each other channel shows it.
        for (number, colour) in [(2, (30.0, 230.0, 30.0)), (3, (30.0, 30.0, 230.0))] {
            let flip = box.json("POST", "/api/v1/tune/\(number)")
            #expect(flip.status == 200, "flip to \(number): \(flip.object)")
            let shown = box.waitForSnapshot(seconds: 10) { $0.looks(colour.0, colour.1, colour.2, atX: $0.width / 2, y: $0.height / 2, tolerance: 70) }
            #expect(shown != nil, "channel \(number) shows")
        }
        try await Task.sleep(for: .seconds(2))
        let t0 = server.requests.first?.at ?? .now
        #expect(server.maxOpen <= 2 && server.endedByServer == 0,
                "most open \(server.maxOpen), ended by the panel \(server.endedStreams.map { "\($0.channel + 1) at \($0.at - t0)" }), asked \(server.requests.map { "\($0.channel + 1) at \($0.at - t0)" }): \(box.logText.suffix(3000))")
        box.stop()
        let said = box.logText
        #expect(!said.contains(Self.password) && !said.contains(Self.encoded), "the password is in the box's log")
        #expect(said.contains("xtream://viewer@\(host): account Active") && said.contains("2 connections"), "\(said.prefix(2000))")

        // Next start with the password wrong: the panel refuses, the kept lineup plays, and why is said.
        authorised.withLock { $0 = false }
        let again = try FlipboxProcess(arguments: ["xtream://viewer@\(host)"], port: freePort(), environment: environment, stateDirectory: state)
        defer { again.stop() }
        let kept = again.waitForSnapshot(seconds: 30) { $0.looks(30, 30, 230, atX: $0.width / 2, y: $0.height / 2, tolerance: 70) || $0.looks(230, 30, 30, atX: $0.width / 2, y: $0.height / 2, tolerance: 70) }
        #expect(kept != nil, "the kept lineup plays: \(again.logText.suffix(1500))")
        again.stop()
        #expect(again.logText.contains("refused the username or password") && again.logText.contains("playing its lineup as read at"), "\(again.logText.prefix(2000))")

        // Nothing kept and the password refused: exit status 2 and the reason, without the password.
        let refused = try FlipboxProcess.runToEnd(["play", "xtream://viewer@\(host)", "--output", "headless", "--no-keys",
                                                   "--http", "127.0.0.1:\(freePort())", "--state-dir", directory.appendingPathComponent("empty").path],
                                                  environment: environment)
        #expect(refused.status == 2 && refused.output.contains("refused the username or password") && !refused.output.contains(Self.password),
                "\(refused.status): \(refused.output.suffix(1500))")
    }
}
