import FlipboxCore
import Foundation
import Hummingbird
import Lineup
import Output
import Logging
import Switcher

/// The paths a browser opens without headers, so they also accept `?token=`.
enum APIPath {
    static let events = "/api/v1/events"
    static let snapshot = "/api/v1/snapshot.png"
    static let metrics = "/metrics"
    static let openAPI = "/api/v1/openapi.json"
}

/// What the API lets happen at once (open event streams, flips in flight, still pictures being
/// made), and the largest request body it reads.
struct APIAdmissions: Sendable {
    let eventStreams: ConcurrencyLimit
    let flips: ConcurrencyLimit
    let stillImages: ConcurrencyLimit
    let bodyBytes: Int

    init(_ limits: RequestLimits) {
        bodyBytes = limits.bodyBytes
        eventStreams = ConcurrencyLimit(limit: limits.eventStreams)
        flips = ConcurrencyLimit(limit: limits.flipsInFlight)
        stillImages = ConcurrencyLimit(limit: limits.stillImages)
    }

    /// 503 with `Retry-After` and a message saying what is full.
    static func busy(_ message: String) -> Response {
        JSONResponse.error(.serviceUnavailable, message, headers: [.retryAfter: "1"])
    }

    /// Runs one flip (a request, a swap, a select) and answers with its result once it
    /// completed, failed or was superseded, or with the failure that kept it from starting. A
    /// client that hangs up does not take back its key press: the flip runs to its end in a task
    /// of its own instead of being cancelled with the request, and holds its place until then.
    func answerFlip(logger: Logger, _ body: @escaping @Sendable () async throws -> FlipResult) async -> Response {
        guard let ticket = flips.admit() else { return busyFlipping() }
        do {
            let result = try await Task {
                defer { ticket.release() }
                return try await body()
            }.value
            logger.debug("control API flip", metadata: ["outcome": "\(result.outcome.rawValue)", "error": "\(result.error ?? "")"])
            return JSONResponse.make(FlipHTTPStatus.of(result), FlipResultJSON(result: result))
        } catch {
            return JSONResponse.failure(error)
        }
    }

    /// 503 for a flip beyond ``RequestLimits/flipsInFlight``.
    func busyFlipping() -> Response {
        Self.busy("""
            \(flips.limit) flips are in flight already, the most this box takes at once; \
            wait for one to finish (each ends within 8 s) and try again
            """)
    }
}

/// The endpoints of the control API, registered on a router. Handlers only translate HTTP to
/// `PlayerControl` calls and results to JSON; they keep no state but the admissions' counts.
struct ControlRoutes<Player: PlayerControl> {
    let player: Player
    let keepaliveInterval: Duration
    let admissions: APIAdmissions
    let metrics: ControlMetrics
    let logger: Logger

