import ConnectionGuard
import Lineup
import struct Lineup.Channel
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
    /// Parental locks: a locked channel is not sent.
    let locks: ServeLockJudge
    let logger: Logger

    func run() async throws {
        do {
            try await send()
        } catch {
            throw ServeConfigurationError(.multicastFailed, "cannot multicast to \(plan.summary)\(plan.interface.map { " from \($0)" } ?? ""): \(error)")
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
        var entries: [Destination] = []
        for (channel, destination) in destinations {
            entries.append(Destination(channel: channel, address: try SocketAddress(ipAddress: destination.group, port: destination.port),
                                       text: "\(plan.rtp ? "rtp" : "udp")://\(destination) (ttl \(plan.ttl))"))
        }
        let senders = entries
        if let network = plan.network, destinations.count < server.lineup.channels.count {
            logger.warning("\(destinations.count) of the \(server.lineup.channels.count) channels are multicast: \(network) has no room for the others")
        }
        let announcements = plan.sap ? self.announcements(of: senders.map(\.channel), socket: socket) : []
        // Send (and follow the parental locks) until shutdown, announcing meanwhile; then say the sessions have ended.
        try? await cancelWhenGracefulShutdown {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await follow(senders, socket: socket) }
                if !announcements.isEmpty {
                    group.addTask { try await announce(announcements, on: socket, every: Self.announcementInterval) }
                }
                try await group.waitForAll()
            }
        }
        if !announcements.isEmpty { try? await send(announcements.map(\.deletion), on: socket) }
        try? await socket.close()
    }

    /// How often the parental locks of the channels sent are looked at (with locks on).
    static let lockCheckInterval: Duration = .seconds(1)

    /// Sends each channel while it is not locked: a locked channel never starts, and one whose
    /// programme turns locked stops (its sender leaves the channel) and starts again at its next
    /// keyframe once the lock ends, each change said in the log. Multicast has no clients to
    /// authenticate: the locks always apply. Until cancelled; then every sender leaves.
    private func follow(_ senders: [Destination], socket: any NIOCore.Channel) async {
        var sending: [Int: MulticastSender] = [:], failed = Set<Int>(), lockedNow: [Int: String] = [:]
        while !Task.isCancelled {
            for (index, entry) in senders.enumerated() where !failed.contains(index) {
                let channel = entry.channel
                if let reason = locks.reason(for: channel) {
                    if let sender = sending.removeValue(forKey: index) {
                        await server.unsubscribe(sender, from: channel)
                        logger.notice("multicast of channel \(channel.number) \(channel.name) stopped: the channel is locked (\(reason))")
                    } else if lockedNow[index] == nil {
                        logger.notice("channel \(channel.number) \(channel.name) is not multicast while it is locked (\(reason))")
                    }
                    lockedNow[index] = reason
                } else if sending[index] == nil {
                    // A new sender each time: it starts again at a keyframe, with the tables in front.
                    let sender = MulticastSender(socket: socket, destination: entry.address, rtp: plan.rtp)
                    do {
                        _ = try await server.subscribe(sender, to: channel)
                        sending[index] = sender
                        logger.notice("multicasting channel \(channel.number) \(channel.name) to \(entry.text)\(lockedNow[index] != nil ? ": its lock ended" : "")")
                        lockedNow[index] = nil
                    } catch {
                        failed.insert(index)
                        logger.error("cannot multicast channel \(channel.number): \(error)")
                    }
                }
            }
            try? await Task.sleep(for: locks.locks.isActive ? Self.lockCheckInterval : .seconds(3600))
        }
        for (index, sender) in sending { await server.unsubscribe(sender, from: senders[index].channel) }
    }

    /// A channel sent and where to.
    struct Destination: Sendable {
        var channel: Channel
        var address: SocketAddress
        /// `udp://239.1.1.1:5000 (ttl 1)`, for the log.
        var text: String
    }

    /// How often each channel is announced by SAP (RFC 2974 asks for at least every 5 minutes
    /// at low rates; players forget a session they have not heard of for about an hour).
    static let announcementInterval: Duration = .seconds(5)

    /// One SAP announcement for each channel sent, from the socket's local address (the
    /// interface's, when given).
    private func announcements(of channels: [Channel], socket: any NIOCore.Channel) -> [SAPAnnouncement] {
        let origin = plan.interface ?? socket.localAddress?.ipAddress ?? "0.0.0.0"
        let destinations = plan.destinations(server.lineup)
        let sent = channels.compactMap { channel in destinations.first { $0.channel.id == channel.id } }
        if plan.interface == nil {
            logger.warning("SAP announcements name 0.0.0.0 as their origin: give --multicast-interface for a real one")
        }
        return sent.map { SAPAnnouncement(channel: $0.channel, destination: $0.destination, ttl: plan.ttl, rtp: plan.rtp, origin: origin) }
    }

    /// Announces each channel sent every `interval`; a channel while it is locked is not
    /// announced (a deletion is sent when it turns locked), as it is not sent.
    private func announce(_ announcements: [SAPAnnouncement], on socket: any NIOCore.Channel, every interval: Duration) async throws {
        logger.notice("announcing \(announcements.count) channel(s) by SAP to \(SAPAnnouncement.group):\(SAPAnnouncement.port)")
        var withdrawn = Set<String>()
        while !Task.isCancelled {
            var open: [SAPAnnouncement] = []
            for announcement in announcements {
                if locks.reason(for: announcement.channel) != nil {
                    if withdrawn.insert(announcement.channel.id).inserted { open.append(announcement.deletion) }
                } else {
                    withdrawn.remove(announcement.channel.id)
                    open.append(announcement)
                }
            }
            try await send(open, on: socket)
            try await Task.sleep(for: locks.locks.isActive ? min(interval, Self.lockCheckInterval * 5) : interval)
        }
    }

    private func send(_ announcements: [SAPAnnouncement], on socket: any NIOCore.Channel) async throws {
        let to = try SocketAddress(ipAddress: SAPAnnouncement.group, port: SAPAnnouncement.port)
        for announcement in announcements {
            guard let packet = announcement.packet else { continue }
            try await socket.writeAndFlush(AddressedEnvelope(remoteAddress: to, data: packet)).get()
        }
    }
}
