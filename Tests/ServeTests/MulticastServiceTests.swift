import Foundation
import Lineup
import NIOCore
@testable import Serve
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension ServeTests {
    /// The multicast socket's TTL and interface as the kernel has them, and channels sent to the
    /// group the lineup gives them, received on loopback (nothing leaves the machine).
    @Suite struct MulticastSending {
        @Test func theSendingSocketHasThePlansTTLAndInterface() async throws {
            let plan = try MulticastPlan("239.77.3.0/24:47010", ttl: 7, interface: "127.0.0.1")
            let socket = try await MulticastService.openSocket(plan)
            // getsockopt on the socket itself, not the plan read back.
            let ttl = try await socket.getOption(ChannelOptions.ipOption(.ip_multicast_ttl)).get()
            #expect(ttl == 7, "IP_MULTICAST_TTL \(ttl)")
            let options = try #require(socket as? any SocketOptionProvider)
            let interface = try await options.getIPMulticastIF().get()
            #expect(interface.s_addr == inet_addr("127.0.0.1"), "IP_MULTICAST_IF \(interface.s_addr)")
            #expect(socket.localAddress?.ipAddress == "127.0.0.1", "bound to the interface's address: \(String(describing: socket.localAddress))")
            try await socket.close()

            let plain = try await MulticastService.openSocket(try MulticastPlan("239.77.3.0/24:47010"))
            #expect(try await plain.getOption(ChannelOptions.ipOption(.ip_multicast_ttl)).get() == 1, "TTL 1 by default: the local network only")
            try await plain.close()

            // And a datagram sent through it arrives with that TTL in its IP header.
            let receiver = try MulticastReceiver(group: "239.77.3.1", port: 47010)
            defer { receiver.close() }
            let ttl5 = try await MulticastService.openSocket(try MulticastPlan("239.77.3.0/24:47010", ttl: 5, interface: "127.0.0.1"))
            try await ttl5.writeAndFlush(AddressedEnvelope(remoteAddress: try SocketAddress(ipAddress: "239.77.3.1", port: 47010),
                                                           data: ByteBuffer(bytes: [0x47, 1, 2, 3]))).get()
            let received = receiver.receive()
            #expect(received?.data == [0x47, 1, 2, 3])
            #expect(received?.ttl == 5, "the packet's IP TTL: \(String(describing: received?.ttl))")
            try await ttl5.close()
        }

        @Test func aChannelsOwnGroupFromTheLineupIsSentWithoutABlock() async throws {
            var own = makeChannel("test://color/ff8000?size=320x180&fps=30&gop=30&tone=440", number: 2)
            own.attributes["multicast"] = "239.77.2.9:47002"
            let harness = try await ServeHarness(channels: [makeChannel("test://color/0000ff?size=160x90&fps=30&gop=30", number: 1), own],
                                                 policy: .none) {
                $0.multicast = try? MulticastPlan(ttl: 3, interface: "127.0.0.1")
            }
            let receiver = try MulticastReceiver(group: "239.77.2.9", port: 47002)
            defer { receiver.close() }
            var stream = Data()
            var ttls = Set<Int32>()
            let deadline = ContinuousClock.now + .seconds(30)
            while stream.count < 150 * 1316, ContinuousClock.now < deadline {
                guard let datagram = receiver.receive() else { continue }
                stream.append(contentsOf: datagram.data)
                if let ttl = datagram.ttl { ttls.insert(ttl) }
            }
            #expect(stream.count >= 150 * 1316, "the channel's transport stream on 239.77.2.9:47002: \(stream.count) bytes")
            #expect(stream.first == 0x47 && stream.count % 188 == 0, "whole transport stream packets")
            #expect(ttls == [3], "sent with the serve command's TTL: \(ttls)")
            #expect(await harness.server.servedChannels == [ChannelNumber(2)], "channel 1 has no group and no block: not sent")

            let file = NSTemporaryDirectory() + "flipbox-multicast-\(UUID().uuidString).ts"
            try stream.write(to: URL(fileURLWithPath: file))
            defer { try? FileManager.default.removeItem(atPath: file) }
            let probe = try await runTool("ffprobe", ["-v", "error", "-of", "csv=p=0", "-show_entries", "stream=codec_name,width", file])
            #expect(probe.text.contains("h264,320") && probe.text.contains("aac"), "channel 2's picture and sound: \(probe.text) \(probe.errors)")
            await harness.stop()
        }

        @Test func sapAnnouncesEachChannelWithAnSDPAPlayerCanUse() async throws {
            var own = makeChannel("test://color/ff8000?size=160x90&fps=30&gop=30", number: 6, name: "Orange Six")
            own.attributes["multicast"] = "239.77.4.9:47004"
            own.group = "Colours"
            let sapReceiver = try MulticastReceiver(group: SAPAnnouncement.group, port: SAPAnnouncement.port)
            defer { sapReceiver.close() }
            let harness = try await ServeHarness(channels: [own], policy: .none) {
                $0.multicast = try? MulticastPlan(ttl: 2, interface: "127.0.0.1")
                $0.multicast?.sap = true
            }
            // Ours: from 127.0.0.1, naming our group (another program may announce too).
            var announcement: (header: [UInt8], type: String, sdp: String)?
            let deadline = ContinuousClock.now + .seconds(20)
            while announcement == nil, ContinuousClock.now < deadline {
                guard let datagram = sapReceiver.receive(), let parsed = Self.parseSAP(datagram.data), parsed.sdp.contains("239.77.4.9") else { continue }
                announcement = parsed
                #expect(datagram.ttl == 2, "sent with the plan's TTL: \(String(describing: datagram.ttl))")
            }
            let sap = try #require(announcement, "a SAP announcement on \(SAPAnnouncement.group):\(SAPAnnouncement.port) within 20 s")
            #expect(sap.header[0] >> 5 == 1, "SAP version 1")
            #expect(sap.header[0] & 0x10 == 0 && sap.header[0] & 0x04 == 0 && sap.header[1] == 0, "IPv4, an announcement, no authentication")
            #expect(Array(sap.header[4..<8]) == [127, 0, 0, 1], "the origin is the interface's address")
            #expect(sap.type == "application/sdp")
            let lines = sap.sdp.components(separatedBy: "\r\n")
            #expect(lines.first == "v=0" && lines.last == "", "CRLF lines starting with v=0: \(sap.sdp)")
            #expect(lines.contains("s=Orange Six") && lines.contains("c=IN IP4 239.77.4.9/2") && lines.contains("m=video 47004 udp mpeg"), "\(lines)")
            #expect(lines.contains("a=x-plgroup:Colours") && lines.contains { $0.hasPrefix("o=- ") && $0.hasSuffix(" IN IP4 127.0.0.1") }, "\(lines)")

            // And what it describes plays: the group it names carries the channel.
            let media = try MulticastReceiver(group: "239.77.4.9", port: 47004)
            defer { media.close() }
            let datagram = await Task.detached { media.receive() }.value
            #expect(datagram?.data.first == 0x47, "the announced group carries a transport stream")

            // On shutdown the session is deleted (the T bit).
            await harness.stop()
            var deleted = false
            let until = ContinuousClock.now + .seconds(10)
            while !deleted, ContinuousClock.now < until {
                guard let datagram = sapReceiver.receive() else { break }
                if let parsed = Self.parseSAP(datagram.data), parsed.sdp.contains("239.77.4.9"), parsed.header[0] & 0x04 != 0 { deleted = true }
            }
            #expect(deleted, "a deletion packet when the head-end stops")
        }

        /// Splits a SAP packet (RFC 2974, IPv4, no authentication) into its 8-byte header, its
        /// payload type and the SDP; nil when it is not one.
        static func parseSAP(_ packet: [UInt8]) -> (header: [UInt8], type: String, sdp: String)? {
            guard packet.count > 8, packet[0] >> 5 == 1, packet[0] & 0x10 == 0 else { return nil }
            let body = packet[(8 + Int(packet[1]) * 4)...]
            guard let zero = body.firstIndex(of: 0) else { return nil }
            return (Array(packet[0..<8]), String(decoding: body[..<zero], as: UTF8.self), String(decoding: body[(zero + 1)...], as: UTF8.self))
        }

        @Test func channelsWithTheirOwnGroupLeaveTheBlockForTheOthers() throws {
            var own = makeChannel("test://smpte", number: 2)
            own.attributes["multicast"] = "239.9.0.5:6000"
            let lineup = Lineup(channels: [makeChannel("test://smpte", number: 1), own, makeChannel("test://smpte", number: 3)])
            let block = try MulticastPlan("239.1.1.0/24:5000").destinations(lineup).map { "\($0.channel.number) \($0.destination)" }
            #expect(block == ["1 239.1.1.1:5000", "2 239.9.0.5:6000", "3 239.1.1.3:5000"], "\(block)")
            let ownOnly = try MulticastPlan(ttl: 2).destinations(lineup).map { "\($0.channel.number) \($0.destination)" }
            #expect(ownOnly == ["2 239.9.0.5:6000"], "\(ownOnly)")
        }
    }
}

