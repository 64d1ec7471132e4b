import CEvdev
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The only calls into C for input devices: opening and reading `/dev/input/event*`, the
/// `EVIOCGRAB`/`EVIOCGNAME` ioctls, inotify on the device directory, `poll(2)`.
///
/// Each function names the C function it wraps; none keeps state. File descriptors are plain
/// `Int32`s owned by the caller (``EvdevKeys``' reading thread), who closes them.
enum EvdevSyscalls {
    /// One `struct input_event`: its type (`EV_KEY` is 1), code (`KEY_*`) and value
    /// (0 release, 1 press, 2 auto-repeat for keys).
    struct Record: Equatable {
        var type: UInt16
        var code: UInt16
        var value: Int32
    }

    /// `EV_KEY`.
    static let keyEventType = UInt16(EV_KEY)

    /// `sizeof(struct input_event)` on this machine.
    static let recordSize = Int(cevdev_event_size())

    enum ReadResult: Equatable {
        case bytes([UInt8])
        /// Nothing to read now (`EAGAIN`, `EINTR`).
        case nothing
        /// The writer went away (a FIFO) or the file ended.
        case endOfFile
        case failed(errno: Int32)
    }

    /// `open(2)` read-only, non-blocking, close-on-exec; the descriptor or the errno.
    static func openDevice(_ path: String) -> Result<Int32, Errno> {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        return fd >= 0 ? .success(fd) : .failure(Errno(errno))
    }

    /// `close(2)`.
    static func close(_ fd: Int32) { _ = Glibc.close(fd) }

    /// `ioctl(EVIOCGRAB, 1)`: nil on success, else the errno (`ENOTTY` for a non-device).
    static func grab(_ fd: Int32) -> Errno? {
        cevdev_grab(fd, 1) == 0 ? nil : Errno(errno)
    }

    /// `ioctl(EVIOCGNAME)`: the device's name; nil when it has none or is not a device.
    static func deviceName(_ fd: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBufferPointer { cevdev_name(fd, $0.baseAddress, Int32($0.count)) }
        guard n > 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? nil : name
    }

    /// `read(2)` up to `capacity` bytes without blocking.
    static func read(_ fd: Int32, capacity: Int) -> ReadResult {
        var buffer = [UInt8](repeating: 0, count: capacity)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, capacity) }
        if count > 0 { return .bytes(Array(buffer.prefix(count))) }
        if count == 0 { return .endOfFile }
        return errno == EAGAIN || errno == EINTR ? .nothing : .failed(errno: errno)
    }

    /// Decodes the whole records at the front of `bytes` (via `memcpy` into a `struct input_event`)
    /// and removes them; a partial record stays for the next read.
    static func takeRecords(from bytes: inout [UInt8]) -> [Record] {
        let size = recordSize
        let whole = bytes.count / size
        guard whole > 0 else { return [] }
        var records: [Record] = []
        records.reserveCapacity(whole)
        bytes.withUnsafeBytes { raw in
            for index in 0..<whole {
                var type: UInt16 = 0, code: UInt16 = 0, value: Int32 = 0
                cevdev_decode(raw.baseAddress! + index * size, &type, &code, &value)
                records.append(Record(type: type, code: code, value: value))
            }
        }
        bytes.removeFirst(whole * size)
        return records
    }

    /// `poll(2)` for input on `fds` for up to `timeoutMilliseconds`: for each, whether it needs
    /// attention (readable, hung up or in error). All false on timeout or `EINTR`.
    static func poll(_ fds: [Int32], timeoutMilliseconds: Int32) -> [Bool] {
        var entries = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let ready = entries.withUnsafeMutableBufferPointer { Glibc.poll($0.baseAddress, nfds_t($0.count), timeoutMilliseconds) }
        guard ready > 0 else { return Array(repeating: false, count: fds.count) }
        return entries.map { $0.revents & Int16(POLLIN | POLLHUP | POLLERR | POLLNVAL) != 0 }
    }

    /// What changed in a watched directory.
    struct DirectoryChange: Equatable {
        var name: String
        /// Created, moved in, or its permissions changed: worth (re)trying to open.
        var appeared: Bool
        /// Deleted or moved away.
        var removed: Bool
    }

    /// `inotify_init1(IN_NONBLOCK | IN_CLOEXEC)` and `inotify_add_watch` for entries created,
    /// deleted, moved and changed in `directory`; the descriptor or the errno.
    static func watchDirectory(_ directory: String) -> Result<Int32, Errno> {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return .failure(Errno(errno)) }
        let mask = UInt32(IN_CREATE | IN_DELETE | IN_ATTRIB | IN_MOVED_TO | IN_MOVED_FROM)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            let failure = Errno(errno)
            _ = Glibc.close(fd)
            return .failure(failure)
        }
        return .success(fd)
    }

    /// Reads the pending `struct inotify_event`s of an inotify descriptor.
    static func readChanges(_ fd: Int32) -> [DirectoryChange] {
        guard case .bytes(let bytes) = read(fd, capacity: 8192) else { return [] }
        var changes: [DirectoryChange] = []
        let header = MemoryLayout<inotify_event>.size
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset + header <= raw.count {
                let mask = raw.loadUnaligned(fromByteOffset: offset + MemoryLayout.offset(of: \inotify_event.mask)!, as: UInt32.self)
                let length = Int(raw.loadUnaligned(fromByteOffset: offset + MemoryLayout.offset(of: \inotify_event.len)!, as: UInt32.self))
                let nameBytes = raw[(offset + header)..<min(raw.count, offset + header + length)]
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                changes.append(DirectoryChange(
                    name: name,
                    appeared: mask & UInt32(IN_CREATE | IN_MOVED_TO | IN_ATTRIB) != 0,
                    removed: mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0))
                offset += header + length
            }
        }
        return changes
    }

    /// `opendir(3)`/`readdir(3)`: the names in `directory`; empty when it cannot be read.
    static func directoryEntries(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            names.append(name)
        }
        return names
    }

    /// `access(2)` with `R_OK | X_OK`: whether the directory can be listed and entered.
    static func canRead(directory: String) -> Bool { access(directory, R_OK | X_OK) == 0 }
}

/// An `errno` value with its `strerror(3)` text.
struct Errno: Error, Equatable, CustomStringConvertible {
    var code: Int32
    init(_ code: Int32) { self.code = code }
    var isPermission: Bool { code == EACCES || code == EPERM }
    var isNoDevice: Bool { code == ENODEV || code == ENOENT || code == ENXIO }
    var description: String { String(cString: strerror(code)) }
}
