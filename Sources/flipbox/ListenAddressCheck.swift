import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Whether a TCP server could listen on HOST:PORT here: the address is resolved as the control
/// API's server resolves it (the first answer of `getaddrinfo(3)`), then bound with
/// `SO_REUSEADDR` as that server binds it, and released at once. Never listens, never accepts.
enum ListenAddressCheck {
    enum Outcome: Sendable, Equatable {
        /// A server could listen there now.
        case free
        /// Another socket holds the port (`EADDRINUSE`); `byFlipbox` when what answers there is a
        /// Flipbox (its HTTP answers carry `Server: flipbox`).
        case inUse(byFlipbox: Bool)
        /// The address is not one of this machine's (`EADDRNOTAVAIL`).
        case notOnThisMachine
        /// The port needs privileges this process does not have (`EACCES`).
        case denied
        /// The host name does not resolve; `getaddrinfo(3)`'s reason.
        case unresolved(String)
        /// Anything else: the call and `strerror(3)`.
        case failed(String)
    }

    static func check(host: String, port: Int) -> Outcome {
        let resolved: ResolvedAddress
        do { resolved = try ResolvedAddress.first(host: host, port: port) } catch { return .unresolved(error.reason) }
        let fd = socket(resolved.family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return .failed("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        let bound = resolved.withSockaddr { bind(fd, $0, $1) }
        guard bound != 0 else { return .free }
        switch errno {
        case EADDRINUSE: return .inUse(byFlipbox: answersAsFlipbox(resolved.connectable))
        case EADDRNOTAVAIL: return .notOnThisMachine
        case EACCES: return .denied
        case let code: return .failed("bind: \(String(cString: strerror(code)))")
        }
    }

    /// Whether an HTTP server at `address` answers `HEAD /` with `Server: flipbox`, within 2 s.
    static func answersAsFlipbox(_ address: ResolvedAddress) -> Bool {
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var limit = timeval(tv_sec: 2, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard address.withSockaddr({ connect(fd, $0, $1) }) == 0 else { return false }
        let request = Array("HEAD / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else { return false }
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 2048)
        while answer.count < 16384 {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            answer += chunk[..<n]
            if String(decoding: answer, as: UTF8.self).contains("\r\n\r\n") { break }
        }
        let head = String(decoding: answer, as: UTF8.self).components(separatedBy: "\r\n\r\n")[0]
        return head.components(separatedBy: "\r\n").dropFirst().contains { line in
            let parts = line.split(separator: ":", maxSplits: 1)
            return parts.count == 2 && parts[0].lowercased() == "server"
                && parts[1].trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("flipbox")
        }
    }

    /// One socket address from `getaddrinfo(3)`, kept as its bytes.
    struct ResolvedAddress: Sendable {
        var family: Int32
        var bytes: [UInt8]

        struct Unresolved: Error {
            /// `gai_strerror(3)`'s text.
            var reason: String
        }

        /// The first address `host` resolves to, with `port`.
        static func first(host: String, port: Int) throws(Unresolved) -> ResolvedAddress {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            hints.ai_flags = AI_NUMERICSERV
            var list: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(host, String(port), &hints, &list)
            guard status == 0, let first = list else {
                throw Unresolved(reason: String(cString: gai_strerror(status)))
            }
            defer { freeaddrinfo(list) }
            let bytes = Array(UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(first.pointee.ai_addrlen)))
            return ResolvedAddress(family: first.pointee.ai_family, bytes: bytes)
        }

        /// Where a client reaches a server bound here: the wildcard (`0.0.0.0`, `::`) is reached
        /// on loopback.
        var connectable: ResolvedAddress {
            var copy = self
            copy.bytes.withUnsafeMutableBytes { raw in
                if family == AF_INET {
                    raw.withMemoryRebound(to: sockaddr_in.self) { address in
                        if address[0].sin_addr.s_addr == INADDR_ANY { address[0].sin_addr.s_addr = inet_addr("127.0.0.1") }
                    }
                } else if family == AF_INET6 {
                    raw.withMemoryRebound(to: sockaddr_in6.self) { address in
                        if withUnsafeBytes(of: address[0].sin6_addr, { $0.allSatisfy { $0 == 0 } }) {
                            withUnsafeMutableBytes(of: &address[0].sin6_addr) { $0[15] = 1 }
                        }
                    }
                }
            }
            return copy
        }

        func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
            bytes.withUnsafeBytes { body($0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count)) }
        }
    }
}
