import ConnectionGuard
import Guide
import Hummingbird
import Lineup
import Logging

/// The control API's router with its middleware and the table of what it serves.
///
/// Middleware, outermost first: request metrics, JSON errors, then either the bearer token (when
/// one is set) or the same-origin and Host checks (when not), then the body limit.
struct ControlAPI {
    let router: Router<BasicRequestContext>
    let routes: APIRouteTable

    init(
        player: some PlayerControl, configuration: ControlServerConfiguration, guide: Guide?, metrics: ControlMetrics,
        logger: Logger, clips: (any ClipControl)? = nil, recordings: RecordingAccess? = nil
    ) throws(ControlConfigurationError) {
        try configuration.validate()
        // HEAD is answered like GET, without the body.
        router = Router(context: BasicRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: RequestMetricsMiddleware(metrics: metrics))
        router.add(middleware: JSONErrorMiddleware(logger: logger))
        if let token = configuration.token {
            router.add(middleware: BearerTokenMiddleware(
                token: token, queryTokenPaths: [APIPath.events, APIPath.snapshot]
            ))
        } else {
            router.add(middleware: SameOriginMiddleware(
                hosts: AllowedHosts(listenHost: configuration.host, allowed: configuration.allowedHosts)
            ))
        }
        router.add(middleware: RequestBodyLimitMiddleware(limit: configuration.limits.bodyBytes))
        routes = APIRouteTable(router: router)
        ControlRoutes(
            player: player, keepaliveInterval: configuration.keepaliveInterval,
            admissions: APIAdmissions(configuration.limits), metrics: metrics, logger: logger
        ).register(on: routes)
        GuideRoutes(guide: guide, logger: logger).register(on: routes)
        ReminderRoutes(guide: guide, player: player, bodyBytes: configuration.limits.bodyBytes).register(on: routes)
        ClipRoutes(clips: clips, bodyBytes: configuration.limits.bodyBytes).register(on: routes)
        let noLineup: @Sendable () -> Lineup = { Lineup(channels: []) }
        RecordingRoutes(recordings: recordings?.service, lineup: recordings?.lineup ?? noLineup,
                        bodyBytes: configuration.limits.bodyBytes).register(on: routes)
    }
}

/// The router of the control API with its middleware (see ``ControlAPI``).
///
/// Throws ``ControlConfigurationError`` when the configuration is not allowed (see
/// ``ControlServerConfiguration/validate()``). Useful on its own for tests. With a `guide`, the
/// guide endpoints (`/api/v1/guide`, `/api/v1/guide/refresh`) answer from it; without, they say
/// there is none.
public func makeControlRouter(
    player: some PlayerControl, configuration: ControlServerConfiguration, guide: Guide? = nil,
    metrics: ControlMetrics = ControlMetrics(), logger: Logger, clips: (any ClipControl)? = nil, recordings: RecordingAccess? = nil
) throws(ControlConfigurationError) -> Router<BasicRequestContext> {
    try ControlAPI(player: player, configuration: configuration, guide: guide, metrics: metrics, logger: logger, clips: clips,
                   recordings: recordings).router
}

/// The control API as a Hummingbird application listening on `configuration.host:port`.
///
/// The application is a ServiceLifecycle `Service`: add it to the process's `ServiceGroup`; it stops
/// accepting connections on graceful shutdown. It also counts the player's events for `/metrics`
/// while it runs. Over-long request lines and headers are answered 414 and 431 before routing
/// (``RequestHeadLimit``). Logs one line when it is listening, then calls `onListening`.
/// Throws ``ControlConfigurationError`` for a configuration that must not run (no token off loopback).
public func makeControlApplication(
    player: some PlayerControl, configuration: ControlServerConfiguration, guide: Guide? = nil, logger: Logger,
    clips: (any ClipControl)? = nil, recordings: RecordingAccess? = nil, metrics: ControlMetrics = ControlMetrics(),
    onListening: @escaping @Sendable () -> Void = {}
) throws(ControlConfigurationError) -> Application<RouterResponder<BasicRequestContext>> {
    let router = try makeControlRouter(player: player, configuration: configuration, guide: guide, metrics: metrics, logger: logger, clips: clips,
                                       recordings: recordings)
    let host = configuration.host
    let display = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    let limits = configuration.limits
    let connections = ConnectionCounter(limits: configuration.connections)
    return Application(
        router: router,
        server: .http1(configuration: .init(
            additionalChannelHandlers: RequestHeadLimit.handlers(limits) + connections.handlers(),
            idleTimeout: .seconds(120)
        )),
        configuration: ApplicationConfiguration(
            address: .hostname(host, port: configuration.port), serverName: "flipbox"
        ),
        services: [PlayerEventMetricsService(metrics: metrics, events: { player.events() })],
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? configuration.port
            logger.notice("control API listening", metadata: [
                "url": "http://\(display):\(port)/", "auth": "\(configuration.token == nil ? "none" : "bearer token")",
            ])
            onListening()
        },
        logger: logger
    )
}
