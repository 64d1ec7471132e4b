import Foundation
import Hummingbird
import Lineup
import RecordingWiring
import Recordings

/// What the recording endpoints drive: the box's recording service and the lineup its
/// requests name channels of.
public struct RecordingAccess: Sendable {
    public let service: RecordingService
    /// The lineup now (a reading of its source taken while the box plays adds channels).
    public let lineup: @Sendable () -> Lineup
    public init(service: RecordingService, lineup: @escaping @Sendable () -> Lineup) {
        self.service = service
        self.lineup = lineup
    }
}

/// Recordings and series rules (docs/recordings.md).
///
/// - `GET /api/v1/recordings`: every recording (scheduled, recording, done, partial, failed,
///   cancelled) with the schedule's conflicts.
/// - `POST /api/v1/recordings` (``RecordingRequest``): 201 with the recording as scheduled (or
///   the rule's recording the request joined); a channel or programme unknown 404, a bad body 400.
/// - `DELETE /api/v1/recordings/{id}`: cancels a scheduled one, stops one in progress keeping
///   what was written, deletes an ended one with its files; 204, or 404.
/// - `GET/POST /api/v1/recording-rules`, `DELETE /api/v1/recording-rules/{id}`: series rules; a
///   new rule answers 201 with the recordings it made and what the scheduler said (it matches
///   nothing: said, not an error); a pattern that does not compile 400 with where.
///
/// - `GET /api/v1/recording-conflicts`: the schedule's conflicts with their options;
///   `POST` one option, as listed, to take it: 200 with the recording scheduled instead (null
///   for a drop), 409 when the option is no longer offered, 400 for a body that is no option.
///
/// Without recordings (`flipbox play` could not open them) every endpoint answers 404 saying why.
struct RecordingRoutes {
    let recordings: RecordingService?
    let lineup: @Sendable () -> Lineup
    let bodyBytes: Int

    struct RuleAnswer: Encodable, Sendable {
        var rule: RecordingRuleJSON
        var recordings: [RecordingJSON]
        var notes: [String]
    }

