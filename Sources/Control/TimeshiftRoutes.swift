import Foundation
import Guide
import Headend
import Hummingbird
import Lineup
import Switcher

/// The timeshift endpoints, on the channel on screen:
///
/// - `GET /api/v1/timeshift`: where it stands (position, buffer start, live edge, paused).
/// - `POST /api/v1/timeshift/pause`, `/resume`, `/toggle`, `/live`.
/// - `POST /api/v1/timeshift/seek?by=-30s` (signed: `-90`, `-1m30s`, `+10s`), `?to=<ISO 8601 time>`
///   or `?marker=previous|next`.
/// - `POST /api/v1/timeshift/markers?at=<ISO 8601 time>&name=...` (both optional), `DELETE /api/v1/timeshift/markers/{id}`.
///
/// - `POST /api/v1/catchup` with `{"channel": "7", "programme": "2026-11-22T19:00:00Z"}` (the
///   programme's start, or any moment as `at`): flips to the channel and plays it from then out
///   of its provider's archive. 404 for an unknown channel, 409 for a channel without an archive
///   or a moment outside it, 502 when the archive does not play.
///
/// - `POST /api/v1/recordings/{id}/play?from=resume|start|<ISO 8601 time>` (default `resume`),
///   `&skip-breaks=true|false` (default false): plays a recording on screen, where it was left,
///   from its programme's start, or from a moment, jumping over its ad breaks when asked; the
///   timeshift endpoints then act on it (`live` goes back to its channel). 404 for an unknown
///   recording, 409 for one with nothing written yet.
///
/// A bad `by`/`to` is 400; timeshift off, nothing on screen or nothing buffered there is 409;
/// a decoder that cannot start is 503. Every answer that moved carries the new status.
struct TimeshiftRoutes<Player: TimeshiftControl & TimeshiftMarkersControl> {
    let player: Player

