import FlipboxCore
import Foundation
import GStreamer
import Lineup
import Logging

/// How much of a channel the timeshift keeps, and where.
public struct TimeshiftSettings: Sendable, Equatable {
    /// How far back a viewer can go (a rolling window).
    public var window: Duration
    /// Compressed data kept in memory per channel; older GOPs go to segment files on disk.
    public var memoryBytes: Int
    /// Where the segment files go (one directory per buffer inside it, removed when it closes).
    public var directory: URL
    /// Flipping back to a channel left behind live (recall) returns to where it was, not to live.
    public var resumePosition = false
    /// Warm channels not on screen keep this much (in memory, within `backgroundBytes`), so a
    /// viewer can go back to before they tuned in; nil: only channels that were shown have a buffer.
    public var warmSeconds: Duration?

    public static let defaultWindow: Duration = .seconds(30 * 60)
    public static let defaultMemoryBytes = 64 << 20

    public init(window: Duration = defaultWindow, memoryBytes: Int = defaultMemoryBytes, directory: URL) {
        self.window = window
        self.memoryBytes = memoryBytes
        self.directory = directory
    }

    /// `$XDG_CACHE_HOME/flipbox/timeshift`, else `~/.cache/flipbox/timeshift`.
    public static var defaultDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory() + "/.cache"
        return URL(fileURLWithPath: base).appendingPathComponent("flipbox/timeshift")
    }
}

/// One channel's recent compressed data, GOP by GOP, for moving back in time: the newest GOPs in
/// memory up to `memoryBytes`, older ones appended to segment files (one per minute), all within
/// the rolling window. A keyframe index (one `GOPInfo` per GOP, with its wall-clock start and,
/// once on disk, its place in its file) answers seeks.
///
/// Filled by one consumer task from an ingest tap (`append`), read by replays (`read`, `gops`),
/// both under one lock. Segment files are written and deleted on the one disk queue all buffers
/// share (`TimeshiftSegmentFile.disk`): neither the ingest nor a replay ever waits for the disk.
/// A GOP stays readable from memory until it is written; a file is deleted once none of its GOPs
/// is in the window and no newer file took over.
///
/// When a write fails (a full disk), the buffer is in memory only, within `memoryBytes`: the
/// GOPs on disk go (their files are deleted), then the oldest in memory, so the window shrinks
/// to what memory holds; `diskRefusal` says why. Every `retryAfterRefusal` it tries the disk
/// again, and once a write succeeds, older GOPs go to disk again and the window grows back.
public final class TimeshiftBuffer: @unchecked Sendable {
    /// One GOP of the index: where it starts in wall-clock time and in the source's timeline.
    public struct GOPInfo: Sendable, Equatable {
        /// Increases by one per GOP, never reused.
        public var serial: UInt64
        /// The wall-clock time of the keyframe.
        public var start: Date
        /// Wall-clock time of the last entry in it.
        public var end: Date
        public var bytes: Int
        public var onDisk: Bool
    }

    public let settings: TimeshiftSettings
    public let directory: URL
    private let logger: Logger
    private let lock = NSLock()
    private var gops: [StoredGOP] = []
    private var nextSerial: UInt64 = 1
    private var memoryBytes = 0
    /// Maps source time to wall-clock time: the newest entry's source time and arrival.
    private var anchor: (pts: ClockTime, at: Date)?
    private var closed = false
    private var disk: DispatchQueue { TimeshiftSegmentFile.disk }
    /// The files holding GOPs (or being written), oldest first; the last one takes new GOPs.
    private var files: [TimeshiftSegmentFile] = []
    /// When (on the clock `append` is given) the disk last refused a write: no GOP is written
    /// for `retryAfterRefusal` after, and the refusal is told once.
    private var refusedAt: Date?
    /// Why the disk refuses (the latest failed write), until a write succeeds.
    private var refusal: TimeshiftDiskRefusal?
    private var diskObserver: (@Sendable () -> Void)?

    /// Calls `observer` (on the disk queue) when the disk starts refusing segments and when it
    /// takes them again: `diskRefusal` has changed.
    public func onDiskChange(_ observer: @escaping @Sendable () -> Void) { lock.withLock { diskObserver = observer } }
    static let retryAfterRefusal: TimeInterval = 10

