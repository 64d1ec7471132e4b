import Foundation
import GStreamer
import MediaFormats

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
    /// The start offset is moved back to the keyframe before it at the first read.
    private var snapPending: Bool

    /// Bytes handed to the `appsrc` at a time: 64 TS packets.
    static let chunk = 64 * 188
    /// What the `appsrc` may hold before a push waits (a few seconds of a TV stream).
    static let maxQueuedBytes = 2 << 20
    /// How often the end of a growing file is looked at again.
    static let growthPoll: Duration = .milliseconds(200)

    /// How far back from a start offset a keyframe is looked for (some 20 s of a 3 Mb/s channel).
    static let keyframeWindow = 8 << 20

    /// `snapsToKeyframe`: the first read starts at the keyframe at or before `offset` (found in
    /// the `keyframeWindow` before it, `TSRandomAccess`), so the picture comes at once instead
    /// of at the next keyframe read at real time (up to a GOP later).
    init(path: String, offset: UInt64, snapsToKeyframe: Bool = false, isGrowing: @escaping @Sendable () -> Bool) {
        self.path = path
        self.offset = offset
        self.isGrowing = isGrowing
        snapPending = snapsToKeyframe && offset > 0
    }

    /// The offset of the keyframe at or before `offset` in the file `handle` reads (whole
    /// packets), `offset` itself when none is in the window before it.
    static func keyframeStart(_ handle: FileHandle, before offset: UInt64) -> UInt64 {
        let packet = UInt64(TSRandomAccess.packet)
        let back = min(offset, UInt64(keyframeWindow)) / packet * packet
        let from = offset - back
        // One packet past the offset: a keyframe starting right there counts.
        guard (try? handle.seek(toOffset: from)) != nil, let data = try? handle.read(upToCount: Int(back + packet)),
              let found = TSRandomAccess.lastStart(in: [UInt8](data)), UInt64(found) <= back else { return offset }
        return from + UInt64(found)
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
        let snap = lock.withLock {
            defer { snapPending = false }
            return snapPending ? offset : nil
        }
        if let snap {
            let start = Self.keyframeStart(handle, before: snap)
            lock.withLock { if generation == mine { offset = start } }
        }
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
