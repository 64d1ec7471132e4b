import Logging
import NIOCore
import NIOPosix
import Providers
import ServiceLifecycle
import Synchronization

/// Answers HDHomeRun discovery on UDP and get/set requests on TCP (both port 65001), so
/// `hdhomerun_config discover` lists the head-end and `hdhomerun_config IP get /sys/model`
/// answers. Only clients the serving access allows (loopback, `--serve-allow` networks) are
/// answered: they cannot send a token.
///
/// Discovery listens on the wildcard address when the head-end serves beyond loopback (a socket
/// bound to one address does not hear broadcasts); control listens on the serving host.
/// A `Service`: runs until graceful shutdown.
struct HDHomeRunProtocolService: Service {
    let configuration: ServeConfiguration
    let address: HeadendAddress
    let responder: HDHomeRunResponder
    let logger: Logger
    /// Called once both sockets listen, with the bound UDP and TCP ports (for tests that use port 0).
    var onListening: (@Sendable (_ udp: Int, _ tcp: Int) -> Void)?

    private var access: ServeAccess { ServeAccess(configuration: configuration) }

    func run() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let udpHost = configuration.isLoopback ? configuration.host : (configuration.host.contains(":") ? "::" : "0.0.0.0")
        let udp = try await DatagramBootstrap(group: group)
            .channelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .bind(host: udpHost, port: configuration.hdhomerunPort) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>(wrappingChannelSynchronously: channel)
                }
            }
        let tcp: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
        do {
            tcp = try await ServerBootstrap(group: group)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .bind(host: configuration.host, port: configuration.hdhomerunPort) { [idle = configuration.hdhomerunIdleTimeout] channel in
                    channel.eventLoop.makeCompletedFuture {
                        // A client that sends nothing for `idle` is let go: a connection is a
                        // socket and a task, and anyone allowed could open them by the thousand.
                        try channel.pipeline.syncOperations.addHandlers([
                            IdleStateHandler(readTimeout: .nanoseconds(Int64(idle.components.seconds) * 1_000_000_000
                                + Int64(idle.components.attoseconds / 1_000_000_000))),
                            IdleConnectionCloser(),
                        ])
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            try? await udp.channel.close()
            throw error
        }
        let udpPort = udp.channel.localAddress?.port ?? configuration.hdhomerunPort
        let tcpPort = tcp.channel.localAddress?.port ?? configuration.hdhomerunPort
        logger.notice("HDHomeRun discovery and control listening", metadata: [
            "udp": "\(udpHost):\(udpPort)", "tcp": "\(configuration.host):\(tcpPort)",
            "device": "\(configuration.device.deviceIDText)",
        ])
        onListening?(udpPort, tcpPort)
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { try await answerDiscovery(udp) }
                let held = HeldConnections()
                try await tcp.executeThenClose { inbound in
                    for try await connection in inbound {
                        // Anyone allowed could open them by the thousand: past the cap, closed at once.
                        let admitted = held.count.withLock { count in
                            guard count < configuration.hdhomerunMaxConnections else { return false }
                            count += 1
                            return true
                        }
                        guard admitted else {
                            logger.info("HDHomeRun control from \(connection.channel.remoteAddress?.description ?? "?") closed: \(configuration.hdhomerunMaxConnections) connections are open, the most held")
                            try? await connection.channel.close()
                            continue
                        }
                        group.addTask {
                            await answerControl(connection)
                            held.count.withLock { $0 -= 1 }
                        }
                    }
                }
                try? await udp.channel.close()
            }
        } onGracefulShutdown: {
            udp.channel.close(promise: nil)
            tcp.channel.close(promise: nil)
        }
    }

    private func answerDiscovery(_ udp: NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>) async throws {
        try await udp.executeThenClose { inbound, outbound in
            for try await envelope in inbound {
                guard access.allowsWithoutToken(envelope.remoteAddress.ipAddress) else { continue }
                guard case .packet(let request, _) = HDHomeRunPacket.decode(Array(buffer: envelope.data)) else { continue }
                let base = await address.baseURL(toward: envelope.remoteAddress)
                guard let reply = responder.discoverReply(to: request, baseURL: base) else { continue }
                try? await outbound.write(AddressedEnvelope(remoteAddress: envelope.remoteAddress, data: ByteBuffer(bytes: reply.encoded())))
            }
        }
    }

    /// One control connection: packets in, replies out, until the client closes or sends garbage.
    private func answerControl(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        let peer = connection.channel.remoteAddress
        guard access.allowsWithoutToken(peer?.ipAddress) else {
            try? await connection.channel.close()
            return
        }
        let base: String
        if let peer { base = await address.baseURL(toward: peer) } else { base = address.baseURL(requestHost: nil) }
        do {
            try await connection.executeThenClose { inbound, outbound in
                var pending: [UInt8] = []
                for try await chunk in inbound {
                    pending += Array(buffer: chunk)
                    while true {
                        switch HDHomeRunPacket.decode(pending) {
                        case .incomplete:
                            guard pending.count <= 3074 else { throw ControlProtocolError.tooLong }
                        case .invalid(let reason):
                            logger.info("HDHomeRun control from \(peer?.description ?? "?"): \(reason); closing")
                            throw ControlProtocolError.invalid
                        case .packet(let request, let consumed):
                            pending.removeFirst(consumed)
                            let reply = responder.getSetReply(to: request, baseURL: base)
                            try await outbound.write(ByteBuffer(bytes: reply.encoded()))
                            continue
                        }
                        break
                    }
                }
            }
        } catch {
            try? await connection.channel.close()
        }
    }

    private enum ControlProtocolError: Error { case tooLong, invalid }
}

/// The control connections open now (any thread).
private final class HeldConnections: Sendable {
    let count = Mutex(0)
}

/// Closes the connection when its `IdleStateHandler` says it was idle.
final class IdleConnectionCloser: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}
