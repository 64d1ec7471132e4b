import Foundation
import NIOCore

/// Sends one served channel's transport stream to a multicast group: datagrams of 7 packets
/// (1316 bytes), plain or behind an RTP header (payload type 33, a 90 kHz timestamp). A
/// `TransportStreamSubscriber`: called by the fanout, it hands datagrams to the socket and never
/// waits; while the socket cannot take more, chunks are dropped and counted.
final class MulticastSender: TransportStreamSubscriber, @unchecked Sendable {
    let destination: SocketAddress
    private let socket: any NIOCore.Channel
    private let rtp: Bool
    private let lock = NSLock()
    private var sequence = UInt16.random(in: 0...UInt16.max)
    private let ssrc = UInt32.random(in: 0...UInt32.max)
    private let started = ContinuousClock.now
    private var joined = false
    private var sentDatagrams = 0
    private var droppedChunks = 0

    init(socket: any NIOCore.Channel, destination: SocketAddress, rtp: Bool) {
        self.socket = socket
        self.destination = destination
        self.rtp = rtp
    }

    var datagrams: Int { lock.withLock { sentDatagrams } }
    var dropped: Int { lock.withLock { droppedChunks } }

    func receive(_ chunk: ByteBuffer, keyframe: TransportStreamKeyframe?) {
        lock.lock()
        // Start at a keyframe, with the tables in front, like any other subscriber.
        if !joined {
            guard let keyframe else { lock.unlock(); return }
            joined = true
            lock.unlock()
            send(keyframe.tables)
        } else {
            lock.unlock()
        }
        guard socket.isWritable else {
            lock.withLock { droppedChunks += 1 }
            return
        }
        send(chunk)
    }

    private func send(_ chunk: ByteBuffer) {
        var rest = chunk
        while rest.readableBytes > 0, let payload = rest.readSlice(length: min(rest.readableBytes, 7 * TransportStreamScanner.packetSize)) {
            var datagram = ByteBuffer()
            if rtp {
                let (seq, stamp) = lock.withLock { () -> (UInt16, UInt32) in
                    sequence &+= 1
                    let elapsed = (ContinuousClock.now - started).components
                    let ticks = UInt64(elapsed.seconds) * 90_000 + UInt64(elapsed.attoseconds / 11_111_111_111_111)
                    return (sequence, UInt32(truncatingIfNeeded: ticks))
                }
                datagram.writeInteger(UInt8(0x80))
                datagram.writeInteger(UInt8(33))
                datagram.writeInteger(seq)
                datagram.writeInteger(stamp)
                datagram.writeInteger(ssrc)
            }
            var p = payload
            datagram.writeBuffer(&p)
            socket.writeAndFlush(AddressedEnvelope(remoteAddress: destination, data: datagram), promise: nil)
            lock.withLock { sentDatagrams += 1 }
        }
    }
}
