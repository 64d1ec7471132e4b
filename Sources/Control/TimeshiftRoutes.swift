import Foundation
import Headend
import Hummingbird
import Switcher

/// The timeshift endpoints, on the channel on screen:
///
/// - `GET /api/v1/timeshift`: where it stands (position, buffer start, live edge, paused).
/// - `POST /api/v1/timeshift/pause`, `/resume`, `/toggle`, `/live`.
/// - `POST /api/v1/timeshift/seek?by=-30s` (signed: `-90`, `-1m30s`, `+10s`) or `?to=<ISO 8601 time>`.
///
/// A bad `by`/`to` is 400; timeshift off, nothing on screen or nothing buffered there is 409;
/// a decoder that cannot start is 503. Every answer that moved carries the new status.
struct TimeshiftRoutes<Player: TimeshiftControl> {
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
                switch (query.get("by"), query.get("to")) {
                case (let by?, nil):
                    guard let amount = Self.signedDuration(by) else {
                        return JSONResponse.error(.badRequest, "by must be a signed time such as -30s, -1m30s, +10s or -90 (seconds), not '\(by)'")
                    }
                    return await Self.answer(player, .seekBy(amount))
                case (nil, let to?):
                    guard let time = try? Date.ISO8601FormatStyle(includingFractionalSeconds: to.contains(".")).parse(to) else {
                        return JSONResponse.error(.badRequest, "to must be an ISO 8601 time such as 2026-11-22T20:15:00Z, not '\(to)'")
                    }
                    return await Self.answer(player, .seekTo(time))
                default:
                    return JSONResponse.error(.badRequest, "give exactly one of by (e.g. -30s) or to (an ISO 8601 time)")
                }
            },
        ])
    }

    private static func answer(_ player: Player, _ command: TimeshiftCommand) async -> Response {
        await JSONResponse.answer { try await player.timeshift(command) }
    }

    /// `-30s`, `+10s`, `-1m30s`, `-1h`, `-90` (seconds), `-500ms`; at most a day either way.
    static func signedDuration(_ text: String) -> Duration? { ClipTime.signedDuration(text) }
}
