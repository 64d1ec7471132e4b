import FlipboxCore
import Foundation
import Hummingbird
import Lineup
import Logging
import Switcher

/// The overlay endpoints: the info banner, picture-in-picture and the multiview.
///
/// - `POST /api/v1/overlay/banner[?seconds=N][&form=short|long]` shows the banner, `DELETE` hides it.
/// - `POST /api/v1/pip` opens the window; `channel`, `corner`, `size` from the query or a JSON
///   body. `DELETE /api/v1/pip` closes it; `POST /api/v1/pip/swap`; `POST /api/v1/pip/tune/{number}`.
/// - `POST /api/v1/multiview[?grid=2|3|4]` opens the mosaic, `DELETE` closes it;
///   `POST /api/v1/multiview/move/{up|down|left|right}`; `POST /api/v1/multiview/select`.
///
/// Bad values 400, unknown channel 404, nothing open 409, channel not decodable 502 (statuses from
/// the failure's kind, FailureKind+HTTP.swift). Swap and select answer like a flip (its result and status).
struct OverlayRoutes<Player: OverlayControl> {
    let player: Player
    let admissions: APIAdmissions
    let logger: Logger

    /// The JSON body of `POST /api/v1/pip` (every field optional).
    struct PiPRequest: Decodable {
        var channel: ChannelNumber?
        var corner: String?
        var size: Double?
    }

    func register(on table: APIRouteTable) {
        let player = self.player
        let admissions = self.admissions
        let logger = self.logger

        table.on("/api/v1/overlay/banner", [
            .post: { request, _ in
                var seconds: Double?
                if let text = request.uri.queryParameters.get("seconds") {
                    guard let value = Double(text), value >= 0, value <= 3600 else {
                        return JSONResponse.error(.badRequest, "seconds must be a number from 0 (until dismissed) to 3600")
                    }
                    seconds = value
                }
                let form = request.uri.queryParameters.get("form") ?? "short"
                guard let shape = BannerStatus.Form(rawValue: form) else {
                    return JSONResponse.error(.badRequest, "form must be short or long, not '\(form)'")
                }
                return JSONResponse.make(.ok, await player.showBanner(seconds: seconds, long: shape == .long))
            },
            .delete: { _, _ in JSONResponse.make(.ok, await player.hideBanner()) },
        ])

        table.on("/api/v1/pip", [
            .post: { request, _ in
                var body = PiPRequest()
                let bytes = try await request.body.collect(upTo: admissions.bodyBytes)
                if bytes.readableBytes > 0 {
                    do {
                        body = try JSONDecoder().decode(PiPRequest.self, from: Data(bytes.readableBytesView))
                    } catch {
                        return JSONResponse.error(.badRequest, #"the body must be JSON such as {"channel": 7, "corner": "top-left", "size": 0.3}"#)
                    }
                }
                let query = request.uri.queryParameters
                if let text = query.get("channel") { body.channel = try APIParameter.channelNumber(text) }
                if let text = query.get("corner") { body.corner = text }
                if let text = query.get("size") {
                    guard let size = Double(text) else { return JSONResponse.error(.badRequest, "size must be a number such as 0.3") }
                    body.size = size
                }
                var corner: LogoStyle.Corner?
                if let text = body.corner {
                    guard let c = LogoStyle.Corner(rawValue: text.lowercased()) else {
                        return JSONResponse.error(.badRequest, "'\(text)' is not a corner; use top-left, top-right, bottom-left or bottom-right")
                    }
                    corner = c
                }
                let (number, size) = (body.channel, body.size)
                return await JSONResponse.answer { try await player.openPiP(number: number, corner: corner, size: size) }
            },
            .delete: { _, _ in JSONResponse.make(.ok, await player.closePiP()) },
        ])

        table.on("/api/v1/pip/swap", [
            .post: { _, _ in await admissions.answerFlip(logger: logger) { try await player.swapPiP() } },
        ])

        table.on("/api/v1/pip/tune/{number}", [
            .post: { _, context in
                let number = try APIParameter.channelNumber(context)
                return await JSONResponse.answer { try await player.tunePiP(number: number) }
            },
        ])

        table.on("/api/v1/multiview", [
            .post: { request, _ in
                var grid = 3
                if let text = request.uri.queryParameters.get("grid") {
                    guard let value = Int(text) else { return JSONResponse.error(.badRequest, "grid must be 2, 3 or 4") }
                    grid = value
                }
                return await JSONResponse.answer { try await player.openMultiview(grid: grid) }
            },
            .delete: { _, _ in JSONResponse.make(.ok, await player.closeMultiview()) },
        ])

        table.on("/api/v1/multiview/move/{direction}", [
            .post: { _, context in
                let text = context.parameters.get("direction") ?? ""
                guard let move = MultiviewMove(rawValue: text) else {
                    return JSONResponse.error(.badRequest, "'\(text)' is not a direction; use up, down, left or right")
                }
                return await JSONResponse.answer { try await player.moveMultiview(move) }
            },
        ])

        table.on("/api/v1/multiview/select", [
            .post: { _, _ in await admissions.answerFlip(logger: logger) { try await player.selectMultiview() } },
        ])
    }
}
