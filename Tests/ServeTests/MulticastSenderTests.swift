import Foundation
import NIOCore
import NIOPosix
@testable import Serve
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension ServeTests {
    /// What `MulticastSender` puts on the wire, received on a loopback socket (a unicast
    /// destination: the framing is the same, and nothing leaves the machine).
    @Suite struct MulticastFraming {
        /// `count` transport stream packets numbered in their payload's first byte.
        static func packets(_ count: Int, from first: Int = 0) -> ByteBuffer {
            var buffer = ByteBuffer()
            for i in 0..<count {
                buffer.writeInteger(UInt8(0x47))
                buffer.writeBytes([UInt8](repeating: UInt8((first + i) & 0xFF), count: 187))
            }
            return buffer
        }

        @Test(arguments: [false, true])
        func datagramsCarrySevenPacketsAndRTPHeadersWhenAsked(rtp: Bool) async throws {
            let receiver = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            defer { close(receiver) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(receiver, $0, length) } }
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(receiver, $0, &length) } }
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(receiver, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let port = Int(UInt16(bigEndian: address.sin_port))

            let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
            defer { channel.close(promise: nil) }
            let sender = MulticastSender(socket: channel, destination: try SocketAddress(ipAddress: "127.0.0.1", port: port), rtp: rtp)
            sender.receive(Self.packets(3), keyframe: nil) // before a keyframe: nothing is sent
            sender.receive(Self.packets(10, from: 100), keyframe: TransportStreamKeyframe(tables: Self.packets(2, from: 200), pts: 0))
            sender.receive(Self.packets(7, from: 50), keyframe: nil)

            var datagrams: [[UInt8]] = []
            var buffer = [UInt8](repeating: 0, count: 2048)
            while datagrams.count < 4 {
                let n = buffer.withUnsafeMutableBytes { recv(receiver, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { break }
                datagrams.append(Array(buffer[0..<n]))
            }
            let header = rtp ? 12 : 0
            // tables (2 packets), the keyframe chunk (7 + 3), the next chunk (7).
            #expect(datagrams.map(\.count) == [2, 7, 3, 7].map { header + $0 * 188 }, "\(datagrams.map(\.count))")
            #expect(datagrams.map { $0[header + 1] } == [200, 100, 107, 50], "in order, starting at the keyframe's tables")
            #expect(datagrams.allSatisfy { $0[header] == 0x47 })
            if rtp {
                #expect(datagrams.allSatisfy { $0[0] == 0x80 && $0[1] == 33 }, "RTP version 2, payload type 33 (MP2T)")
                let sequence = datagrams.map { UInt16($0[2]) << 8 | UInt16($0[3]) }
                #expect(zip(sequence, sequence.dropFirst()).allSatisfy { $1 == $0 &+ 1 }, "sequence numbers count up: \(sequence)")
                #expect(Set(datagrams.map { $0[8..<12] }).count == 1, "one SSRC")
            }
        }
    }
}
