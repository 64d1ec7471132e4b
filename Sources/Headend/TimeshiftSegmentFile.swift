import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One file of a timeshift buffer's disk part: the GOPs that start in one minute, appended one
/// after the other (`TimeshiftSegment` bytes each), read back by their place in it.
///
/// Its counts (`gops`, `pending`) are read and written under the owning buffer's lock; the file
/// itself is written, and removed, on `disk` only.
final class TimeshiftSegmentFile: @unchecked Sendable {
    /// The one queue that writes and deletes the segment files of every channel's buffer: 16
    /// warm channels spilling a GOP a second are one stream of appends to 16 open files, not
    /// 16 queues creating, renaming and deleting a file per GOP.
    static let disk = DispatchQueue(label: "flipbox.timeshift.disk", qos: .utility)

    let url: URL
    /// The minute (since 1970) its GOPs start in; a buffer's files are in minute order.
    let minute: Int
    /// The buffer's GOPs stored here (under the buffer's lock).
    var gops = 0
    /// Appends scheduled and not done yet (under the buffer's lock).
    var pending = 0
    // On `disk` only:
    private var descriptor: Int32 = -1
    private var size: UInt64 = 0

    init(directory: URL, minute: Int) {
        self.minute = minute
        url = directory.appendingPathComponent("minute-\(minute).seg")
    }

    /// The minute `time` falls in.
    static func minute(of time: Date) -> Int { Int((time.timeIntervalSince1970 / 60).rounded(.down)) }

    /// Appends `bytes` (on `disk`) and says where they are. A write that fails leaves the file
    /// as it was and throws `TimeshiftError.diskFull` when the disk has no room (`ENOSPC`, or a
    /// quota: `EDQUOT`), `TimeshiftError.storage` otherwise.
    func append(_ bytes: [UInt8]) throws -> (offset: UInt64, length: Int) {
        if descriptor < 0 {
            descriptor = open(url.path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw Self.failure(errno, "cannot open \(url.path)") }
            size = UInt64(max(0, lseek(descriptor, 0, SEEK_END)))
        }
        let offset = size
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + written, bytes.count - written, off_t(offset) + off_t(written)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                let code = errno
                _ = ftruncate(descriptor, off_t(offset))
                throw n < 0 ? Self.failure(code, "cannot write \(url.path)") : TimeshiftError.storage("cannot write \(url.path): nothing written")
            }
            written += n
        }
        size += UInt64(bytes.count)
        return (offset, bytes.count)
    }

    /// `what`, with the reason `code` gives; a disk with no room is `diskFull`.
    private static func failure(_ code: Int32, _ what: String) -> TimeshiftError {
        let text = "\(what): \(String(cString: strerror(code)))"
        return code == ENOSPC || code == EDQUOT ? .diskFull(text) : .storage(text)
    }

    /// Closes and deletes the file (on `disk`).
    func remove() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        unlink(url.path)
    }

    deinit { if descriptor >= 0 { close(descriptor) } }
}
