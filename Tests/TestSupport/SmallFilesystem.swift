import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A size-limited tmpfs mounted for one test, to meet a real full disk (`ENOSPC`), not a
/// simulated one. Mounting needs root with `CAP_SYS_ADMIN`; `canMount` says whether this
/// machine allows it (tests that need it are enabled on it).
public final class SmallFilesystem: @unchecked Sendable {
    /// The mount point (a fresh directory under the temporary directory).
    public let directory: URL
    private let filler: URL
    private var mounted = true

    /// Whether a tmpfs can be mounted here: tried once, with a 64 KB one.
    public static let canMount: Bool = {
        guard getuid() == 0, let probe = try? SmallFilesystem(bytes: 64 << 10) else { return false }
        probe.unmount()
        return true
    }()

    /// Mounts a tmpfs of `bytes` (rounded up to whole pages by the kernel).
    public init(bytes: Int) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-small-fs-\(UUID().uuidString)")
        filler = directory.appendingPathComponent("filler")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard mount("tmpfs", directory.path, "tmpfs", 0, "size=\(bytes),mode=0755") == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: directory)
            throw SmallFilesystemError(message: "cannot mount a tmpfs on \(directory.path): \(reason)")
        }
    }

    /// Bytes a writer can still take.
    public var available: Int {
        var stats = statvfs()
        guard statvfs(directory.path, &stats) == 0 else { return 0 }
        return Int(stats.f_bavail) * Int(stats.f_bsize)
    }

    /// Writes a file of zeros until the filesystem refuses (`ENOSPC`): nothing is left after.
    public func fill() throws {
        let fd = open(filler.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SmallFilesystemError(message: "cannot open \(filler.path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n < 0, errno == ENOSPC { return }
            guard n > 0 else { throw SmallFilesystemError(message: "cannot fill \(directory.path): \(String(cString: strerror(errno)))") }
        }
    }

    /// Removes what `fill` wrote.
    public func free() {
        unlink(filler.path)
    }

    /// Unmounts it (lazily, so open files do not stop it) and removes the mount point; idempotent.
    public func unmount() {
        guard mounted else { return }
        mounted = false
        _ = umount2(directory.path, Int32(MNT_DETACH))
        rmdir(directory.path)
    }

    deinit { unmount() }
}

/// Why a small filesystem could not be mounted or filled.
public struct SmallFilesystemError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
