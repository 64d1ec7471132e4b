import Foundation
import Guide
import Hummingbird
import Lineup

/// `/lineup.m3u` (the lineup for other players, or for another Flipbox), `/guide.xml` (XMLTV
/// from the guide store, from a day ago to two weeks ahead; 404 when the lineup has no guide)
/// and `/logos/{id}.{ext}` (each channel's logo, local or fetched once into the logo cache).
struct ExportRoutes {
    let lineup: Lineup
    let guide: Guide?
    let logos: LogoCache
    let address: HeadendAddress

    func register(on router: Router<ServeRequestContext>) {
        router.get("/lineup.m3u") { request, _ in
            let base = address.baseURL(requestHost: request.head.authority)
            return ServeResponse.text(LineupExport.m3u(lineup, baseURL: base, hasGuide: guide != nil),
                                      contentType: "audio/x-mpegurl; charset=utf-8")
        }
        router.get("/guide.xml") { request, _ in
            guard let guide else {
                return ServeResponse.error(.notFound, "this lineup has no guide (url-tvg in M3U, guide: in YAML)")
            }
            let base = address.baseURL(requestHost: request.head.authority)
            let channels = lineup.channels.filter { !$0.isHidden }
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
            guard let channel = lineup.channel(id: id.removingPercentEncoding ?? id), let logo = channel.logo else {
                return ServeResponse.error(.notFound, "no logo named '\(file)'")
            }
            let path: String
            do { path = try await logos.localPath(for: logo) } catch {
                return ServeResponse.error(.badGateway, "the logo of channel \(channel.number) cannot be had: \(error)")
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                return ServeResponse.error(.notFound, "the logo of channel \(channel.number) (\(path)) cannot be read")
            }
            return Response(status: .ok, headers: [.contentType: Self.imageType(path), .cacheControl: "max-age=3600"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        }
    }

    static func imageType(_ path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "svg": "image/svg+xml"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "webp": "image/webp"
        default: "image/png"
        }
    }
}