    func register(on table: APIRouteTable) {
        let player = self.player
        table.on("/api/v1/timeshift", [
            .get: { _, _ in
                guard let status = await player.timeshiftStatus() else {
                    return JSONResponse.error(.conflict, "timeshift is off or no channel is on screen (start with --timeshift 30m)")
                }
                return JSONResponse.make(.ok, status)
            },
        ])
        for (name, command) in [("pause", TimeshiftCommand.pause), ("resume", .resume), ("toggle", .togglePause), ("live", .live)] {
            table.on("/api/v1/timeshift/\(name)", [.post: { _, _ in await Self.answer(player, command) }])
        }
        table.on("/api/v1/timeshift/seek", [
            .post: { request, _ in
                let query = request.uri.queryParameters
                switch (query.get("by"), query.get("to"), query.get("marker")) {
                case (nil, nil, let marker?):
                    switch marker {
                    case "previous": return await Self.answer(player, .previousMarker)
                    case "next": return await Self.answer(player, .nextMarker)
                    default: return JSONResponse.error(.badRequest, "marker must be previous or next, not '\(marker)'")
                    }
                case (let by?, nil, nil):
                    guard let amount = Duration(signed: by) else {
                        return JSONResponse.error(.badRequest, "by must be a signed time such as -30s, -1m30s, +10s or -90 (seconds), not '\(by)'")
                    }
                    return await Self.answer(player, .seekBy(amount))
                case (nil, let to?, nil):
                    guard let time = try? Date.ISO8601FormatStyle(includingFractionalSeconds: to.contains(".")).parse(to) else {
                        return JSONResponse.error(.badRequest, "to must be an ISO 8601 time such as 2026-11-22T20:15:00Z, not '\(to)'")
                    }
                    return await Self.answer(player, .seekTo(time))
                default:
                    return JSONResponse.error(.badRequest, "give exactly one of by (e.g. -30s), to (an ISO 8601 time) or marker (previous or next)")
                }
            },
        ])
        registerMarkers(on: table)
        registerPlayback(on: table)
        table.on("/api/v1/catchup", [.post: { request, _ in
            let bytes = try await request.body.collect(upTo: 4096)
            guard let body = try? JSONDecoder().decode(CatchupRequest.self, from: Data(bytes.readableBytesView)),
                  let when = body.programme ?? body.at, body.programme == nil || body.at == nil else {
                return JSONResponse.error(.badRequest, #"the body must be JSON such as {"channel": "7", "programme": "2026-11-22T19:00:00Z"} (the programme's start; or "at" for any moment)"#)
            }
            guard let number = ChannelNumber(body.channel) else {
                return JSONResponse.error(.badRequest, "channel '\(body.channel.prefix(20))' is not a channel number such as 7 or 9.1")
            }
            guard when.count <= 40, let start = GuideTime.parse(when) else {
                return JSONResponse.error(.badRequest, "'\(when.prefix(40))' is not a time in ISO 8601, such as 2026-11-22T19:00:00Z")
            }
            do {
                return JSONResponse.make(.ok, try await player.playFromStart(number, at: start))
            } catch {
                return JSONResponse.failure(error)
            }
        }])
    }

    private func registerPlayback(on table: APIRouteTable) {
        let player = self.player
        table.on("/api/v1/recordings/{id}/play", [.post: { request, context in
            guard let id = RecordingRoutes.id(context.parameters.get("id")) else {
                return JSONResponse.error(.badRequest, "the recording id must be 1 to 200 characters, as GET /api/v1/recordings gives it")
            }
            let start: RecordingStart
            switch request.uri.queryParameters.get("from") {
            case nil, "resume": start = .resume
            case "start": start = .beginning
            case let text?:
                guard text.count <= 40, let at = GuideTime.parse(text) else {
                    return JSONResponse.error(.badRequest, "from must be resume, start or an ISO 8601 time such as 2026-11-22T20:15:00Z, not '\(text.prefix(40))'")
                }
                start = .at(at)
            }
            let skipBreaks: Bool
            switch request.uri.queryParameters.get("skip-breaks") {
            case nil, "false": skipBreaks = false
            case "true": skipBreaks = true
            case let text?:
                return JSONResponse.error(.badRequest, "skip-breaks must be true or false, not '\(text.prefix(40))'")
            }
            do {
                return JSONResponse.make(.ok, try await player.playRecording(id, from: start, skipBreaks: skipBreaks))
            } catch {
                return JSONResponse.failure(error)
            }
        }])
    }

    struct CatchupRequest: Decodable {
        var channel: String
        var programme: String?
        var at: String?
    }

    private func registerMarkers(on table: APIRouteTable) {
        let player = self.player
        table.on("/api/v1/timeshift/markers", [.post: { request, _ in await Self.addMarker(player, request.uri.queryParameters) }])
        table.on("/api/v1/timeshift/markers/{id}", [.delete: { _, context in await Self.removeMarker(player, context.parameters.get("id")) }])
    }

    /// `POST /api/v1/timeshift/markers?at=&name=`: 201 with the marker; 400 for a bad `at` or `name`.
    private static func addMarker(_ markers: Player, _ query: Parameters) async -> Response {
        var time: Date?
        if let at = query.get("at") {
            guard let parsed = try? Date.ISO8601FormatStyle(includingFractionalSeconds: at.contains(".")).parse(at) else {
                return JSONResponse.error(.badRequest, "at must be an ISO 8601 time such as 2026-11-22T20:15:00Z, not '\(at)'")
            }
            time = parsed
        }
        let name = query.get("name").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        if let name, name.isEmpty || name.count > 100 {
            return JSONResponse.error(.badRequest, "name must be 1 to 100 characters")
        }
        do {
            return JSONResponse.make(.created, try await markers.addTimeshiftMarker(at: time, name: name))
        } catch {
            return JSONResponse.failure(error)
        }
    }

    /// `DELETE /api/v1/timeshift/markers/{id}`: 204; 404 when there is no such marker.
    private static func removeMarker(_ markers: Player, _ id: String?) async -> Response {
        guard let id = id.flatMap(Int.init) else { return JSONResponse.error(.badRequest, "the marker id must be a number") }
        do {
            try await markers.removeTimeshiftMarker(id: id)
            return Response(status: .noContent)
        } catch {
            return JSONResponse.failure(error)
        }
    }

    private static func answer(_ player: Player, _ command: TimeshiftCommand) async -> Response {
        await JSONResponse.answer { try await player.timeshift(command) }
    }
}
