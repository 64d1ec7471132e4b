import Foundation
import GStreamer

/// Compressed video and audio of one channel since its last keyframe (and the audio that plays
/// from that keyframe on, even when it arrived before it), with the caps needed to start a
/// decoder there. The cached entries always start with the keyframe once there is one. Filled on the ingest streaming threads; read by flips.
///
/// Thread-safe. Consumers attached with `attach` get the cached GOP and then every new entry,
/// in arrival order, under the same lock, so nothing is lost or doubled between the two.
public final class GOPCache: @unchecked Sendable {
    public enum Track: Sendable { case video, audio }

    /// One compressed buffer with its running time in the ingest pipeline.
    public struct Entry: Sendable {
        public var track: Track
        public var buffer: Buffer
        /// Presentation running time.
        public var pts: ClockTime
        /// Decode running time (equals `pts` without B-frames; `.none` when unknown).
        public var dts: ClockTime
        public var isKeyframe: Bool
    }

    private let lock = NSLock()
    private var entries: [Entry] = []
    private var bytes = 0
    private var videoCapsValue: Caps?
    private var audioCapsValue: Caps?
    private var consumers: [UInt: @Sendable (Entry) -> Void] = [:]
    private var lastArrival: ContinuousClock.Instant?
    private var overBudgetValue = false
    private var budget: Int
    private var measuredGOPBytes: Int?

    public init(budgetBytes: Int = WarmBudget.defaultChannelBytes) {
        self.budget = budgetBytes
    }

    /// Bytes a GOP may take before the cache gives up on it (keyframe interval too long).
    public var budgetBytes: Int {
        get { lock.withLock { budget } }
        set { lock.withLock { budget = newValue } }
    }

    /// The bytes one GOP of this channel takes: the last whole GOP (keyframe to keyframe), or
    /// the size at which a GOP outgrew `budgetBytes`, or the one filling now when that is
    /// larger. Nil until a whole GOP was seen. Kept across `reset()` (the stream is the same
    /// one when the channel is started again).
    public var gopBytes: Int? {
        lock.withLock {
            guard let measuredGOPBytes else { return nil }
            return entries.first?.isKeyframe == true ? max(measuredGOPBytes, bytes) : measuredGOPBytes
        }
    }

    public var videoCaps: Caps? { lock.withLock { videoCapsValue } }
    public var audioCaps: Caps? { lock.withLock { audioCapsValue } }
    /// True when a keyframe is cached (a flip here is a warm flip).
    public var hasKeyframe: Bool { lock.withLock { entries.first?.isKeyframe == true } }
    // Before the first keyframe, `entries` may hold audio only (carried forward at the keyframe).
    public var byteCount: Int { lock.withLock { bytes } }
    /// True when the last GOP outgrew `budgetBytes` and was dropped.
    public var isOverBudget: Bool { lock.withLock { overBudgetValue } }
    private let streamLock = NSLock()
    private var audioStream = false

    /// True once the ingest routed an audio stream here (its format may not be known yet).
    /// Readable under the cache lock, i.e. from a consumer.
    public var hasAudioStream: Bool { streamLock.withLock { audioStream } }

    /// Called by the ingest when it routes an audio stream to this cache.
    public func markAudioStream() { streamLock.withLock { audioStream = true } }

    private var firstDelivery: (@Sendable () -> Void)?

    /// Calls `handler` (on the streaming thread, under the cache's lock: it must only post) when
    /// the first data arrives after the last `reset()`. Nil removes it.
    public func onFirstDelivery(_ handler: (@Sendable () -> Void)?) {
        lock.withLock { firstDelivery = handler }
    }

    /// When the source last delivered anything.
    public var lastDelivery: ContinuousClock.Instant? { lock.withLock { lastArrival } }

    /// Adds a buffer from the ingest appsink (streaming thread).
    public func append(_ sample: Sample, track: Track) {
        guard let buffer = sample.buffer else { return }
        let pts = sample.runningTime(buffer.pts)
        let dts = sample.runningTime(buffer.dts)
        let entry = Entry(track: track, buffer: buffer, pts: pts.isValid ? pts : dts, dts: dts,
                          isKeyframe: track == .video && buffer.isKeyframe)
        lock.lock()
        defer { lock.unlock() }
        if lastArrival == nil { firstDelivery?() }
        lastArrival = .now
        if track == .video {
            if let caps = sample.caps, videoCapsValue.map({ !($0 == caps) }) ?? true { videoCapsValue = caps }
        } else if let caps = sample.caps, audioCapsValue.map({ !($0 == caps) }) ?? true {
            audioCapsValue = caps
        }
        if entry.isKeyframe {
            // Muxers often send audio ahead of the video of the same moment: keep the audio that
            // plays from the keyframe on, placed after it, so a flip starts with sound.
            if entries.first?.isKeyframe == true { measuredGOPBytes = bytes }
            let carried = entries.filter { $0.track == .audio && $0.pts.isValid && $0.pts >= entry.pts }
            entries.removeAll(keepingCapacity: true)
            entries.append(entry)
            entries.append(contentsOf: carried)
            bytes = carried.reduce(buffer.size) { $0 + $1.buffer.size }
            overBudgetValue = false
        } else if entries.isEmpty && entry.track == .video {
            // No video cached until the first keyframe; consumers still see live data.
        } else {
            entries.append(entry)
            bytes += buffer.size
            if entries.first?.isKeyframe != true, entry.pts.isValid, entry.pts > 3 * ClockTime.second {
                // Audio waiting for a keyframe: keep the last 3 s.
                let cut = entry.pts - 3 * ClockTime.second
                while let first = entries.first, first.pts < cut {
                    bytes -= first.buffer.size
                    entries.removeFirst()
                }
            }
            if bytes > budget {
                if entries.first?.isKeyframe == true { measuredGOPBytes = bytes }
                entries.removeAll(keepingCapacity: false)
                bytes = 0
                overBudgetValue = true
            }
        }
        for consumer in consumers.values { consumer(entry) }
    }

    /// Returns the cached GOP and registers `consumer` for every later entry (called on ingest
    /// streaming threads with the cache lock held: it must only push and return).
    public func attach(id: UInt, consumer: @escaping @Sendable (Entry) -> Void) -> (entries: [Entry], video: Caps?, audio: Caps?) {
        lock.withLock {
            consumers[id] = consumer
            return (entries, videoCapsValue, audioCapsValue)
        }
    }

    public func detach(id: UInt) {
        _ = lock.withLock { consumers.removeValue(forKey: id) }
    }

    /// Forgets everything (source stopped or restarted).
    public func reset() {
        lock.withLock {
            entries.removeAll()
            bytes = 0
            lastArrival = nil
            streamLock.withLock { audioStream = false }
        }
    }
}
