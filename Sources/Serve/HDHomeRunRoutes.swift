import Hummingbird
import Lineup

/// The HDHomeRun HTTP API that media servers (Plex, Jellyfin, Emby, Channels DVR) use to find
/// a network tuner and its channels: `/discover.json`, `/lineup.json`, `/lineup_status.json` and
/// `/lineup.post` (a scan is accepted and finishes at once: the lineup is the channel list).
/// Stream URLs point at `/auto/v{number}`.
struct HDHomeRunRoutes {
    /// The lineup now (a reading of its source taken while serving adds and removes channels).
    let lineup: @Sendable () -> Lineup
    let device: HDHomeRunDevice
    let address: HeadendAddress

    struct Discover: Encodable {
        var FriendlyName: String
        var Manufacturer: String
        var ModelNumber: String
        var FirmwareName: String
        var FirmwareVersion: String
        var DeviceID: String
        var DeviceAuth: String
        var BaseURL: String
        var LineupURL: String
        var TunerCount: Int
    }

    struct LineupEntry: Encodable {
        var GuideNumber: String
        var GuideName: String
        var URL: String
        var Favorite: Int?
        var HD: Int?
    }

    struct LineupStatus: Encodable {
        var ScanInProgress = 0
        var ScanPossible = 1
        var Source = "Cable"
        var SourceList = ["Cable"]
    }

    func register(on router: Router<ServeRequestContext>) {
        router.get("/discover.json") { request, _ in
            let base = address.baseURL(requestHost: request.head.authority)
            return ServeResponse.json(Discover(
                FriendlyName: device.friendlyName, Manufacturer: "Silicondust", ModelNumber: device.modelNumber,
                FirmwareName: device.firmwareName, FirmwareVersion: device.firmwareVersion, DeviceID: device.deviceIDText,
                DeviceAuth: "flipbox", BaseURL: base, LineupURL: "\(base)/lineup.json", TunerCount: device.tunerCount))
        }
        router.get("/lineup.json") { request, _ in
            let base = address.baseURL(requestHost: request.head.authority)
            return ServeResponse.json(lineup().listedChannels.filter { !$0.isHidden }.map { channel in
                LineupEntry(GuideNumber: channel.number.description, GuideName: channel.name,
                            URL: "\(base)/auto/v\(channel.number)", Favorite: channel.isFavourite ? 1 : nil)
            })
        }
        router.get("/lineup_status.json") { _, _ in ServeResponse.json(LineupStatus()) }
        router.post("/lineup.post") { request, _ in
            let scan = request.uri.queryParameters.get("scan")
            guard scan == nil || scan == "start" || scan == "abort" else {
                return ServeResponse.error(.badRequest, "scan must be start or abort, not '\(scan ?? "")'")
            }
            return Response(status: .ok)
        }
    }
}
