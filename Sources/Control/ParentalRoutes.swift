import Foundation
import Hummingbird
import Lineup
import Switcher

/// `POST /api/v1/unlock` with `{"pin": "1234"}` (and optionally `"channel": "5"`, else the channel
/// on screen): unlocks locked content until the programme ends.
///
/// 200 `{"channel", "until"}`; a malformed body or PIN 400; a wrong PIN 403; an unknown channel
/// 404; a channel that is not locked, or no PIN set, 409; too many wrong PINs 429 with
/// `Retry-After` (also on the 403 that starts the wait). The PIN is never logged nor echoed.
struct ParentalRoutes<Player: ParentalControl> {
    let player: Player
    let admissions: APIAdmissions

    struct UnlockRequest: Decodable {
        var pin: String
        var channel: String?
    }

    struct UnlockJSON: Encodable {
        var channel: ChannelJSON
        var until: String
    }

    func register(on table: APIRouteTable) {
        let player = self.player
        let admissions = self.admissions
        table.on("/api/v1/unlock", [.post: { request, _ in
            let bytes = try await request.body.collect(upTo: admissions.bodyBytes)
            guard let body = try? JSONDecoder().decode(UnlockRequest.self, from: Data(bytes.readableBytesView)) else {
                return JSONResponse.error(.badRequest, #"the body must be JSON such as {"pin": "1234"} or {"pin": "1234", "channel": "5"}"#)
            }
            let channel = try body.channel.map(APIParameter.channelNumber)
            return await JSONResponse.answer {
                let unlocked = try await player.unlock(pin: body.pin, channel: channel)
                return UnlockJSON(channel: ChannelJSON(unlocked.channel), until: ISO8601DateFormatter().string(from: unlocked.until))
            }
        }])
    }
}
