import Foundation
import Hummingbird
import Lineup
import Logging
import Switcher

/// The paths a browser opens without headers, so they also accept `?token=`.
enum APIPath {
    static let events = "/api/v1/events"
    static let snapshot = "/api/v1/snapshot.png"
}

/// The endpoints of the control API, registered on a router. Handlers only translate HTTP to
/// `PlayerControl` calls and results to JSON; they keep no state.
struct ControlRoutes<Player: PlayerControl> {
    let player: Player
    let keepaliveInterval: Duration
    let logger: Logger

    static var widthRange: ClosedRange<Int> { 16...7680 }

    func register(on router: Router<BasicRequestContext>) {
        let player = self.player
        let logger = self.logger
        let keepaliveInterval = self.keepaliveInterval

        route(router, "/", .get) { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: WebRemotePage.html)))
        }
        route(router, "/api/v1/status", .get) { _, _ in
            JSONResponse.make(.ok, StatusJSON(status: await player.status()))
        }
        route(router, "/api/v1/channels", .get) { _, _ in
            let channels = await player.channels().map(ChannelStatusJSON.init)
            return JSONResponse.make(.ok, ChannelListJSON(channels: channels))
        }
        route(router, "/api/v1/flip/next", .post) { _, _ in
            await Self.flip(.next, player: player, logger: logger)
        }
        route(router, "/api/v1/flip/previous", .post) { _, _ in
            await Self.flip(.previous, player: player, logger: logger)
        }
        route(router, "/api/v1/recall", .post) { _, _ in
            await Self.flip(.recall, player: player, logger: logger)
        }
        route(router, "/api/v1/tune/{number}", .post) { _, context in
            let text = context.parameters.get("number").flatMap { $0.removingPercentEncoding } ?? ""
            guard let number = ChannelNumber(text) else {
                return JSONResponse.error(.badRequest, "'\(text)' is not a channel number; use a number such as 7 or 9.1")
            }
            return await Self.flip(.tune(number), player: player, logger: logger)
        }
        route(router, "/api/v1/tune/id/{id}", .post) { _, context in
            let id = context.parameters.get("id").flatMap { $0.removingPercentEncoding } ?? ""
            guard !id.isEmpty else { return JSONResponse.error(.badRequest, "the channel id is empty") }
            return await Self.flip(.tuneID(id), player: player, logger: logger)
        }
        route(router, "/api/v1/flip-scope/{scope}", .post) { _, context in
            let text = context.parameters.get("scope") ?? ""
            guard let scope = FlipScope(text) else {
                return JSONResponse.error(.badRequest, "'\(text)' is not a flip scope; use all, favourites or group")
            }
            await player.setFlipScope(scope)
            return JSONResponse.make(.ok, ["scope": scope.description])
        }
        route(router, RouterPath(stringLiteral: APIPath.snapshot), .get) { request, _ in
            var width: Int?
            if let text = request.uri.queryParameters.get("width") {
                guard let value = Int(text), Self.widthRange.contains(value) else {
                    return JSONResponse.error(
                        .badRequest,
                        "width must be a whole number from \(Self.widthRange.lowerBound) to \(Self.widthRange.upperBound)"
                    )
                }
                width = value
            }
            do {
                let png = try await player.snapshotPNG(width: width)
                var headers = HTTPFields()
                headers[.contentType] = "image/png"
                headers[.cacheControl] = "no-store"
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: png)))
            } catch {
                return JSONResponse.error(.serviceUnavailable, "no snapshot: \(error)")
            }
        }
        ThumbnailRoute(player: player).register(on: router)
        OverlayRoutes(player: player, logger: logger).register(on: router)
        route(router, RouterPath(stringLiteral: APIPath.events), .get) { request, _ in
            let events = player.events()
            var headers = HTTPFields()
            headers[.contentType] = "text/event-stream; charset=utf-8"
            headers[.cacheControl] = "no-cache"
            headers[.init("X-Accel-Buffering")!] = "no"
            return Response(status: .ok, headers: headers, body: ResponseBody { writer in
                try await request.body.consumeWithCancellationOnInboundClose { _ in
                    try await EventStreamBody.write(events: events, keepaliveInterval: keepaliveInterval, to: &writer)
                }
                try await writer.finish(nil)
            })
        }
    }

    /// Performs one flip and answers with its result once it completed, failed or was superseded.
    static func flip(_ request: FlipRequest, player: Player, logger: Logger) async -> Response {
        // A client that hangs up does not take back its key press: the flip runs to its end in
        // a task of its own instead of being cancelled with the request.
        let result = await Task { await player.flip(request) }.value
        logger.debug("control API flip", metadata: [
            "request": "\(request)", "outcome": "\(result.outcome.rawValue)", "error": "\(result.error ?? "")",
        ])
        return JSONResponse.make(FlipHTTPStatus.of(result), FlipResultJSON(result: result))
    }

    /// Registers `handler` for `method` on `path`, and a 405 with `Allow` for the other common methods.
    private func route(
        _ router: Router<BasicRequestContext>, _ path: RouterPath, _ method: HTTPRequest.Method,
        _ handler: @escaping @Sendable (Request, BasicRequestContext) async throws -> Response
    ) {
        router.on(path, method: method, use: handler)
        let others: [HTTPRequest.Method] = [.get, .post, .put, .delete, .patch].filter { $0 != method }
        for other in others {
            router.on(path, method: other) { request, _ in
                JSONResponse.error(
                    .methodNotAllowed, "\(request.method) is not allowed on \(request.uri.path); use \(method)",
                    headers: [.allow: method.rawValue]
                )
            }
        }
    }
}
