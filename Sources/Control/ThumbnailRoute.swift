import Hummingbird
import Lineup
import Output
import Switcher

/// `GET /api/v1/channels/{number}/thumbnail.jpg[?width=N]`: a JPEG of a warm channel's latest
/// keyframe. Unknown channel 404, not warm (or no keyframe yet) 409, bad number or width 400.
struct ThumbnailRoute<Player: FlipControl> {
    static var path: String { "/api/v1/channels/{number}/thumbnail.jpg" }

    let player: Player
    let admissions: APIAdmissions

    func register(on table: APIRouteTable) {
        let player = self.player
        let admissions = self.admissions
        table.on(Self.path, [.get: { request, context in
            let number = try APIParameter.channelNumber(context)
            let width = try APIParameter.width(request)
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
            } catch {
                return JSONResponse.failure(error)
            }
        }])
    }
}
