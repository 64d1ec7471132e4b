import Foundation
import Guide
import Hummingbird
import Lineup
import Logging

/// The guide endpoints, answered from a ``Guide`` directly (not through the player).
///
/// - `GET /api/v1/guide?from=&to=&channels=`: programmes on in `from..<to` (ISO 8601 with a
///   zone, default now to now + 3 h, at most 14 days) on channels given by number, comma
///   separated (default every channel). Bad input 400 with what is wrong.
/// - `POST /api/v1/guide/refresh`: imports the guide again and answers with what it read;
///   409 while a refresh runs, 502 when a source fails (the old guide stays), 404 when the lineup
///   names no guide.
///
/// Without a guide (the box could not open one) both answer 404 saying so.
struct GuideRoutes {
    let guide: Guide?
    let logger: Logger

    static let maximumRange: TimeInterval = 14 * 86_400

    struct ProgrammeJSON: Encodable {
        var start: String
        var stop: String
        var title: String
        var subTitle: String?
        var description: String?
        var categories: [String]
        var episode: [String: String]?
        var icon: String?
        var ratings: [Rating]
        var starRating: String?

        init(_ p: Programme) {
            start = p.start.formatted(.iso8601)
            stop = p.stop.formatted(.iso8601)
            title = p.title
            subTitle = p.subTitle
            description = p.description
            categories = p.categories
            var episode: [String: String] = [:]
            episode["xmltvNS"] = p.episodeXMLTVNS
            episode["onScreen"] = p.episodeOnScreen
            self.episode = episode.isEmpty ? nil : episode
            icon = p.icon
            ratings = p.ratings
            starRating = p.starRating
        }
    }

    struct ChannelJSON: Encodable {
        var number: ChannelNumber
        var id: String
        var name: String
        var guideChannel: String?
        /// How many days back its provider's archive reaches (catch-up); nil without one.
        var catchupDays: Int?
        var programmes: [ProgrammeJSON]
    }

    struct GuideJSON: Encodable {
        var from: String
        var to: String
        var channels: [ChannelJSON]
    }

    static var noGuide: Response {
        JSONResponse.error(.notFound, "this box has no programme guide: its lineup names none, or it could not be opened (see the log)")
    }

    func register(on table: APIRouteTable) {
        let guide = self.guide
        table.on("/api/v1/guide", [.get: { request, _ -> Response in
            guard let guide else { return Self.noGuide }
            let query = request.uri.queryParameters
            let now = Date()
            var from = now
            if let text = query.get("from") {
                guard let date = GuideTime.parse(text) else {
                    return JSONResponse.error(.badRequest, "from '\(text)' is not an ISO 8601 time with a zone, e.g. 2026-11-22T20:00:00+01:00")
                }
                from = date
            }
            var to = from.addingTimeInterval(3 * 3600)
            if let text = query.get("to") {
                guard let date = GuideTime.parse(text) else {
                    return JSONResponse.error(.badRequest, "to '\(text)' is not an ISO 8601 time with a zone, e.g. 2026-11-22T23:00:00+01:00")
                }
                to = date
            }
            guard to > from else { return JSONResponse.error(.badRequest, "to must be after from") }
            guard to.timeIntervalSince(from) <= Self.maximumRange else {
                return JSONResponse.error(.badRequest, "from..to spans more than 14 days; ask for less")
            }
            var channels = guide.lineup.listedChannels
            if let text = query.get("channels"), !text.isEmpty {
                channels = []
                for item in text.split(separator: ",", omittingEmptySubsequences: false) {
                    let written = item.trimmingCharacters(in: .whitespaces)
                    guard let number = ChannelNumber(written) else {
                        return JSONResponse.error(.badRequest, "channels: '\(written)' is not a channel number (write e.g. 7 or 9.1, comma separated)")
                    }
                    guard let channel = guide.lineup.channel(number: number) else {
                        return JSONResponse.error(.badRequest, "channels: there is no channel \(number) in the lineup")
                    }
                    channels.append(channel)
                }
            }
            let programmes = try guide.programmes(channelIDs: channels.map(\.id), from: from, to: to)
            let match = guide.match
            let body = GuideJSON(from: from.formatted(.iso8601), to: to.formatted(.iso8601), channels: channels.map { channel in
                ChannelJSON(number: channel.number, id: channel.id, name: channel.name,
                            guideChannel: match.guideChannel(for: channel.id),
                            catchupDays: channel.catchup.map { $0.days ?? 7 },
                            programmes: (programmes[channel.id] ?? []).map(ProgrammeJSON.init))
            })
            return JSONResponse.make(.ok, body)
        }])

        table.on("/api/v1/guide/refresh", [.post: { _, _ -> Response in
            guard let guide else { return Self.noGuide }
            do throws(GuideError) {
                let summary = try await guide.refresh()
                return JSONResponse.make(.ok, summary)
            } catch {
                // A failed refresh keeps the old guide; the description names the source and line.
                let kept = error.code == .busy || error.code == .noSource ? "" : "the old guide is kept: "
                return JSONResponse.error(error.kind.httpStatus, kept + error.description)
            }
        }])
    }
}
