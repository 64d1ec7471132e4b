import Foundation
import Guide
import Hummingbird
import Lineup
import Logging

/// `/lineup.m3u` (the lineup for other players, or for another Flipbox), `/guide.xml` (XMLTV
/// from the guide store, from a day ago to two weeks ahead; 404 when the lineup has no guide)
/// and `/logos/{id}.{ext}` (each channel's logo, local or fetched once into the logo cache).
struct ExportRoutes {
    /// The lineup now (a reading of its source taken while serving adds and removes channels).
    let lineup: @Sendable () -> Lineup
    let guide: Guide?
    let logos: LogoCache
    let address: HeadendAddress
    let logger: Logger

    func register(on router: Router<ServeRequestContext>) {
        router.get("/lineup.m3u") { request, _ in
            let base = address.baseURL(requestHost: request.head.authority)
            return ServeResponse.text(LineupExport.m3u(lineup(), baseURL: base, hasGuide: guide != nil),
                                      contentType: "audio/x-mpegurl; charset=utf-8")
        }
        router.get("/guide.xml") { request, _ in
            guard let guide else {
                return ServeResponse.error(.notFound, "this lineup has no guide (url-tvg in M3U, guide: in YAML)")
            }
            let base = address.baseURL(requestHost: request.head.authority)
            let channels = lineup().listedChannels.filter { !$0.isHidden }
            let now = Date()
            let programmes: [String: [Programme]]
            do {
                programmes = try guide.programmes(channelIDs: channels.map(\.id), from: now.addingTimeInterval(-86_400),
                                                  to: now.addingTimeInterval(14 * 86_400))
            } catch {
                return ServeResponse.error(.serviceUnavailable, "the guide cannot be read: \(error)")
            }
            return ServeResponse.text(XMLTVExport.document(channels: channels, programmes: programmes, baseURL: base),
                                      contentType: "application/xml; charset=utf-8")
        }
        router.get("/logos/{file}") { _, context in
            let file = context.parameters.get("file") ?? ""
            let id = file.contains(".") ? String(file[..<file.lastIndex(of: ".")!]) : file
            guard let channel = lineup().channel(id: id.removingPercentEncoding ?? id), let logo = channel.logo else {
                return ServeResponse.error(.notFound, "no logo named '\(file)'")
            }
            // The bytes checked are the bytes served: a picture, within the size limit, from a
            // file or an address the box's policy allows (LogoCache).
            let checked: (data: Data, image: LogoImage)
            do { checked = try await logos.contents(for: logo) } catch {
                let message = "the logo of channel \(channel.number) \(channel.name) is not served: \(error)"
                logger.warning("\(message)")
                if case .remote = logo { return ServeResponse.error(.badGateway, message) }
                return ServeResponse.error(.notFound, message)
            }
            return Response(status: .ok, headers: [.contentType: checked.image.kind.mediaType, .cacheControl: "max-age=3600",
                                                   .xContentTypeOptions: "nosniff",
                                                   // An SVG opened on its own runs no script here.
                                                   .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; sandbox"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: checked.data)))
        }
    }
}
