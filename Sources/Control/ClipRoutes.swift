import Foundation
import Headend
import Hummingbird
import Lineup

/// The clip endpoints: clips cut from a channel's timeshift buffer, remuxed without re-encoding.
///
/// - `POST /api/v1/clips` with `{"channel": "7", "from": "-60s", "to": "now", "format": "mp4"}`
///   (`from`/`to`: `now`, a time relative to the live edge such as `-60s` or `-1m30s`, or an ISO
///   8601 time; `format`: `mp4` (default), `mkv` or `ts`; `exact`: true cuts at those times,
///   re-encoding only the partial GOP at each end, instead of at keyframes): 202 with the job; its progress
///   follows as `clip` events on `/api/v1/events`. A bad body or a range outside the buffer is
///   400 (the message gives the buffer's range); a channel without a buffer 409; an unknown
///   channel 404.
/// - `GET /api/v1/clips`: every clip, newest first.
/// - `GET /api/v1/clips/{id}`: the file once written (200, as an attachment); 202 with the job
///   while it is written; 409 when it failed; 404 when there is no such clip.
/// - `DELETE /api/v1/clips/{id}`: 204; the file is removed.
///
/// Without a clip library (timeshift not set up by the box) every endpoint answers 409.
struct ClipRoutes {
    let clips: (any ClipControl)?
    let bodyBytes: Int

    struct ClipRequest: Decodable {
        var channel: String
        var from: String
        var to: String?
        var format: String?
        var exact: Bool

        enum CodingKeys: CodingKey { case channel, from, to, format, exact }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            // The channel as "7", "9.1" or 7.
            if let text = try? c.decode(String.self, forKey: .channel) { channel = text } else {
                channel = String(try c.decode(Int.self, forKey: .channel))
            }
            from = try c.decode(String.self, forKey: .from)
            to = try c.decodeIfPresent(String.self, forKey: .to)
            format = try c.decodeIfPresent(String.self, forKey: .format)
            exact = try c.decodeIfPresent(Bool.self, forKey: .exact) ?? false
        }
    }

    struct ClipListJSON: Encodable { var clips: [ClipJob] }

    func register(on table: APIRouteTable) {
        let clips = self.clips, bodyBytes = self.bodyBytes
        let none = JSONResponse.error(.conflict, "clips are cut from the timeshift buffer, and this box has none (start with --timeshift 30m)")
        table.on("/api/v1/clips", [
            .get: { _, _ in
                guard let clips else { return none }
                return JSONResponse.make(.ok, ClipListJSON(clips: await clips.clips()))
            },
            .post: { request, _ in
                guard let clips else { return none }
                let bytes = try await request.body.collect(upTo: bodyBytes)
                guard let body = try? JSONDecoder().decode(ClipRequest.self, from: Data(bytes.readableBytesView)) else {
                    return JSONResponse.error(.badRequest, #"the body must be JSON such as {"channel": "7", "from": "-60s", "to": "now", "format": "mp4"}"#)
                }
                let number = try APIParameter.channelNumber(body.channel)
                guard let from = ClipTime(body.from) else {
                    return JSONResponse.error(.badRequest, "from must be now, a time before it such as -60s or -1m30s, or an ISO 8601 time, not '\(body.from)'")
                }
                let toText = body.to ?? "now"
                guard let to = ClipTime(toText) else {
                    return JSONResponse.error(.badRequest, "to must be now, a time before it such as -10s, or an ISO 8601 time, not '\(toText)'")
                }
                let formatText = (body.format ?? "mp4").lowercased()
                guard let format = ClipContainer(rawValue: formatText == "matroska" ? "mkv" : formatText) else {
                    return JSONResponse.error(.badRequest, "format must be mp4, mkv or ts, not '\(formatText)'")
                }
                do throws(ClipFailure) {
                    return JSONResponse.make(.accepted, try await clips.startClip(channel: number, from: from, to: to, format: format, exact: body.exact))
                } catch {
                    return Self.answer(error)
                }
            },
        ])
        table.on("/api/v1/clips/{id}", [
            .get: { _, context in
                guard let clips else { return none }
                let id = context.parameters.get("id") ?? ""
                guard let job = await clips.clip(id: id) else { return JSONResponse.error(.notFound, "there is no clip '\(id)'") }
                switch job.state {
                case .writing: return JSONResponse.make(.accepted, job)
                case .failed: return JSONResponse.error(.conflict, "clip \(id) failed: \(job.error ?? "unknown error")")
                case .done: break
                }
                guard let file = await clips.clipFile(id: id),
                      let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int,
                      let body = try? await FileIO().loadFile(path: file.path, context: context) else {
                    return JSONResponse.error(.notFound, "the file of clip '\(id)' is gone")
                }
                // Streamed from disk in chunks: a long clip is never held in memory.
                var headers = HTTPFields()
                headers[.contentType] = job.format.mimeType
                headers[.contentLength] = String(size)
                headers[.contentDisposition] = "attachment; filename=\"\(job.fileName)\""
                return Response(status: .ok, headers: headers, body: body)
            },
            .delete: { _, context in
                guard let clips else { return none }
                let id = context.parameters.get("id") ?? ""
                guard await clips.deleteClip(id: id) else { return JSONResponse.error(.notFound, "there is no clip '\(id)'") }
                return Response(status: .noContent)
            },
        ])
    }

    static func answer(_ failure: ClipFailure) -> Response { JSONResponse.failure(failure) }
}
