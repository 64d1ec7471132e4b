#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The socket calls of systemd's notify protocol: one `AF_UNIX` datagram per message to the path in
/// `$NOTIFY_SOCKET` (a leading `@` names an abstract socket). No libsystemd.
enum NotifySyscalls {
    /// `socket(2)` with `AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC`; nil on failure.
    static func datagramSocket() -> Int32? {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        return fd >= 0 ? fd : nil
    }

    /// `sendto(2)` of `message` to the socket at `path`; nil on success, else the errno.
    static func send(_ message: String, on fd: Int32, to path: String) -> Int32? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !pathBytes.isEmpty, pathBytes.count < capacity else { return EINVAL }
        withUnsafeMutableBytes(of: &address.sun_path) { sunPath in
            for (i, byte) in pathBytes.enumerated() { sunPath[i] = byte }
            if pathBytes[0] == UInt8(ascii: "@") { sunPath[0] = 0 }
        }
        let length = socklen_t(MemoryLayout.offset(of: \sockaddr_un.sun_path)! + pathBytes.count)
        let bytes = Array(message.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), socketAddress, length) }
            }
        }
        return sent >= 0 ? nil : errno
    }

    /// `close(2)`.
    static func close(_ fd: Int32) { _ = Glibc.close(fd) }

    /// `getpid(2)`.
    static var processID: Int32 { getpid() }
}
