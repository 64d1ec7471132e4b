import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A stream of bytes read front to back, a buffer at a time: a file, or a decompressor over one.
///
/// Not thread-safe: one reader uses it from one thread at a time.
protocol ByteSource: AnyObject {
    /// Fills the front of `buffer`; returns how many bytes it wrote, 0 at the end of the stream.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(GuideError) -> Int
}

/// A file read with `read(2)`; the descriptor is closed when the source is released.
final class FileByteSource: ByteSource {
    private let descriptor: Int32
    private let path: String

    init(path: String) throws(GuideError) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw GuideError(.unreadable, "cannot open the guide: \(String(cString: strerror(errno)))", source: path)
        }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw GuideError(.unreadable, "is a directory, not a guide file", source: path)
        }
        descriptor = fd
        self.path = path
    }

    deinit { close(descriptor) }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(GuideError) -> Int {
        while true {
            #if canImport(Glibc)
            let n = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            #else
            let n = Darwin.read(descriptor, buffer.baseAddress, buffer.count)
            #endif
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw GuideError(.unreadable, "read failed: \(String(cString: strerror(errno)))", source: path)
        }
    }
}

enum GuideFile {
    /// The file as a byte source, decompressed on the fly when it starts with gzip's magic bytes
    /// (whatever its name says: servers send `.gz` files both with and without it).
    static func open(path: String) throws(GuideError) -> any ByteSource {
        let file = try FileByteSource(path: path)
        let magic = UnsafeMutableRawBufferPointer.allocate(byteCount: 2, alignment: 1)
        defer { magic.deallocate() }
        let n = try file.read(into: magic)
        let reopened = try FileByteSource(path: path)
        if n == 2, magic[0] == 0x1f, magic[1] == 0x8b { return GzipByteSource(reading: reopened, name: path) }
        return reopened
    }
}
