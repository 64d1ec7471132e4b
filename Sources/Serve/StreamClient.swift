import Foundation
import Headend
import Lineup
import struct Lineup.Channel
import NIOCore

/// One client of a served channel (an HTTP TS connection): its own queue of transport stream,
/// bounded in bytes. It starts at a keyframe with the PAT and PMT in front (the cached one when
/// the channel has one, else the next), then follows live.
///
/// The muxer pushes and never waits: a client whose queue passes `maxQueuedBytes` is dropped
/// (its sequence throws `TapEnd.consumerTooSlow`) and `onDrop` runs once, on the muxer's thread.
/// Iterate once.
public final class StreamClient: TransportStreamSubscriber, AsyncSequence, @unchecked Sendable {
    public typealias Element = ByteBuffer

    public let id: UInt64
    public let channel: Channel
    /// Who it is, for the log (`127.0.0.1:51234`).
    public let peer: String
    let queue: BoundedQueue<ByteBuffer>
    private let lock = NSLock()
    private var started = false
    private var sent = 0

    init(id: UInt64, channel: Channel, peer: String, maxQueuedBytes: Int, onDrop: @escaping @Sendable (StreamClient, Int) -> Void) {
        self.id = id
        self.channel = channel
        self.peer = peer
        let box = WeakBox()
        queue = BoundedQueue(maxBytes: maxQueuedBytes, cost: { $0.readableBytes }) {
            if let client = box.client { onDrop(client, maxQueuedBytes) }
        }
        box.client = self
    }

    private final class WeakBox: @unchecked Sendable { weak var client: StreamClient? }

    /// True once the client got its keyframe.
    public var hasStarted: Bool { lock.withLock { started } }

    /// Bytes handed to the queue so far.
    public var bytesQueued: Int { lock.withLock { sent } }

    func receive(_ chunk: ByteBuffer, keyframe: TransportStreamKeyframe?) {
        // .some(nil): following, the chunk alone; .some(tables): joining here; nil: not yet.
        let join: ByteBuffer?? = lock.withLock {
            if started { return .some(nil) }
            guard let keyframe else { return nil }
            started = true
            return .some(keyframe.tables)
        }
        guard let join else { return }
        if let tables = join { queue.push(tables) }
        queue.push(chunk)
        lock.withLock { sent += chunk.readableBytes + (join?.readableBytes ?? 0) }
    }

    /// Ends the client's stream (normal end).
    func finish(_ reason: TapEnd? = nil) { queue.finish(reason) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let queue: BoundedQueue<ByteBuffer>
        public mutating func next() async throws -> ByteBuffer? { try await queue.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(queue: queue) }
}
