import Foundation
import GStreamer

/// Reads a recording's file into an ingest's `appsrc` from a byte offset, as fast as the paced
/// ingest takes it (the `appsrc` blocks when it holds `maxQueuedBytes`, and the ingest's sinks
/// run at real time). At the end of the file it waits while the recording is still being
/// written (`isGrowing`) and goes on as it grows; once it is not, it ends the stream.
///
/// One reader serves every connection of the source that plays the recording: a reconnect (a
/// stall while the recording's channel stalled) goes on from where the last one was, not from
/// the start. Reads on a thread of its own; never on the media thread.
final class RecordingFileReader: @unchecked Sendable {
    let path: String
    private let isGrowing: @Sendable () -> Bool
    private let lock = NSLock()
    private var offset: UInt64
    private var generation = 0
    private var stopped = false

    /// Bytes handed to the `appsrc` at a time: 64 TS packets.
    static let chunk = 64 * 188
    /// What the `appsrc` may hold before a push waits (a few seconds of a TV stream).
    static let maxQueuedBytes = 2 << 20
    /// How often the end of a growing file is looked at again.
    static let growthPoll: Duration = .milliseconds(200)

    init(path: String, offset: UInt64, isGrowing: @escaping @Sendable () -> Bool) {
        self.path = path
        self.offset = offset
        self.isGrowing = isGrowing
    }

    /// Where the next read starts.
    var position: UInt64 { lock.withLock { offset } }

    /// Feeds `source` from the current offset; an earlier feeding stops.
    func feed(_ source: AppSource) {
        let mine: Int? = lock.withLock {
            guard !stopped else { return nil }
            generation += 1
            return generation
        }
        guard let mine else { return }
        let thread = Thread { [self] in run(source, generation: mine) }
        thread.name = "flipbox.recording.read"
        thread.start()
    }

    /// Stops reading for good (the playback ended or moved).
    func stop() { lock.withLock { stopped = true } }

    private func current(_ mine: Int) -> Bool { lock.withLock { !stopped && generation == mine } }

    private func run(_ source: AppSource, generation mine: Int) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            // The pipeline reports the end; the head-end says the file is gone.
            source.endOfStream()
            return
        }
        defer { try? handle.close() }
        while current(mine) {
            let at = position
            let data: Data
            do {
                try handle.seek(toOffset: at)
                data = try handle.read(upToCount: Self.chunk) ?? Data()
            } catch {
                source.endOfStream()
                return
            }
            if data.isEmpty {
                guard isGrowing() else {
                    if current(mine) { source.endOfStream() }
                    return
                }
                Thread.sleep(forTimeInterval: Self.growthPoll.seconds)
                continue
            }
            // A push waits while the appsrc is full; false once its pipeline stops.
            guard source.push(Buffer(bytes: [UInt8](data))) else { return }
            lock.withLock { if generation == mine { offset = at + UInt64(data.count) } }
        }
    }
}
