import Hummingbird
import Lineup
import struct Lineup.Channel
import Logging
import NIOCore

/// `GET /stream/{number}.ts` and `/stream/id/{id}.ts`: a channel as a live MPEG transport
/// stream over HTTP, starting at its cached keyframe (with the PAT and PMT in front), then live,
/// until the client goes away or falls too far behind (then its connection is closed).
/// `/auto/v{number}` and `/tuner{n}/v{number}` are the same streams for HDHomeRun clients,
/// limited to the device's tuner count.
struct StreamRoutes {
    let server: StreamServer
    let device: HDHomeRunDevice
    /// Parental locks: a locked channel is refused (403), and a stream whose programme turns
    /// locked is ended (clients with the serve token excepted).
    let locks: ServeLockJudge
    let logger: Logger

    func register(on router: Router<ServeRequestContext>) {
        router.get("/stream/{number}.ts") { request, context in
            try await stream(channel(number: context.parameters.get("number")), request: request, context: context)
        }
        router.get("/stream/id/{id}.ts") { request, context in
            let id = context.parameters.get("id") ?? ""
            guard let channel = server.lineup.channel(id: id) else {
                throw ServeError(.unknownChannel, "no channel with id '\(id)' in the lineup")
            }
            return try await stream(channel, request: request, context: context)
        }
        router.get("/auto/v{number}") { request, context in
            try await stream(channel(number: context.parameters.get("number")), request: request, context: context, tuner: true)
        }
        router.get("/tuner{tuner}/v{number}") { request, context in
            let tuner = context.parameters.get("tuner").flatMap { Int($0) }
            guard let tuner, (0..<device.tunerCount).contains(tuner) else {
                throw ServeError(.unknownChannel, "this device has tuners 0 to \(device.tunerCount - 1)")
            }
            return try await stream(channel(number: context.parameters.get("number")), request: request, context: context, tuner: true)
        }
    }

    private func channel(number text: String?) throws(ServeError) -> Channel {
        try ServeError.channel(text, in: server.lineup)
    }

    private func stream(_ channel: Channel, request: Request, context: ServeRequestContext, tuner: Bool = false) async throws -> Response {
        let headers: HTTPFields = [.contentType: "video/mp2t", .cacheControl: "no-store"]
        // HEAD gets the GET handler's answer without its body: the body would never run, so a
        // client opened for it would never be released. Answer without opening one.
        try locks.check(channel, context: context)
        if request.method == .head { return Response(status: .ok, headers: headers) }
        let connection = context.connection
        let client = try await server.open(channel, peer: context.peer, tunerLimit: tuner ? device.tunerCount : nil) {
            connection.close(promise: nil)
        }
        let server = self.server
        let (locks, logger, owner, peer) = (self.locks, self.logger, context.authenticated, context.peer)
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            do {
                for try await chunk in client {
                    if !owner, let reason = locks.reason(for: channel) {
                        logger.notice("client \(peer) of channel \(channel.number) \(channel.name) was ended: the channel turned locked (\(reason))")
                        break
                    }
                    try await writer.write(chunk)
                }
            } catch {
                await server.release(client)
                throw error
            }
            await server.release(client)
            try await writer.finish(nil)
        })
    }
}
