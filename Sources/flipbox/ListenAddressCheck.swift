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

    /// ``check(host:port:)`` on a Dispatch thread, not one of the cooperative pool's: it blocks,
    /// up to 2 s when what holds the port does not answer.
    static func checkOffThePool(host: String, port: Int) async -> Outcome {
        await withCheckedContinuation { done in
            DispatchQueue.global().async { done.resume(returning: check(host: host, port: port)) }
        }
    }

    /// HOST:PORT as the messages say it (`[::1]:8642` for an IPv6 address).
    static func address(host: String, port: Int) -> String {
        "\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// The lowest port a user without privileges may listen on (Linux's
    /// `net.ipv4.ip_unprivileged_port_start`, 1024 unless changed).
    static func unprivilegedPortStart(_ file: String = "/proc/sys/net/ipv4/ip_unprivileged_port_start") -> Int {
        (try? String(contentsOfFile: file, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 1024
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

extension ListenAddressCheck.Outcome {
    /// Why `flipbox play` cannot listen at `host:port`, and the fix, as `doctor` and `play` say
    /// it; nil when it can (``free``). `service`: the fix names where the service's options are.
    func problem(host: String, port: Int, service: Bool) -> (detail: String, fix: String?)? {
        let address = ListenAddressCheck.address(host: host, port: port)
        let elsewhere = "choose another port with --http HOST:PORT" + (service ? " (in FLIPBOX_OPTIONS in /etc/flipbox/flipbox.env)" : "")
        switch self {
        case .free:
            return nil
        case .inUse(byFlipbox: true):
            return ("\(address) is in use by a Flipbox already running: this one could not listen there",
                    "stop that one (sudo systemctl stop flipbox, or q in its terminal), or \(elsewhere)")
        case .inUse(byFlipbox: false):
            return ("\(address) is in use by another program: flipbox could not listen there",
                    "`ss -ltnp 'sport = :\(port)'` shows which; stop it, or \(elsewhere)")
        case .notOnThisMachine:
            return ("\(host) is not an address of this machine: flipbox could not listen on it",
                    "listen on one of its addresses (`ip -brief address` lists them), on 0.0.0.0 for all of them (with a token), or on 127.0.0.1")
        case .denied:
            let unprivileged = ListenAddressCheck.unprivilegedPortStart()
            return ("port \(port) is below \(unprivileged): this user may not listen on it", "use a port from \(unprivileged) up, e.g. 8642")
        case .unresolved(let reason):
            return ("\(host) does not resolve to an address: \(reason)",
                    "give an address (127.0.0.1, 0.0.0.0) or a name this machine resolves")
        case .failed(let reason):
            return ("cannot try \(address): \(reason)", nil)
        }
    }

    /// ``problem(host:port:service:)`` as one line: `DETAIL (fix: FIX)`, as doctor prints it.
    func explanation(host: String, port: Int, service: Bool) -> String? {
        problem(host: host, port: port, service: service).map { "\($0.detail)\($0.fix.map { " (fix: \($0))" } ?? "")" }
    }
}
