import Lineup
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Sends the lineup's channels to their multicast groups (`MulticastPlan`) for as long as the
/// head-end runs: each channel is served (its ingest kept running, one shared muxer) from the
/// start. One UDP socket with the plan's TTL and interface (`openSocket`) sends them all. A `Service`.
struct MulticastService: Service {
    let plan: MulticastPlan
    let server: StreamServer
    let logger: Logger

    func run() async throws {
        do {
            try await send()
        } catch {
            throw ServeConfigurationError("cannot multicast to \(plan.summary)\(plan.interface.map { " from \($0)" } ?? ""): \(error)")
        }
    }

    /// The sending socket: bound to the plan's interface address (any when none), with
    /// `IP_MULTICAST_TTL` and `IP_MULTICAST_IF` set as the plan says and loopback delivery on
    /// (a client on the box itself receives too). The caller closes it.
    static func openSocket(_ plan: MulticastPlan) async throws -> any NIOCore.Channel {
        let socket = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(ChannelOptions.ipOption(.ip_multicast_ttl), value: plan.ttl)
            .channelOption(ChannelOptions.ipOption(.ip_multicast_loop), value: 1)
            .bind(host: plan.interface ?? "0.0.0.0", port: 0).get()
        if let interface = plan.interface, let bytes = NetworkRange.addressBytes(interface), let options = socket as? any SocketOptionProvider {
            // IP_MULTICAST_IF: the interface's address, in network byte order as in memory.
            let address = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            do {
                try await options.setIPMulticastIF(in_addr(s_addr: address)).get()
            } catch {
                try? await socket.close()
                throw error
            }
        }
        return socket
    }

    private func send() async throws {
        let socket = try await Self.openSocket(plan)
        let destinations = plan.destinations(server.lineup)
        var senders: [(channel: Channel, sender: MulticastSender)] = []
        for (channel, destination) in destinations {
            let sender = MulticastSender(socket: socket, destination: try SocketAddress(ipAddress: destination.group, port: destination.port), rtp: plan.rtp)
            do {
                _ = try await server.subscribe(sender, to: channel)
                senders.append((channel, sender))
                logger.notice("multicasting channel \(channel.number) \(channel.name) to \(plan.rtp ? "rtp" : "udp")://\(destination) (ttl \(plan.ttl))")
            } catch {
                logger.error("cannot multicast channel \(channel.number): \(error)")
            }
        }
        if let network = plan.network, destinations.count < server.lineup.channels.count {
            logger.warning("\(destinations.count) of the \(server.lineup.channels.count) channels are multicast: \(network) has no room for the others")
        }
        try? await gracefulShutdown()
        for entry in senders { await server.unsubscribe(entry.sender, from: entry.channel) }
        try? await socket.close()
    }
}
