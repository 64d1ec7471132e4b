import Foundation
import GStreamer
import Lineup

/// Feeds a decoder from a timeshift buffer at real time, GOP after GOP, following the buffer as
/// it grows: what a viewer watches behind live.
///
/// Runs on a queue of its own (reading a GOP from disk never blocks the media thread or the
/// ingest). Entries are pushed `lead` ahead of their time; the decoder times them from its first
/// keyframe, so the picture plays at real time. Pausing stops the pushing (the decoder pipeline
/// pauses with it, so its clock stops too); resuming carries on from the next entry.
final class TimeshiftReplay: @unchecked Sendable {
    private let buffer: TimeshiftBuffer
    private let queue = DispatchQueue(label: "flipbox.timeshift.replay", qos: .userInitiated)
    private let lock = NSLock()
    private let decoder: ChannelDecoder
    private var serial: UInt64
    private var entries: [GOPCache.Entry] = []
    private var next = 0
    /// Real time `at` shows wall-clock moment `position` of the channel.
    private var reference: (at: ContinuousClock.Instant, position: Date)
    private var pausedAt: Date?
    private var stopped = false
    private var scheduled = false

    /// How far ahead of its time an entry is handed to the decoder.
    static let lead: Duration = .milliseconds(300)

    /// Replays from GOP `serial`, skipping its entries up to and including `after` (resuming
    /// where a paused live picture stopped); from its keyframe when `after` is nil.
    init(buffer: TimeshiftBuffer, decoder: ChannelDecoder, serial: UInt64, after: GOPCache.Entry?, position: Date, paused: Bool) {
        self.buffer = buffer
        self.decoder = decoder
        self.serial = serial
        reference = (.now, position)
        pausedAt = paused ? position : nil
        skipThrough = after
    }

    /// The entry the first GOP is skipped through; read with that GOP on the replay queue.
    private var skipThrough: GOPCache.Entry?
    private var loaded = false

    /// The moment of the channel on screen now.
    var position: Date {
        lock.withLock {
            if let pausedAt { return pausedAt }
            return reference.position.addingTimeInterval((ContinuousClock.now - reference.at).seconds)
        }
    }

    var isPaused: Bool { lock.withLock { pausedAt != nil } }

    func start() { queue.async { self.pump() } }

    func pause() {
        lock.withLock {
            guard pausedAt == nil else { return }
            pausedAt = reference.position.addingTimeInterval((ContinuousClock.now - reference.at).seconds)
        }
    }

    func resume() {
        lock.withLock {
            guard let pausedAt else { return }
            reference = (.now, pausedAt)
            self.pausedAt = nil
        }
        queue.async { self.pump() }
    }

    func stop() { lock.withLock { stopped = true } }

    /// Pushes every entry that is due, then sleeps until the next one is (replay queue).
    private func pump() {
        lock.lock()
        scheduled = false
        guard !stopped, pausedAt == nil else { lock.unlock(); return }
        lock.unlock()
        if !loaded {
            loaded = true
            entries = (try? buffer.read(serial)) ?? []
            if let after = skipThrough,
               let i = entries.firstIndex(where: { $0.track == after.track && $0.pts == after.pts && $0.dts == after.dts }) {
                next = i + 1
            }
        }
        while true {
            if next >= entries.count {
                // The open GOP grows; else move to the next one, if it exists yet.
                let grown = (try? buffer.read(serial)) ?? []
                if grown.count > entries.count {
                    entries = grown
                } else if let following = buffer.gop(after: serial), let read = try? buffer.read(following.serial) {
                    serial = following.serial
                    entries = read
                    next = 0
                } else {
                    return schedule(after: .milliseconds(20))
                }
                continue
            }
            let entry = entries[next]
            let wait: Duration? = lock.withLock {
                guard !stopped, pausedAt == nil else { return nil }
                guard let wall = buffer.wallTime(of: entry, in: serial) else { return .zero }
                let due = reference.at + .milliseconds(Int64(wall.timeIntervalSince(reference.position) * 1000)) - Self.lead
                return max(.zero, due - .now)
            }
            guard let wait else { return }
            if wait > .zero { return schedule(after: wait) }
            decoder.push(entry)
            next += 1
        }
    }

    private func schedule(after delay: Duration) {
        lock.withLock {
            guard !scheduled, !stopped else { return }
            scheduled = true
            let c = delay.components
            let nanos = Int(c.seconds) * 1_000_000_000 + Int(c.attoseconds / 1_000_000_000)
            queue.asyncAfter(deadline: .now() + .nanoseconds(max(nanos, 1_000_000))) { self.pump() }
        }
    }
}
