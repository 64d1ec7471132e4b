import Foundation
import Guide
import Hummingbird
import Lineup
import Switcher

/// Reminders and the proposals they make.
///
/// - `POST /api/v1/reminders` with `{"channel": "5", "programme": "2026-11-22T20:00:00Z"}` (the
///   programme's start, as `/api/v1/guide` gives it): 201 with the reminder; the channel or the
///   programme unknown 404, a programme already started 409, a bad body 400.
/// - `GET /api/v1/reminders`; `DELETE /api/v1/reminders/{id}` (404 when there is none).
/// - `POST /api/v1/proposal/accept` flips to the proposed programme's channel (the flip's result
///   and status), `POST /api/v1/proposal/dismiss` takes it down; 409 when nothing is proposed.
///
/// Without a guide the reminder endpoints answer 404 saying so.
struct ReminderRoutes<Player: ProgrammeControl> {
    let guide: Guide?
    let player: Player
    let bodyBytes: Int

    struct ReminderRequest: Decodable {
        var channel: String
        var programme: String
    }

    struct ReminderJSON: Encodable {
        var id: Int64
        var channel: ChannelJSON?
        var title: String
        var start: String
        var stop: String

        init(_ r: ReminderStore.Record, lineup: Lineup) {
            id = r.id
            channel = lineup.channel(id: r.channelID).map(ChannelJSON.init)
            title = r.title
            start = r.start.formatted(.iso8601)
            stop = r.stop.formatted(.iso8601)
        }
    }

    struct ReminderListJSON: Encodable {
        var reminders: [ReminderJSON]
    }

    func register(on table: APIRouteTable) {
        let guide = self.guide, player = self.player, bodyBytes = self.bodyBytes
        let noGuide = JSONResponse.error(.notFound, "this box has no guide, so no reminders (name one with url-tvg in M3U or guide: in YAML)")
        table.on("/api/v1/reminders", [
            .get: { _, _ in
                guard let guide else { return noGuide }
                do {
                    return JSONResponse.make(.ok, ReminderListJSON(reminders: try guide.reminders.all().map { ReminderJSON($0, lineup: guide.lineup) }))
                } catch {
                    return JSONResponse.failure(error)
                }
            },
            .post: { request, _ in
                guard let guide else { return noGuide }
                let bytes = try await request.body.collect(upTo: bodyBytes)
                guard let body = try? JSONDecoder().decode(ReminderRequest.self, from: Data(bytes.readableBytesView)) else {
                    return JSONResponse.error(.badRequest, #"the body must be JSON such as {"channel": "5", "programme": "2026-11-22T20:00:00Z"} (the programme's start)"#)
                }
                guard let number = ChannelNumber(body.channel), let channel = guide.lineup.channel(number: number) else {
                    return JSONResponse.error(.notFound, "there is no channel \(body.channel)")
                }
                guard let start = GuideTime.parse(body.programme) else {
                    return JSONResponse.error(.badRequest, "programme '\(body.programme)' is not a start time in ISO 8601, such as 2026-11-22T20:00:00Z")
                }
                let found: Programme?
                do {
                    found = try guide.programmes(channelIDs: [channel.id], from: start, to: start.addingTimeInterval(1))[channel.id]?
                        .first { abs($0.start.timeIntervalSince(start)) < 1 }
                } catch {
                    return JSONResponse.failure(error)
                }
                guard let programme = found else {
                    return JSONResponse.error(.notFound, "the guide has no programme starting at \(body.programme) on \(channel.number) \(channel.name)")
                }
                guard programme.start > Date() else {
                    return JSONResponse.error(.conflict, "\(programme.title) on \(channel.number) has started already")
                }
                do {
                    let record = try guide.reminders.add(channelID: channel.id, title: programme.title, start: programme.start, stop: programme.stop)
                    await player.remindersChanged()
                    return JSONResponse.make(.created, ReminderJSON(record, lineup: guide.lineup))
                } catch {
                    return JSONResponse.failure(error)
                }
            },
        ])
        table.on("/api/v1/reminders/{id}", [.delete: { _, context in
            guard let guide else { return noGuide }
            guard let id = context.parameters.get("id").flatMap(Int64.init) else {
                return JSONResponse.error(.badRequest, "the reminder id must be a number")
            }
            do {
                guard try guide.reminders.remove(id: id) else { return JSONResponse.error(.notFound, "there is no reminder \(id)") }
                await player.remindersChanged()
                return Response(status: .noContent)
            } catch {
                return JSONResponse.failure(error)
            }
        }])
        table.on("/api/v1/proposal/accept", [.post: { _, _ in
            do {
                guard let result = try await player.answerProposal(accept: true) else {
                    return JSONResponse.error(.conflict, "no programme is being proposed")
                }
                return JSONResponse.make(FlipHTTPStatus.of(result), FlipResultJSON(result: result))
            } catch {
                return JSONResponse.failure(error)
            }
        }])
        table.on("/api/v1/proposal/dismiss", [.post: { _, _ in
            do {
                _ = try await player.answerProposal(accept: false)
                return JSONResponse.make(.ok, ["dismissed": true])
            } catch {
                return JSONResponse.failure(error)
            }
        }])
    }
}
