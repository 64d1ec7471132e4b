import Foundation
import GStreamer
import Lineup

/// One consumer of a channel's ingest other than a decoder (a timeshift buffer, a head-end
/// client, a clip job). Its own id space: never mixed with feed ids.
public struct TapID: Hashable, Sendable, CustomStringConvertible {
    public let value: UInt64
    public var description: String { "tap-\(value)" }
}

/// Why a tap stopped delivering.
public enum TapEnd: Error, Sendable, Equatable, CustomStringConvertible {
    /// The consumer fell more than `maxQueuedBytes` behind the ingest and was dropped: the ingest
    /// never waits for a consumer.
    case consumerTooSlow(queuedBytes: Int)
    /// The headend shut down.
    case headendStopped
    /// Something that outranks the consumer (a recording) needed its channel's stream.
    case preempted(by: String)

    public var description: String {
        switch self {
        case .consumerTooSlow(let bytes): "the consumer fell \(bytes / 1024) KiB behind the channel and was dropped"
        case .headendStopped: "the head-end stopped"
        case .preempted(let by): "its stream was needed by \(by)"
        }
    }
}

/// A consumer's view of one channel's compressed ingest: first the cached GOP from its keyframe
/// (so every consumer starts at once, with `videoCaps`/`audioCaps` to start at it), then every
/// entry live, in arrival order, with nothing lost or doubled between the two.
///
/// The ingest pushes into a queue bounded by `maxQueuedBytes`; a consumer that lets it grow past
/// that is dropped (the sequence throws `TapEnd.consumerTooSlow`), never waited for. While open,
/// the tap keeps its channel running (the warm plan never stops a tapped channel). Iterate it
/// once; `close()` (or the iterating task being cancelled, or the tap being released) ends it.
public final class IngestTap: AsyncSequence, Sendable {
    public typealias Element = GOPCache.Entry

    public let id: TapID
    public let channel: Channel
    /// The caps to start at the first entry (nil when the channel has not delivered that track yet).
    public let videoCaps: Caps?
    public let audioCaps: Caps?
    public let maxQueuedBytes: Int
    /// A queue of 32 MB holds more than 10 s of a 20 Mb/s channel.
    public static let defaultMaxQueuedBytes = 32 << 20

    let queue: BoundedQueue<GOPCache.Entry>
    private let release: @Sendable (TapID) -> Void

    init(id: TapID, channel: Channel, start: GOPCache.Start,
         queue: BoundedQueue<GOPCache.Entry>, release: @escaping @Sendable (TapID) -> Void) {
        self.id = id
        self.channel = channel
        self.videoCaps = start.video
        self.audioCaps = start.audio
        self.maxQueuedBytes = queue.maxBytes
        self.queue = queue
        self.release = release
    }

    deinit { close() }

    /// Ends the tap: the channel is no longer held running for it. Idempotent, any thread.
    public func close() {
        if queue.finish(nil) { release(id) }
    }

    /// Bytes waiting for the consumer.
    public var queuedBytes: Int { queue.queuedBytes }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let queue: BoundedQueue<GOPCache.Entry>
        public mutating func next() async throws -> GOPCache.Entry? { try await queue.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(queue: queue) }
}