/// A UDP socket joined to a multicast group on the loopback interface, reading datagrams with
/// the TTL of their IP header (`IP_RECVTTL`).
final class MulticastReceiver: @unchecked Sendable {
    private let fd: Int32

    init(group: String, port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fd, Int32(IPPROTO_IP), IP_RECVTTL, &on, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(group)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var membership = ip_mreq(imr_multiaddr: in_addr(s_addr: inet_addr(group)), imr_interface: in_addr(s_addr: inet_addr("127.0.0.1")))
        let joined = setsockopt(fd, Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP, &membership, socklen_t(MemoryLayout<ip_mreq>.size))
        guard bound == 0, joined == 0 else {
            Glibc.close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EINVAL)
        }
    }

    /// The next datagram (nil after 2 s without one) and its IP TTL.
    func receive() -> (data: [UInt8], ttl: Int32?)? {
        var data = [UInt8](repeating: 0, count: 65536)
        var control = [UInt8](repeating: 0, count: 128)
        var ttl: Int32?
        let count = data.withUnsafeMutableBytes { payload in
            control.withUnsafeMutableBytes { ancillary -> Int in
                var vector = iovec(iov_base: payload.baseAddress, iov_len: payload.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var message = msghdr()
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    message.msg_control = ancillary.baseAddress
                    message.msg_controllen = ancillary.count
                    let n = recvmsg(fd, &message, 0)
                    // cmsghdr: a size_t length, then level and type (Int32 each), then the data.
                    var offset = 0
                    let header = MemoryLayout<Int>.size + 8
                    while n > 0, offset + header + 4 <= Int(message.msg_controllen) {
                        let length = ancillary.load(fromByteOffset: offset, as: Int.self)
                        let level = ancillary.load(fromByteOffset: offset + MemoryLayout<Int>.size, as: Int32.self)
                        let type = ancillary.load(fromByteOffset: offset + MemoryLayout<Int>.size + 4, as: Int32.self)
                        if level == Int32(IPPROTO_IP), type == IP_TTL {
                            ttl = ancillary.load(fromByteOffset: offset + header, as: Int32.self)
                        }
                        guard length >= header else { break }
                        offset += (length + MemoryLayout<Int>.size - 1) & ~(MemoryLayout<Int>.size - 1)
                    }
                    return n
                }
            }
        }
        guard count > 0 else { return nil }
        return (Array(data[0..<count]), ttl)
    }

    func close() { Glibc.close(fd) }
}
