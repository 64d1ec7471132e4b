import Hummingbird
import Lineup
import Switcher

/// `GET /api/v1/channels/{number}/thumbnail.jpg[?width=N]`: a JPEG of a warm channel's latest
/// keyframe. Unknown channel 404, not warm (or no keyframe yet) 409, bad number or width 400.
struct ThumbnailRoute<Player: PlayerControl> {
    static var path: String { "/api/v1/channels/{number}/thumbnail.jpg" }

    let player: Player
    let admissions: APIAdmissions

    func register(on table: APIRouteTable) {
        let player = self.player
        let admissions = self.admissions
        table.on(Self.path, [.get: { request, context in
            let text = context.parameters.get("number").flatMap { $0.removingPercentEncoding } ?? ""
            guard let number = ChannelNumber(text) else {
                return JSONResponse.error(.badRequest, "'\(text)' is not a channel number; use a number such as 7 or 9.1")
            }
            var width: Int?
            if let text = request.uri.queryParameters.get("width") {
                let range = ControlRoutes<Player>.widthRange
                guard let value = Int(text), range.contains(value) else {
                    return JSONResponse.error(
                        .badRequest, "width must be a whole number from \(range.lowerBound) to \(range.upperBound)")
                }
                width = value
            }
            guard let ticket = admissions.stillImages.admit() else {
                return APIAdmissions.busy("\(admissions.stillImages.limit) snapshots and thumbnails are being made already; try again shortly")
            }
            defer { ticket.release() }
            do {
                let scaled = width
                let jpeg = try await StillImageExecutor.shared.run { try await player.thumbnailJPEG(number: number, width: scaled) }
                var headers = HTTPFields()
                headers[.contentType] = "image/jpeg"
                headers[.cacheControl] = "no-store"
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: jpeg)))
            } catch let error as ThumbnailError {
                return JSONResponse.error(Self.status(error.code), error.message)
            } catch {
                return JSONResponse.error(.internalServerError, "no thumbnail: \(error)")
            }
        }])
    }

    static func status(_ code: ThumbnailError.Code) -> HTTPResponse.Status {
        switch code {
        case .unknownChannel: .notFound
        case .notWarm, .noPicture: .conflict
        case .timedOut: .gatewayTimeout
        case .failed: .badGateway
        case .unsupported: .notImplemented
        }
    }
}