    struct RuleListJSON: Encodable, Sendable { var rules: [RecordingRuleJSON] }
    struct ConflictListJSON: Encodable, Sendable { var conflicts: [RecordingConflictJSON] }
    /// A conflict option taken: the recording scheduled instead (null for a drop).
    struct SettledJSON: Encodable, Sendable {
        var scheduled: RecordingJSON?
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(scheduled, forKey: .scheduled)
        }
        enum CodingKeys: String, CodingKey { case scheduled }
    }

    func register(on table: APIRouteTable) {
        let service = recordings, lineupNow = self.lineup, bodyBytes = self.bodyBytes
        let none = JSONResponse.error(.notFound, "this box keeps no recordings: its recordings directory could not be used (the log at start says why)")
        @Sendable func body<T: Decodable>(_ request: Request, _ type: T.Type) async throws -> T? {
            let bytes = try await request.body.collect(upTo: bodyBytes)
            return try? JSONDecoder().decode(T.self, from: Data(bytes.readableBytesView))
        }
        table.on("/api/v1/recordings", [
            .get: { _, _ in
                guard let service else { return none }
                let (all, conflicts) = await service.listing()
                let titles = Dictionary(all.map { ($0.id, $0.programme.title) }, uniquingKeysWith: { a, _ in a })
                return JSONResponse.make(.ok, RecordingListJSON(recordings: all.map { RecordingJSON($0, lineup: lineupNow()) },
                                                                conflicts: conflicts.map { RecordingConflictJSON($0, titles: titles) }))
            },
            .post: { request, _ in
                guard let service else { return none }
                guard let asked = try await body(request, RecordingRequest.self) else {
                    return JSONResponse.error(.badRequest, #"the body must be JSON such as {"channel": "5", "programme": "2026-11-22T20:00:00Z"} (the programme's start), or {"channel": "5", "start": "…", "end": "…"}"#)
                }
                do {
                    let oneOff = try asked.oneOff(lineup: lineupNow(), id: RecordingID.fresh())
                    let recording = try await service.add(oneOff)
                    return JSONResponse.make(.created, RecordingJSON(recording, lineup: lineupNow()))
                } catch {
                    return JSONResponse.failure(error)
                }
            },
        ])
        table.on("/api/v1/recordings/{id}", [.delete: { _, context in
            guard let service else { return none }
            guard let id = Self.id(context.parameters.get("id")) else {
                return JSONResponse.error(.badRequest, "the recording id must be 1 to 200 characters, as GET /api/v1/recordings gives it")
            }
            do {
                guard try await service.remove(RecordingID(id)) else { return JSONResponse.error(.notFound, "there is no recording \(id)") }
                return Response(status: .noContent)
            } catch {
                return JSONResponse.failure(error)
            }
        }])
        table.on("/api/v1/recording-conflicts", [
            .get: { _, _ in
                guard let service else { return none }
                let (all, conflicts) = await service.listing()
                let titles = Dictionary(all.map { ($0.id, $0.programme.title) }, uniquingKeysWith: { a, _ in a })
                return JSONResponse.make(.ok, ConflictListJSON(conflicts: conflicts.map { RecordingConflictJSON($0, titles: titles) }))
            },
            .post: { request, _ in
                guard let service else { return none }
                guard let asked = try await body(request, RecordingConflictJSON.Option.self), let option = asked.option else {
                    return JSONResponse.error(.badRequest, #"the body must be one of a conflict's options as GET /api/v1/recording-conflicts lists them, such as {"kind": "drop", "recording": "ID"} or {"kind": "other-channel", "recording": "ID", "channel": "7", "programme": "PROGRAMME-ID"}"#)
                }
                do {
                    let moved = try await service.resolve(option)
                    return JSONResponse.make(.ok, SettledJSON(scheduled: moved.map { RecordingJSON($0, lineup: lineupNow()) }))
                } catch {
                    return JSONResponse.failure(error)
                }
            },
        ])
        table.on("/api/v1/recording-rules", [
            .get: { _, _ in
                guard let service else { return none }
                do {
                    return JSONResponse.make(.ok, RuleListJSON(rules: try service.rules().map(RecordingRuleJSON.init)))
                } catch {
                    return JSONResponse.failure(error)
                }
            },
            .post: { request, _ in
                guard let service else { return none }
                guard let asked = try await body(request, RecordingRuleRequest.self) else {
                    return JSONResponse.error(.badRequest, #"the body must be JSON such as {"title": "News", "channel": "5", "days": ["mon", "fri"], "newOnly": true}"#)
                }
                do {
                    let rule = try asked.rule(lineup: lineupNow(), id: RuleID.fresh())
                    let (mine, notes) = try await service.save(rule)
                    return JSONResponse.make(.created, RuleAnswer(rule: RecordingRuleJSON(rule), recordings: mine.map { RecordingJSON($0, lineup: lineupNow()) },
                                                                  notes: notes))
                } catch {
                    return JSONResponse.failure(error)
                }
            },
        ])
        table.on("/api/v1/recording-rules/{id}", [.delete: { _, context in
            guard let service else { return none }
            guard let id = Self.id(context.parameters.get("id")) else {
                return JSONResponse.error(.badRequest, "the rule id must be 1 to 200 characters, as GET /api/v1/recording-rules gives it")
            }
            do {
                guard try await service.removeRule(RuleID(id)) else { return JSONResponse.error(.notFound, "there is no rule \(id)") }
                return Response(status: .noContent)
            } catch {
                return JSONResponse.failure(error)
            }
        }])
    }

    /// A path's id, percent-decoded (ids such as `p:5@1795000000` may come encoded), bounded.
    static func id(_ raw: String?) -> String? {
        guard let raw, let text = raw.removingPercentEncoding, (1...RecordingRequest.textLimit).contains(text.count) else { return nil }
        return text
    }
}
