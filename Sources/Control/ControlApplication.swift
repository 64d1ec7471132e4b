import Guide
import Hummingbird
import Logging

/// The router of the control API with its middleware: JSON errors, then the bearer token when one is set.
///
/// Throws ``ControlConfigurationError`` when the configuration is not allowed (see
/// ``ControlServerConfiguration/validate()``). Useful on its own for tests. With a `guide`, the
/// guide endpoints (`/api/v1/guide`, `/api/v1/guide/refresh`) answer from it.
public func makeControlRouter(
    player: some PlayerControl, configuration: ControlServerConfiguration, guide: Guide? = nil, logger: Logger
) throws(ControlConfigurationError) -> Router<BasicRequestContext> {
    try configuration.validate()
    let router = Router(context: BasicRequestContext.self)
    router.add(middleware: JSONErrorMiddleware(logger: logger))
    if let token = configuration.token {
        router.add(middleware: BearerTokenMiddleware(
            token: token, queryTokenPaths: [APIPath.events, APIPath.snapshot]
        ))
    }
    ControlRoutes(player: player, keepaliveInterval: configuration.keepaliveInterval, logger: logger)
        .register(on: router)
    if let guide { GuideRoutes(guide: guide, logger: logger).register(on: router) }
    return router
}

/// The control API as a Hummingbird application listening on `configuration.host:port`.
///
/// The application is a ServiceLifecycle `Service`: add it to the process's `ServiceGroup`; it stops
/// accepting connections on graceful shutdown. Logs one line when it is listening.
/// Throws ``ControlConfigurationError`` for a configuration that must not run (no token off loopback).
public func makeControlApplication(
    player: some PlayerControl, configuration: ControlServerConfiguration, guide: Guide? = nil, logger: Logger
) throws(ControlConfigurationError) -> Application<RouterResponder<BasicRequestContext>> {
    let router = try makeControlRouter(player: player, configuration: configuration, guide: guide, logger: logger)
    let host = configuration.host
    let display = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    return Application(
        router: router,
        configuration: ApplicationConfiguration(
            address: .hostname(host, port: configuration.port), serverName: "flipbox"
        ),
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? configuration.port
            logger.notice("control API listening", metadata: [
                "url": "http://\(display):\(port)/", "auth": "\(configuration.token == nil ? "none" : "bearer token")",
            ])
        },
        logger: logger
    )
}
