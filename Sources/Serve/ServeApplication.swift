import ConnectionGuard
import Guide
import Hummingbird
import Lineup
import Logging
import ServiceLifecycle

/// The head-end's serving endpoints as a router: access check first, then errors as JSON, then
/// the stream, HDHomeRun, export and recording routes. Only read-only routes: the control API is
/// not here. `recordings`: the box's recordings to offer (nil: `/recordings…` answer 404).
public func makeServeRouter(server: StreamServer, hls: HLSServer, address: HeadendAddress, guide: Guide? = nil,
                            logos: LogoCache = LogoCache(), locks: ServeLockJudge? = nil, recordings: (any RecordingLibrary)? = nil,
                            logger: Logger) -> Router<ServeRequestContext> {
    let configuration = address.configuration
    let locks = locks ?? ServeLockJudge(locks: configuration.locks, guide: guide)
    let router = Router(context: ServeRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: ServeAccessMiddleware(access: ServeAccess(configuration: configuration)))
    router.add(middleware: ServeErrorMiddleware(logger: logger))
    StreamRoutes(server: server, device: configuration.device, locks: locks, logger: logger).register(on: router)
    HDHomeRunRoutes(lineup: { server.lineup }, device: configuration.device, address: address).register(on: router)
    ExportRoutes(lineup: { server.lineup }, guide: guide, logos: logos, address: address, logger: logger).register(on: router)
    HLSRoutes(hls: hls, locks: locks).register(on: router)
    RecordingRoutes(library: recordings, lineup: { server.lineup }, address: address, locks: locks, timeZone: .current, logger: logger)
        .register(on: router)
    return router
}

/// Every long-lived part of serving, as services for the process's `ServiceGroup`: the HTTP
/// endpoints, HDHomeRun discovery and control (unless turned off), and the stream server, which
/// ends its clients first on shutdown (put these after the services they depend on: the group
/// stops services in reverse order).
///
/// `hls`: the HLS side to serve (one of its own when nil). `recordings`: the box's recordings
/// to offer (`/recordings.m3u`, `/recordings/{id}`; nil: none).
///
/// Throws when the configuration must not run (off loopback without `--serve-allow` or a token).
public func makeServeServices(server: StreamServer, configuration: ServeConfiguration, guide: Guide? = nil,
                              logos: LogoCache = LogoCache(), hls: HLSServer? = nil, recordings: (any RecordingLibrary)? = nil,
                              logger: Logger, onListening: (@Sendable (Int) -> Void)? = nil) throws(ServeConfigurationError) -> [any Service] {
    try configuration.validate()
    let address = HeadendAddress(configuration: configuration)
    let hls = hls ?? HLSServer(streams: server, tunerLimit: configuration.device.tunerCount, logger: logger)
    let locks = ServeLockJudge(locks: configuration.locks, guide: guide)
    let router = makeServeRouter(server: server, hls: hls, address: address, guide: guide, logos: logos, locks: locks,
                                 recordings: recordings, logger: logger)
    let host = configuration.host
    let shown = host.contains(":") ? "[\(host)]" : host
    let proxies = configuration.trustedProxies
    let connections = ConnectionCounter(limits: configuration.connectionLimits) { address in proxies.contains { $0.contains(address) } }
    let app = Application(
        router: router,
        server: .http1(configuration: .init(additionalChannelHandlers: connections.handlers(), idleTimeout: .seconds(120))),
        configuration: ApplicationConfiguration(address: .hostname(host, port: configuration.port), serverName: "flipbox"),
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? configuration.port
            address.listening(on: port)
            logger.notice("head-end serving", metadata: [
                "url": "http://\(shown):\(port)/", "channels": "\(server.lineup.channels.count)",
                "allowed": "\(configuration.allowed.isEmpty ? "loopback" : configuration.allowed.map(\.description).joined(separator: ", "))",
                "device": "\(configuration.device.deviceIDText)",
            ])
            onListening?(port)
        },
        logger: logger
    )
    var services: [any Service] = [app]
    if configuration.hdhomerunProtocol {
        services.append(HDHomeRunProtocolService(
            configuration: configuration, address: address,
            responder: HDHomeRunResponder(device: configuration.device, channelCount: server.lineup.channels.count), logger: logger))
    }
    if let plan = configuration.multicast {
        services.append(MulticastService(plan: plan, server: server, locks: locks, logger: logger))
    }
    services.append(StreamServerService(server: server, hls: hls))
    return services
}

/// Ends the stream server's clients on graceful shutdown, so the HTTP server is not held open
/// by streams that never end.
struct StreamServerService: Service {
    let server: StreamServer
    let hls: HLSServer
    func run() async throws {
        try? await gracefulShutdown()
        await hls.stop()
        await server.stop()
    }
}

/// Answers a `ServeError` with its status (404, 503, 502) and message.
struct ServeErrorMiddleware: RouterMiddleware {
    typealias Context = ServeRequestContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as ServeError {
            return ServeResponse.error(error)
        } catch let error as HTTPError where error.status == .notFound {
            return ServeResponse.error(.notFound, "nothing is served at \(request.uri.path)")
        }
    }
}
