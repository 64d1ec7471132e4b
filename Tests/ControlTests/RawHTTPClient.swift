import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP client for the tests that must hang up mid-response. Loopback only.
///
/// Its blocking calls run on a thread of their own (``blocking(_:)``), never on the cooperative
/// pool, which the server under test needs (the pool has as many threads as cores: two here).
struct RawHTTPClient: Sendable {
    struct Failure: Error { var step: String }

    private let fd: Int32

    /// Runs `work` on a new thread and returns its result.
    static func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await offPool(work)
    }

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(step: "socket") }
        // A server that never answers fails the test instead of hanging it.
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(fd); throw Failure(step: "connect") }
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else { throw Failure(step: "write") }
    }

    /// Reads until `marker` has arrived (or the peer closes); returns what was read.
    func read(until marker: String) throws -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: received, as: UTF8.self).contains(marker) {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += buffer.prefix(count)
        }
        return String(decoding: received, as: UTF8.self)
    }

    func hangUp() { close(fd) }
}

/// One answer read off the socket: status, headers (names lowercased) and body.
struct RawHTTPAnswer: Sendable {
    var status: Int
    var headers: [String: String]
    var body: String

    /// The body's `error` message ("" when the body is no JSON error).
    var error: String {
        let object = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
        return object?["error"] as? String ?? ""
    }

    init(parsing text: String) {
        let parts = text.components(separatedBy: "\r\n\r\n")
        let head = parts.first ?? ""
        body = parts.dropFirst().joined(separator: "\r\n\r\n")
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.isEmpty ? "" : lines.removeFirst()
        status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0
        headers = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
    }
}

extension RawHTTPClient {
    /// Sends `head` (request line and header lines, without the blank line) with `Connection: close`
    /// and `body`, on a thread of its own, and reads the answer until the server closes.
    static func exchange(port: Int, _ head: String, body: String = "") async throws -> RawHTTPAnswer {
        try await blocking { try exchangeBlocking(port: port, head, body: body) }
    }

    /// ``exchange(port:_:body:)`` on the calling thread (never call it on the cooperative pool).
    static func exchangeBlocking(port: Int, _ head: String, body: String = "") throws -> RawHTTPAnswer {
        let connection = try RawHTTPClient(port: port)
        defer { connection.hangUp() }
        try connection.send(head + "\r\nConnection: close\r\n\r\n" + body)
        return RawHTTPAnswer(parsing: try connection.read(until: "\u{0}never"))
    }
}
