import Foundation
import Hummingbird
import Lineup
import Logging
import Switcher

/// The on-screen guide over the API, as the remote's keys drive it (`g`, arrows, OK, red):
///
/// - `GET /api/v1/guide/grid`: open or not, the focused channel and programme.
/// - `POST /api/v1/guide/grid` opens it on the programme on now on the channel on screen;
///   `DELETE` closes it.
/// - `POST /api/v1/guide/grid/move/{up|down|left|right|page-up|page-down}` moves the focus.
/// - `POST /api/v1/guide/grid/select` tunes the focused channel (answered like a flip) and closes it.
/// - `POST /api/v1/guide/grid/remind` sets a reminder for the focused programme.
///
/// The list of recordings likewise (`l`, up and down, OK, Back):
///
/// - `GET /api/v1/recording-list`; `POST` opens it, `DELETE` closes it.
/// - `POST /api/v1/recording-list/move/{up|down|page-up|page-down}` moves the focus.
/// - `POST /api/v1/recording-list/select` plays the focused recording where it was left (the
///   timeshift status) and closes the list; on a conflict choice it takes it and answers what
///   was done (`settled`) with the list as it is now.
///
/// A bad move 400, the guide not open (or a programme that has started) 409.
struct GuideGridRoutes<Player: ProgrammeControl & FlipControl> {
    let player: Player
    let admissions: APIAdmissions
    let logger: Logger

    struct SettledJSON: Encodable, Sendable {
        var settled: String
        var list: RecordingListStatus
    }

    struct ReminderJSON: Encodable {
        var id: Int64
        var channel: ChannelJSON?
        var title: String
        var start: String
    }

    func register(on table: APIRouteTable) {
        let player = self.player, admissions = self.admissions, logger = self.logger
        table.on("/api/v1/guide/grid", [
            .get: { _, _ in JSONResponse.make(.ok, await player.guideStatus()) },
            .post: { _, _ in JSONResponse.make(.ok, await player.openGuide()) },
            .delete: { _, _ in JSONResponse.make(.ok, await player.closeGuide()) },
        ])
        table.on("/api/v1/guide/grid/move/{move}", [.post: { _, context in
            let text = context.parameters.get("move") ?? ""
            guard let move = GuideMove(rawValue: text) else {
                let moves = GuideMove.allCases.map(\.rawValue).joined(separator: ", ")
                return JSONResponse.error(.badRequest, "'\(text)' is not a move of the guide; use \(moves)")
            }
            return await JSONResponse.answer { try await player.moveGuide(move) }
        }])
        table.on("/api/v1/guide/grid/select", [.post: { _, _ in
            await admissions.answerFlip(logger: logger) { try await player.selectGuide() }
        }])
        table.on("/api/v1/guide/grid/record", [.post: { request, _ in
            let series: Bool
            switch request.uri.queryParameters.get("series") {
            case nil, "false": series = false
            case "true": series = true
            case let other?: return JSONResponse.error(.badRequest, "series must be true or false, not '\(other.prefix(20))'")
            }
            return await JSONResponse.answer { ["scheduled": try await player.recordFromGuide(series: series)] }
        }])
        table.on("/api/v1/recording-list", [
            .get: { _, _ in JSONResponse.make(.ok, await player.recordingListStatus()) },
            .post: { _, _ in
                let status = await player.recordingListStatus()
                return JSONResponse.make(.ok, status.open ? status : await player.toggleRecordingList())
            },
            .delete: { _, _ in JSONResponse.make(.ok, await player.closeRecordingList()) },
        ])
        table.on("/api/v1/recording-list/move/{move}", [.post: { _, context in
            let text = context.parameters.get("move") ?? ""
            guard let move = GuideMove(rawValue: text), ![.left, .right].contains(move) else {
                return JSONResponse.error(.badRequest, "'\(text.prefix(20))' is not a move of the list; use up, down, page-up, page-down")
            }
            return await JSONResponse.answer { try await player.moveRecordingList(move) }
        }])
        table.on("/api/v1/recording-list/select", [.post: { _, _ in
            do {
                switch try await player.selectInRecordingList() {
                case .playing(let status): return JSONResponse.make(.ok, status)
                case .settled(let said, let list): return JSONResponse.make(.ok, SettledJSON(settled: said, list: list))
                }
            } catch {
                return JSONResponse.failure(error)
            }
        }])
        table.on("/api/v1/guide/grid/remind", [.post: { _, _ in
            await JSONResponse.answer {
                let reminder = try await player.remindFromGuide()
                let channel = await player.channels().first { $0.channel.id == reminder.channelID }
                return ReminderJSON(id: reminder.id, channel: channel.map { ChannelJSON($0.channel) }, title: reminder.title,
                                    start: reminder.start.formatted(.iso8601))
            }
        }])
    }
}
