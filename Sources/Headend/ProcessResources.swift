#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import GStreamer

/// What the process holds right now: GStreamer pipelines, open files, resident memory and the C heap.
///
/// Read from the kernel (`/proc/self`) and from `PipelineCensus`, so a leak anywhere shows up,
/// whoever holds the reference. Reading costs a directory listing; fine for a status request,
/// not for a streaming thread.
public struct ProcessResources: Sendable, Hashable, Codable {
    /// GStreamer pipelines that exist (not yet freed by GStreamer).
    public var pipelines: Int
    /// GStreamer elements that were inside a pipeline and are not yet freed.
    public var elements: Int
    /// Open file descriptors (sockets, pipes, files, devices).
    public var openFiles: Int
    /// The soft limit on open files (`RLIMIT_NOFILE`).
    public var fileLimit: Int
    /// Resident memory in bytes.
    public var residentBytes: Int
    /// Of the C heap: bytes the program holds (allocated and not freed), and bytes freed but kept
    /// by the allocator. A leak grows the first; the allocator's retention only the second.
    public var heapInUseBytes: Int
    public var heapFreeBytes: Int

    public init(pipelines: Int, elements: Int, openFiles: Int, fileLimit: Int, residentBytes: Int,
                heapInUseBytes: Int = 0, heapFreeBytes: Int = 0) {
        self.pipelines = pipelines
        self.elements = elements
        self.openFiles = openFiles
        self.fileLimit = fileLimit
        self.residentBytes = residentBytes
        self.heapInUseBytes = heapInUseBytes
        self.heapFreeBytes = heapFreeBytes
    }

    /// The figures now.
    public static func current() -> ProcessResources {
        let openFiles = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        // statm: size resident shared text lib data dt, in pages.
        let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
        let residentPages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        let heap = GStreamer.allocatorHeap()
        return ProcessResources(pipelines: PipelineCensus.alive, elements: PipelineCensus.elementsAlive, openFiles: openFiles, fileLimit: fileLimit().soft,
                                residentBytes: residentPages * Int(sysconf(Int32(_SC_PAGESIZE))),
                                heapInUseBytes: heap.inUse, heapFreeBytes: heap.keptFree)
    }

    /// `getrlimit(2)` for `RLIMIT_NOFILE`.
    static func fileLimit() -> (soft: Int, hard: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (1024, 1024) }
        return (Int(clamping: limit.rlim_cur), Int(clamping: limit.rlim_max))
    }

    /// Raises the soft limit on open files to the hard limit (`setrlimit(2)`), as a process that
    /// holds many sockets should: systemd and most shells start programs at 1,024 with a hard
    /// limit far above. Returns the soft limit in force afterwards.
    @discardableResult
    public static func raiseFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// The allocator's arenas this process keeps, unless `MALLOC_ARENA_MAX` says otherwise.
    public static let allocatorArenas = 2

    /// Caps glibc's malloc arenas at `allocatorArenas` (`mallopt(M_ARENA_MAX)`); call first
    /// thing, before threads start. By default glibc gives each thread that meets contention an
    /// arena of its own, up to eight per core, and a box runs dozens of GStreamer streaming
    /// threads: each arena keeps its freed memory, so resident memory grew for the first hour and
    /// moved in a band of 70 MB (docs/reliability.md). With two arenas the same flipping held
    /// about half the memory, flat. A `MALLOC_ARENA_MAX` in the environment is left to rule.
    public static func limitAllocatorArenas() {
        guard ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil else { return }
        GStreamer.limitAllocatorArenas(to: allocatorArenas)
    }
}
