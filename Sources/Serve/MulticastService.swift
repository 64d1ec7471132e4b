import Lineup
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Sends every channel of the lineup to its multicast group (`MulticastPlan`) for as long as the
/// head-end runs: each channel is served (its ingest kept running, one shared muxer) from the
/// start. One UDP socket with the plan's TTL and interface sends them all. A `Service`.
struct MulticastService: Service {
    let plan: MulticastPlan
    let server: StreamServer
    let logger: Logger

    func run() async throws {
        do {
            try await send()
        } catch {
            throw ServeConfigurationError("cannot multicast to \(plan.network):\(plan.port)\(plan.interface.map { " from \($0)" } ?? ""): \(error)")
        }
    }

    private func send() async throws {
        let socket = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(ChannelOptions.ipOption(.ip_multicast_ttl), value: plan.ttl)
            .channelOption(ChannelOptions.ipOption(.ip_multicast_loop), value: 1)
            .bind(host: plan.interface ?? "0.0.0.0", port: 0).get()
        if let interface = plan.interface, let bytes = NetworkRange.addressBytes(interface), let options = socket as? any SocketOptionProvider {
            // IP_MULTICAST_IF: the interface's address, in network byte order as in memory.
            let address = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            try await options.setIPMulticastIF(in_addr(s_addr: address)).get()
        }
        var senders: [(index: Int, sender: MulticastSender)] = []
        for (index, (channel, group)) in plan.groups(server.lineup).enumerated() {
            let sender = MulticastSender(socket: socket, destination: try SocketAddress(ipAddress: group, port: plan.port), rtp: plan.rtp)
            do {
                _ = try await server.subscribe(sender, to: channel)
                senders.append((index, sender))
                logger.notice("multicasting channel \(channel.number) \(channel.name) to \(plan.rtp ? "rtp" : "udp")://\(group):\(plan.port) (ttl \(plan.ttl))")
            } catch {
                logger.error("cannot multicast channel \(channel.number): \(error)")
            }
        }
        if plan.groups(server.lineup).count < server.lineup.channels.count {
            logger.warning("\(plan.network) has room for \(plan.groups(server.lineup).count) of the \(server.lineup.channels.count) channels; the others are not multicast")
        }
        try? await gracefulShutdown()
        let channels = plan.groups(server.lineup).map(\.channel)
        for entry in senders { await server.unsubscribe(entry.sender, from: channels[entry.index]) }
        try? await socket.close()
    }
}
