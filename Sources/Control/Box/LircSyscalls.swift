#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The one call for lircd's socket that ``EvdevSyscalls`` lacks: connecting a Unix stream socket.
/// Reading, polling and closing the descriptor go through ``EvdevSyscalls``.
enum LircSyscalls {
    /// `socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC)`, `connect(2)` to `path`, then `O_NONBLOCK`:
    /// the descriptor (the caller closes it) or the errno (`ENOENT`: no socket; `ECONNREFUSED`:
    /// nobody listening; `ENAMETOOLONG`: the path does not fit an address).
    static func connect(_ path: String) -> Result<Int32, Errno> {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        guard !pathBytes.isEmpty, pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            return .failure(Errno(ENAMETOOLONG))
        }
        withUnsafeMutableBytes(of: &address.sun_path) { sunPath in
            for (i, byte) in pathBytes.enumerated() { sunPath[i] = byte }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(Errno(errno)) }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0, fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 else {
            let failure = Errno(errno)
            _ = Glibc.close(fd)
            return .failure(failure)
        }
        return .success(fd)
    }
}