    /// A GOP: its entries in memory, or its file once written. Mutable fields are read and
    /// written under the buffer's lock only.
    private final class StoredGOP: @unchecked Sendable {
        let serial: UInt64
        let keyPTS: ClockTime
        var start: Date
        var end: Date
        var lastPTS: ClockTime
        var entries: [GOPCache.Entry]?
        var bytes: Int
        /// Where it is on disk, once written.
        var stored: (file: TimeshiftSegmentFile, offset: UInt64, length: Int)?
        var writing = false
        init(serial: UInt64, key: GOPCache.Entry, at: Date) {
            self.serial = serial
            keyPTS = key.pts
            start = at
            end = at
            lastPTS = key.pts
            entries = [key]
            bytes = key.buffer.size
        }
        var info: GOPInfo { GOPInfo(serial: serial, start: start, end: end, bytes: bytes, onDisk: stored != nil) }
    }

    public init(channel label: String, settings: TimeshiftSettings, logger: Logger) throws {
        self.settings = settings
        self.logger = logger
        let safe = label.map { $0.isLetter || $0.isNumber ? $0 : "-" }
        directory = settings.directory.appendingPathComponent("\(getpid())-\(String(safe))-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Removes segment directories left by processes that are gone (a crash, a kill).
    public static func removeStale(in directory: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names {
            guard let pid = name.split(separator: "-").first.flatMap({ Int32($0) }), pid != getpid(),
                  kill(pid, 0) != 0 else { continue }
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
    }

    /// Adds one entry, arriving now (the tap's consumer task). Entries before the first keyframe
    /// are dropped: a replay must start at one.
    public func append(_ entry: GOPCache.Entry, at now: Date = Date()) {
        var spill: [(StoredGOP, TimeshiftSegmentFile)] = []
        var expired: [TimeshiftSegmentFile] = []
        lock.withLock {
            guard !closed else { return }
            let time = entry.pts
            if time.isValid {
                if let anchor, entry.track == .video, time < anchor.pts ? anchor.pts - time > ClockTime.second : time - anchor.pts > 5 * ClockTime.second {
                    // The source's timeline jumped (a restart or a splice): a new anchor.
                    self.anchor = (time, now)
                } else if anchor == nil || time > anchor!.pts {
                    anchor = (time, now)
                }
            }
            if entry.isKeyframe {
                let gop = StoredGOP(serial: nextSerial, key: entry, at: wallTime(entry.pts) ?? now)
                nextSerial += 1
                gops.append(gop)
                memoryBytes += entry.buffer.size
            } else if let gop = gops.last, gop.entries != nil {
                gop.entries!.append(entry)
                gop.bytes += entry.buffer.size
                memoryBytes += entry.buffer.size
                if time.isValid, time > gop.lastPTS { gop.lastPTS = time }
                gop.end = max(gop.end, wallTime(time) ?? now)
            } else {
                return
            }
            // While the seed (the cached GOP, all arriving at once) is appended, starts are
            // estimated from the anchor; live data moves it: recompute the open GOP's start.
            if let gop = gops.last, let start = wallTime(gop.keyPTS) { gop.start = min(gop.start, start) }
            if shown {
                spill = spillCandidates(now: now)
                expired = expire(before: now.addingTimeInterval(-settings.window.seconds))
                if refusal != nil { expired += trimToMemory() }
            } else {
                expired = trimToBackground()
                if let warm = settings.warmSeconds { expired += expire(before: now.addingTimeInterval(-warm.seconds)) }
            }
        }
        for (gop, file) in spill { write(gop, to: file, at: now) }
        delete(expired)
    }

    /// Deletes `files` on the disk queue.
    private func delete(_ files: [TimeshiftSegmentFile]) {
        guard !files.isEmpty else { return }
        disk.async { for file in files { file.remove() } }
    }

    /// The wall-clock time of source time `pts` (under the lock).
    private func wallTime(_ pts: ClockTime) -> Date? {
        guard pts.isValid, let anchor else { return nil }
        let delta = Double(Int64(bitPattern: UInt64(anchor.pts)) - Int64(bitPattern: UInt64(pts))) / 1e9
        return anchor.at.addingTimeInterval(-delta)
    }

    /// GOPs to write out to get back under the memory cap, oldest first, never the open one,
    /// each with the file it goes to (under the lock).
    private func spillCandidates(now: Date) -> [(StoredGOP, TimeshiftSegmentFile)] {
        var over = memoryBytes - settings.memoryBytes
        guard over > 0, refusedAt.map({ now.timeIntervalSince($0) >= Self.retryAfterRefusal }) ?? true else { return [] }
        var out: [(StoredGOP, TimeshiftSegmentFile)] = []
        for gop in gops.dropLast() where gop.entries != nil && !gop.writing {
            gop.writing = true
            let file = segmentFile(for: gop)
            file.pending += 1
            out.append((gop, file))
            over -= gop.bytes
            if over <= 0 { break }
        }
        return out
    }

    /// The file `gop` goes to: the newest one, or a new one when `gop` starts in a later minute
    /// (the older files then take no more GOPs, and go when their GOPs do) (under the lock).
    private func segmentFile(for gop: StoredGOP) -> TimeshiftSegmentFile {
        let minute = TimeshiftSegmentFile.minute(of: gop.start)
        if let newest = files.last, newest.minute >= minute { return newest }
        let file = TimeshiftSegmentFile(directory: directory, minute: minute)
        files.append(file)
        // Found first: `isDeletable` reads `files`, which `removeAll` must not be changing then.
        let stale = files.dropLast().filter(isDeletable)
        delete(stale)
        files.removeAll { candidate in stale.contains { $0 === candidate } }
        return file
    }

    /// A file none of whose GOPs is kept, with no write under way, that takes no new GOPs (under the lock).
    private func isDeletable(_ file: TimeshiftSegmentFile) -> Bool {
        file.gops == 0 && file.pending == 0 && (file !== files.last || !shown || closed)
    }

    /// Lets go of `gop`'s place on disk; returns its file when that can go now (under the lock).
    private func release(_ gop: StoredGOP) -> [TimeshiftSegmentFile] {
        guard let file = gop.stored?.file else { return [] }
        gop.stored = nil
        file.gops -= 1
        guard isDeletable(file) else { return [] }
        files.removeAll { $0 === file }
        return [file]
    }

    /// Memory a buffer keeps while its channel is not on screen (no disk at all then).
    public var backgroundBytes: Int { min(settings.memoryBytes, 16 << 20) }

    /// Whether the channel is on screen. A channel flipped away from keeps only its newest
    /// `backgroundBytes` in memory and none on disk, so a box that visits many channels holds
    /// one channel's window, not one per channel; flipping back can go back that far at once.
    public var isShown: Bool {
        get { lock.withLock { shown } }
        set {
            delete(lock.withLock { () -> [TimeshiftSegmentFile] in
                shown = newValue
                return newValue ? [] : trimToBackground()
            })
        }
    }
    private var shown = true

    /// Drops GOPs on disk, then the oldest in memory past `backgroundBytes` (keeps the newest);
    /// returns the files to delete (under the lock).
    private func trimToBackground() -> [TimeshiftSegmentFile] {
        var dropped: [TimeshiftSegmentFile] = []
        var kept: [StoredGOP] = []
        for gop in gops {
            if gop.entries == nil, gop.stored != nil { dropped += release(gop) } else { kept.append(gop) }
        }
        // A GOP being written stays in memory; when it lands, it is dropped as an orphan.
        gops = kept
        // The newest file takes no more GOPs while the channel is not shown.
        if let newest = files.last, isDeletable(newest) {
            files.removeLast()
            dropped.append(newest)
        }
        while gops.count > 1, memoryBytes > backgroundBytes, let first = gops.first {
            gops.removeFirst()
            memoryBytes -= first.bytes
        }
        return dropped
    }

    /// While the disk refuses: drops the oldest GOPs (those on disk first, then those in memory,
    /// never the newest) until memory is within `memoryBytes`; returns the files to delete (under
    /// the lock). A GOP being written (a retry) goes too: if the write succeeds, it lands as an orphan.
    private func trimToMemory() -> [TimeshiftSegmentFile] {
        dropOldest { _ in memoryBytes > settings.memoryBytes }
    }

    /// Drops GOPs that ended before `limit` (keeps the newest); returns their files (under the lock).
    private func expire(before limit: Date) -> [TimeshiftSegmentFile] {
        dropOldest { $0.end < limit }
    }

    /// Drops the oldest GOP while `condition` holds of it (keeps the newest); returns the files
    /// to delete (under the lock).
    private func dropOldest(while condition: (StoredGOP) -> Bool) -> [TimeshiftSegmentFile] {
        var dropped: [TimeshiftSegmentFile] = []
        while gops.count > 1, let first = gops.first, condition(first) {
            gops.removeFirst()
            if first.entries != nil { memoryBytes -= first.bytes }
            dropped += release(first)
        }
        return dropped
    }

    /// Appends `gop` to `file` on the disk queue (scheduled at `now`); it leaves memory once there.
    private func write(_ gop: StoredGOP, to file: TimeshiftSegmentFile, at now: Date) {
        guard let entries = lock.withLock({ gop.entries }) else { return }
        disk.async { [weak self] in
            guard let self else { return }
            var place: (offset: UInt64, length: Int)?
            if !self.lock.withLock({ self.closed }) {
                do {
                    place = try file.append(TimeshiftSegment.encode(entries))
                    let recovered = self.lock.withLock { () -> Bool in
                        defer { self.refusedAt = nil; self.refusal = nil }
                        return self.refusal != nil
                    }
                    if recovered {
                        self.logger.notice("timeshift: \(self.settings.directory.path) takes segments again; older GOPs go to disk again")
                        self.lock.withLock { self.diskObserver }?()
                    }
                } catch {
                    let refusal = TimeshiftDiskRefusal(error, directory: self.settings.directory, memoryBytes: self.settings.memoryBytes)
                    let (first, expired) = self.lock.withLock { () -> (Bool, [TimeshiftSegmentFile]) in
                        let first = self.refusal == nil
                        self.refusedAt = max(self.refusedAt ?? now, now)
                        self.refusal = refusal
                        return (first, self.closed || !self.shown ? [] : self.trimToMemory())
                    }
                    self.delete(expired)
                    if first {
                        self.logger.warning("timeshift: \(refusal.message)")
                        self.lock.withLock { self.diskObserver }?()
                    }
                }
            }
            let remove = self.lock.withLock { () -> Bool in
                gop.writing = false
                file.pending -= 1
                if let place, !self.closed, self.shown, self.gops.contains(where: { $0 === gop }) {
                    gop.stored = (file, place.offset, place.length)
                    file.gops += 1
                    if gop.entries != nil {
                        gop.entries = nil
                        self.memoryBytes -= gop.bytes
                    }
                }
                guard self.isDeletable(file) else { return false }
                self.files.removeAll { $0 === file }
                return true
            }
            if remove { file.remove() }
        }
    }

    /// The keyframe index, oldest first.
    public var index: [GOPInfo] { lock.withLock { gops.map(\.info) } }

    /// The GOP that holds wall-clock time `time`: the newest one starting at or before it (the
    /// oldest when `time` is before the buffer).
    public func gop(at time: Date) -> GOPInfo? {
        lock.withLock { (gops.last { $0.start <= time } ?? gops.first)?.info }
    }

    /// The GOP after `serial`, if there is one yet.
    public func gop(after serial: UInt64) -> GOPInfo? {
        lock.withLock { gops.first { $0.serial > serial }?.info }
    }

    /// The GOP holding `entry` (same track and times), searched from the newest.
    public func gop(holding entry: GOPCache.Entry) -> GOPInfo? {
        guard entry.pts.isValid else { return nil }
        let candidates = lock.withLock { gops.reversed().filter { $0.keyPTS <= entry.pts && entry.pts <= $0.lastPTS } }
        for gop in candidates {
            guard let entries = try? read(gop.serial) else { continue }
            if entries.contains(where: { $0.track == entry.track && $0.pts == entry.pts && $0.dts == entry.dts }) {
                return lock.withLock { gop.info }
            }
        }
        return nil
    }

    /// The wall-clock time of `entry` of GOP `serial` (its keyframe's start plus its distance from it).
    public func wallTime(of entry: GOPCache.Entry, in serial: UInt64) -> Date? {
        lock.withLock {
            guard let gop = gops.first(where: { $0.serial == serial }), entry.pts.isValid, entry.pts >= gop.keyPTS else { return nil }
            return gop.start.addingTimeInterval(Double(entry.pts - gop.keyPTS) / 1e9)
        }
    }

    /// The entries of GOP `serial`, from memory or its file (the caller's thread: a replay's
    /// queue, never the ingest). The open GOP returns what it holds so far.
    public func read(_ serial: UInt64) throws -> [GOPCache.Entry] {
        let (entries, stored) = lock.withLock { () -> ([GOPCache.Entry]?, (file: TimeshiftSegmentFile, offset: UInt64, length: Int)?) in
            guard let gop = gops.first(where: { $0.serial == serial }) else { return (nil, nil) }
            return (gop.entries, gop.stored)
        }
        if let entries { return entries }
        guard let stored else { throw TimeshiftError.gone }
        return try TimeshiftSegment.read(stored.file.url, offset: stored.offset, length: stored.length)
    }

    /// The window held now: from the oldest keyframe to the newest entry.
    public var range: ClosedRange<Date>? {
        lock.withLock {
            guard let first = gops.first, let last = gops.last else { return nil }
            return first.start...max(first.start, last.end)
        }
    }

    /// The newest entry's source time (running time) and when it arrived: what maps the
    /// source's timeline onto the wall clock (chapter markers use it).
    public var timeAnchor: (sourceTime: ClockTime, wallClock: Date)? {
        lock.withLock { anchor.map { ($0.pts, $0.at) } }
    }

    /// Bytes held in memory (the rest is on disk).
    public var bytesInMemory: Int { lock.withLock { memoryBytes } }

    /// Why the disk takes no segments now; nil while it does (or nothing had to go there yet).
    public var diskRefusal: TimeshiftDiskRefusal? { lock.withLock { refusal } }

    /// Forgets everything and removes the segment files (idempotent).
    public func close() {
        let directory = self.directory
        let (first, open) = lock.withLock { () -> (Bool, [TimeshiftSegmentFile]) in
            defer { closed = true }
            gops = []
            memoryBytes = 0
            defer { files = [] }
            return (!closed, files)
        }
        if first {
            disk.async {
                for file in open { file.remove() }
                try? FileManager.default.removeItem(at: directory)
            }
        }
    }

    deinit {
        if !closed { try? FileManager.default.removeItem(at: directory) }
    }
}

/// Why a buffer's segments cannot go to disk, from the write that failed until one succeeds.
public struct TimeshiftDiskRefusal: Sendable, Hashable {
    /// The disk has no room (`ENOSPC`, a quota); otherwise the write failed for another reason
    /// (the directory is gone, not writable, an I/O error).
    public var full: Bool
    /// What failed and what the buffer does meanwhile: the file (in its directory) and the
    /// system's reason, the memory cap and the retry.
    public var message: String

    public init(full: Bool, message: String) {
        self.full = full
        self.message = message
    }

    /// The refusal of a write that threw `error`.
    init(_ error: any Error, directory: URL, memoryBytes: Int) {
        let full = if case TimeshiftError.diskFull = error { true } else { false }
        let retry = Int(TimeshiftBuffer.retryAfterRefusal)
        self.init(full: full, message: "\(error); the buffer keeps only what fits in its \(WarmBudget.format(bytes: memoryBytes)) of memory "
                  + "(the oldest GOPs go) and tries \(directory.path) again every \(retry) s")
    }
}

/// Why a replay could not read the buffer.
public enum TimeshiftError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The GOP left the window (or the buffer closed) before it was read.
    case gone
    /// A segment file is not what this version writes.
    case corrupt(String)
    /// A segment file could not be stored.
    case storage(String)
    /// A segment file could not be stored: the disk has no room.
    case diskFull(String)

    public var description: String {
        switch self {
        case .gone: "that moment is no longer in the timeshift buffer"
        case .corrupt(let what): "a timeshift segment is damaged: \(what)"
        case .storage(let what), .diskFull(let what): "cannot store a timeshift segment: \(what)"
        }
    }
}
