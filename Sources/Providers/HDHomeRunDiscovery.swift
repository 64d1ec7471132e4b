import Foundation
import NIOCore
import NIOConcurrencyHelpers
import NIOPosix

/// An HDHomeRun tuner that answered discovery: who it is and where its HTTP API is.
public struct HDHomeRunFound: Sendable, Hashable {
    public var deviceID: UInt32
    /// The address the reply came from.
    public var address: String
    /// Tuners, as the reply says (a real device says so; nil when it did not).
    public var tunerCount: Int?
    /// `http://ADDRESS[:PORT]`: where `discover.json` and `lineup.json` are.
    public var baseURL: String?
    public var lineupURL: String?

    public init(deviceID: UInt32, address: String, tunerCount: Int? = nil, baseURL: String? = nil, lineupURL: String? = nil) {
        self.deviceID = deviceID
        self.address = address
        self.tunerCount = tunerCount
        self.baseURL = baseURL
        self.lineupURL = lineupURL
    }

    /// `1234ABCD`, as the device's label and `hdhomerun_config` show it.
    public var deviceIDText: String { HDHomeRunFound.text(deviceID) }

    public static func text(_ id: UInt32) -> String {
        let hex = String(id, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 8 - hex.count)) + hex
    }

    /// The found device in a discovery reply from `address`; nil when it is no tuner's reply.
    public init?(reply: HDHomeRunPacket, from address: String) {
        guard reply.packetType == .discoverReply, let id = reply.uint32(.deviceID) else { return nil }
        if let type = reply.uint32(.deviceType), type != HDHomeRunPacket.deviceTypeTuner { return nil }
        self.init(deviceID: id, address: address)
        // One byte; a device with none is not one to play from.
        if let count = reply.value(.tunerCount)?.first, count > 0 { tunerCount = Int(count) }
        // Only http URLs of a sane length are taken: this is what the box will ask next.
        baseURL = reply.string(.baseURL).flatMap(Self.httpURL)
        lineupURL = reply.string(.lineupURL).flatMap(Self.httpURL)
    }

    static func httpURL(_ text: String) -> String? {
        guard text.count <= 512, let url = URL(string: text), url.scheme?.lowercased() == "http", url.host != nil else { return nil }
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }
}

/// HDHomeRun discovery (libhdhomerun's protocol on UDP 65001): a request for tuners sent to the
/// LAN's broadcast addresses, or to one address, and the replies that come within a window.
public enum HDHomeRunDiscovery {
    /// The protocol's port.
    public static let port = 65001

    /// Where a discovery is sent.
    public enum Target: Sendable, Hashable {
        /// Every IPv4 interface's broadcast address and 255.255.255.255.
        case broadcast
        /// One device's address (a LAN where broadcasts do not pass, a device on another subnet).
        case address(String, port: Int = HDHomeRunDiscovery.port)
    }

    /// Sends the request (twice, as UDP may drop one) and gathers the replies for `window`;
    /// each device once, by id. `deviceID` asks one device (the wildcard: all of them).
    public static func discover(
        _ target: Target, deviceID: UInt32 = HDHomeRunPacket.wildcard, window: Duration = .milliseconds(800)
    ) async throws -> [HDHomeRunFound] {
        var request = HDHomeRunPacket(.discoverRequest)
        request.append(.deviceType, uint32: HDHomeRunPacket.deviceTypeTuner)
        request.append(.deviceID, uint32: deviceID)
        let bytes = request.encoded()
        let destinations = try addresses(target)
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(ChannelOptions.socketOption(.so_broadcast), value: 1)
            .bind(host: "0.0.0.0", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>(wrappingChannelSynchronously: channel)
                }
            }
        let found = FoundDevices()
        try await channel.executeThenClose { inbound, outbound in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await envelope in inbound {
                        guard envelope.data.readableBytes <= HDHomeRunPacket.maxSize * 2,
                              case .packet(let reply, _) = HDHomeRunPacket.decode(Array(buffer: envelope.data)),
                              let device = HDHomeRunFound(reply: reply, from: envelope.remoteAddress.ipAddress ?? "?"),
                              deviceID == HDHomeRunPacket.wildcard || device.deviceID == deviceID else { continue }
                        found.add(device)
                    }
                }
                group.addTask {
                    for round in 0..<2 {
                        for destination in destinations {
                            // An interface that cannot send (down, no route) is skipped; others may.
                            try? await outbound.write(AddressedEnvelope(remoteAddress: destination, data: ByteBuffer(bytes: bytes)))
                        }
                        if round == 0 { try await Task.sleep(for: window / 3) }
                    }
                    try await Task.sleep(for: window - window / 3)
                }
                // The sender ends the window; the listener is then stopped.
                _ = try await group.next()
                group.cancelAll()
            }
        }
        return found.all.sorted { $0.deviceID < $1.deviceID }
    }

    /// The socket addresses a discovery goes to.
    static func addresses(_ target: Target) throws -> [SocketAddress] {
        switch target {
        case .address(let host, let port):
            do { return [try SocketAddress(ipAddress: host, port: port)] } catch {
                throw SourceFailure.said(.setting, "'\(host)' is not an IP address to send HDHomeRun discovery to")
            }
        case .broadcast:
            // Each IPv4 interface's subnet broadcast, worked out from its address and netmask as
            // libhdhomerun does (an address added without `brd` has no broadcast of its own).
            // The limited broadcast only when there is none: it needs a default route, and a
            // send that fails (ENETUNREACH) closes the socket for the replies too.
            var all: [SocketAddress] = []
            for device in (try? System.enumerateDevices()) ?? [] {
                guard let address = device.address?.ipAddress, let mask = device.netmask?.ipAddress,
                      let ip = ipv4(address), let bits = ipv4(mask), ip >> 24 != 127,
                      let broadcast = try? SocketAddress(ipAddress: dotted(ip | ~bits), port: port),
                      !all.contains(broadcast) else { continue }
                all.append(broadcast)
            }
            if all.isEmpty { all.append(try SocketAddress(ipAddress: "255.255.255.255", port: port)) }
            return all
        }
    }
}

extension HDHomeRunDiscovery {
    /// `a.b.c.d` as a number; nil when it is no IPv4 address.
    static func ipv4(_ text: String) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard part.count <= 3, let byte = UInt8(part) else { return nil }
            value = value << 8 | UInt32(byte)
        }
        return value
    }

    static func dotted(_ value: UInt32) -> String {
        "\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)"
    }
}

/// Replies gathered from the listening task, read after it ended.
private final class FoundDevices: Sendable {
    private let state = NIOLockedValueBox<[UInt32: HDHomeRunFound]>([:])
    func add(_ device: HDHomeRunFound) { state.withLockedValue { if $0[device.deviceID] == nil { $0[device.deviceID] = device } } }
    var all: [HDHomeRunFound] { state.withLockedValue { Array($0.values) } }
}

