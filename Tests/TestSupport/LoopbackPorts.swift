import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A port on 127.0.0.1 that is free right now for both UDP and TCP, in 20000...32000: below
/// Linux's ephemeral range (32768 and up), so no outgoing connection made meanwhile (a curl, a
/// stream the box opens) can take it before the server it is for listens.
public func freeLoopbackPort() -> Int {
    for _ in 0..<200 {
        let port = Int.random(in: 20000...32000)
        if canBind(port: port, type: Int32(SOCK_DGRAM.rawValue)) && canBind(port: port, type: Int32(SOCK_STREAM.rawValue)) {
            return port
        }
    }
    return Int.random(in: 20000...32000)
}

/// True when something accepts TCP connections on 127.0.0.1:`port`.
public func acceptsConnections(port: Int) -> Bool {
    withLoopbackSocket(port: port, type: Int32(SOCK_STREAM.rawValue)) { fd, address, length in connect(fd, address, length) == 0 }
}

/// A TCP socket connected to 127.0.0.1:`port`, for the caller to close; nil when nothing accepts.
public func connectedLoopbackSocket(port: Int) -> Int32? {
    var connected: Int32?
    _ = withLoopbackSocket(port: port, type: Int32(SOCK_STREAM.rawValue), keepingItWhenTrue: true) { fd, address, length in
        guard connect(fd, address, length) == 0 else { return false }
        connected = fd
        return true
    }
    return connected
}

private func canBind(port: Int, type: Int32) -> Bool {
    withLoopbackSocket(port: port, type: type) { fd, address, length in bind(fd, address, length) == 0 }
}

/// Opens a socket of `type` and calls `body` with it and the address 127.0.0.1:`port`; closes
/// it after, unless `keep` and `body` answered true.
private func withLoopbackSocket(port: Int, type: Int32, keepingItWhenTrue keep: Bool = false,
                                _ body: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Bool) -> Bool {
    let fd = socket(AF_INET, type, 0)
    guard fd >= 0 else { return false }
    var answer = false
    defer { if !(keep && answer) { close(fd) } }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = in_port_t(UInt16(port).bigEndian)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    answer = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    return answer
}