    func register(on table: APIRouteTable) {
        let player = self.player
        let logger = self.logger
        let keepaliveInterval = self.keepaliveInterval
        let admissions = self.admissions
        let metrics = self.metrics

        table.on("/", [.get: { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: WebRemotePage.html)))
        }])
        table.on("/guide", [.get: { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: WebGuidePage.html)))
        }])
        table.on("/api/v1/status", [.get: { _, _ in
            JSONResponse.make(.ok, StatusJSON(status: await player.status()))
        }])
        table.on("/api/v1/output", [.get: { _, _ in
            JSONResponse.make(.ok, OutputReportJSON(await player.figures().output))
        }])
        table.on("/api/v1/channels", [.get: { _, _ in
            let channels = await player.channels().map(ChannelStatusJSON.init)
            return JSONResponse.make(.ok, ChannelListJSON(channels: channels))
        }])
        table.on("/api/v1/flip/next", [.post: { _, _ in
            await admissions.answerFlip(logger: logger) { await player.flip(.next) }
        }])
        table.on("/api/v1/flip/previous", [.post: { _, _ in
            await admissions.answerFlip(logger: logger) { await player.flip(.previous) }
        }])
        table.on("/api/v1/recall", [.post: { _, _ in
            await admissions.answerFlip(logger: logger) { await player.flip(.recall) }
        }])
        table.on("/api/v1/tune/{number}", [.post: { _, context in
            let number = try APIParameter.channelNumber(context)
            return await admissions.answerFlip(logger: logger) { await player.flip(.tune(number)) }
        }])
        table.on("/api/v1/tune/id/{id}", [.post: { _, context in
            let id = context.parameters.get("id").flatMap { $0.removingPercentEncoding } ?? ""
            guard !id.isEmpty else { return JSONResponse.error(.badRequest, "the channel id is empty") }
            return await admissions.answerFlip(logger: logger) { await player.flip(.tuneID(id)) }
        }])
        table.on("/api/v1/flip-scope/{scope}", [.post: { _, context in
            let text = context.parameters.get("scope") ?? ""
            guard let scope = FlipScope(text) else {
                return JSONResponse.error(.badRequest, "'\(text)' is not a flip scope; use all, favourites or group")
            }
            await player.setFlipScope(scope)
            return JSONResponse.make(.ok, ["scope": scope.description])
        }])
        table.on(APIPath.snapshot, [.get: { request, _ in
            var width = try APIParameter.width(request)
            guard let ticket = admissions.stillImages.admit() else {
                return APIAdmissions.busy("\(admissions.stillImages.limit) snapshots and thumbnails are being made already; try again shortly")
            }
            defer { ticket.release() }
            // Never wider than the output: a bigger picture shows nothing more and costs more to encode.
            if let requested = width { width = min(requested, await player.status().output.width) }
            do {
                let scaled = width
                let png = try await StillImageExecutor.shared.run { try await player.snapshotPNG(width: scaled) }
                var headers = HTTPFields()
                headers[.contentType] = "image/png"
                headers[.cacheControl] = "no-store"
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: png)))
            } catch {
                return JSONResponse.error(.serviceUnavailable, "no snapshot: \(error)")
            }
        }])
        ThumbnailRoute(player: player, admissions: admissions).register(on: table)
        OverlayRoutes(player: player, admissions: admissions, logger: logger).register(on: table)
        TimeshiftRoutes(player: player).register(on: table)
        AudioRoutes(player: player).register(on: table)
        SubtitleRoutes(player: player).register(on: table)
        ParentalRoutes(player: player, admissions: admissions).register(on: table)
        GuideGridRoutes(player: player, admissions: admissions, logger: logger).register(on: table)
        table.on(APIPath.events, [.get: { request, _ in
            guard let ticket = admissions.eventStreams.admit() else {
                return APIAdmissions.busy("""
                    \(admissions.eventStreams.limit) event streams are open already, the most this box serves; \
                    close one (a browser tab with the remote, a curl -N) and try again
                    """)
            }
            let events = player.events()
            var headers = HTTPFields()
            headers[.contentType] = "text/event-stream; charset=utf-8"
            headers[.cacheControl] = "no-cache"
            headers[.init("X-Accel-Buffering")!] = "no"
            return Response(status: .ok, headers: headers, body: ResponseBody { writer in
                defer { ticket.release() }
                try await request.body.consumeWithCancellationOnInboundClose { _ in
                    try await EventStreamBody.write(events: events, keepaliveInterval: keepaliveInterval, to: &writer)
                }
                try await writer.finish(nil)
            })
        }])
        table.on(APIPath.metrics, [.get: { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: await metrics.scrape(player))))
        }])
        table.on(APIPath.openAPI, [.get: { _, _ in
            do {
                var headers = HTTPFields()
                headers[.contentType] = "application/json; charset=utf-8"
                headers[.cacheControl] = "no-cache"
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: try OpenAPIDocument.json())))
            } catch {
                return JSONResponse.error(.internalServerError, "the OpenAPI document does not parse: \(error)")
            }
        }])
    }
}
