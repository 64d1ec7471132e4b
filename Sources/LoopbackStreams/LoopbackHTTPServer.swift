import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP/1.1 server on 127.0.0.1 for test channels, on plain sockets so that it can
/// misbehave exactly: answer late, send slowly, reset a connection mid-answer.
///
/// One thread accepts; each connection gets a thread of its own that reads the request head and
/// calls `respond` with it, then closes the connection (one request a connection, `Connection:
/// close`). `respond` runs on that thread and may block for as long as it streams.
///
/// Thread-safe. Runs until `stop()`, which ends every thread (they keep the server alive until
/// then).
public final class LoopbackHTTPServer: @unchecked Sendable {
    /// The port it listens on (chosen by the kernel).
    public let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var running = true
    private var open: Set<Int32> = []
    private let threads = DispatchGroup()

    /// Listens on 127.0.0.1 at a free port; `respond` answers each request.
    public init(respond: @escaping @Sendable (LoopbackHTTPConnection) -> Void) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TransportStreamClip.Failure(description: "cannot open a TCP socket: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(fd)
            throw TransportStreamClip.Failure(description: "cannot listen on 127.0.0.1: errno \(code)")
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        threads.enter()
        let thread = Thread { [self] in
            acceptLoop(respond)
            close(listener)
            threads.leave()
        }
        thread.name = "http-\(port)"
        thread.start()
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Stops accepting, cuts every open connection and waits for all threads. Idempotent.
    public func stop() {
        let wasRunning = lock.withLock {
            guard running else { return false }
            running = false
            // shutdown() wakes a thread blocked in accept(), recv() or send() on that socket;
            // each connection's thread closes its own descriptor (under the lock, see `release`).
            shutdown(listener, Int32(SHUT_RDWR))
            for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
            return true
        }
        guard wasRunning else { return }
        // Called on one of this server's own threads (its owner let go while a connection was
        // being answered), waiting would wait for itself: the threads end on their own.
        guard Thread.current.threadDictionary[Self.threadKey] as? ObjectIdentifier != ObjectIdentifier(self) else { return }
        threads.wait()
    }

    var isRunning: Bool { lock.withLock { running } }

    /// Marks this server's connection threads (their thread dictionary holds the server's identity).
    private static let threadKey = "LoopbackHTTPServer"

    /// Closes connection `fd` and forgets it, under the lock, so that `stop()` never shuts down
    /// a descriptor number the kernel has handed out again.
    func release(_ fd: Int32) {
        lock.withLock {
            open.remove(fd)
            close(fd)
        }
    }

    private func acceptLoop(_ respond: @escaping @Sendable (LoopbackHTTPConnection) -> Void) {
        while isRunning {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else {
                // Out of descriptors, or interrupted: try again; after `stop()`, the loop ends.
                if errno == EMFILE || errno == ENFILE { TransportStreamSender.sleep(0.1) }
                continue
            }
            let admitted = lock.withLock {
                guard running else { return false }
                open.insert(fd)
                return true
            }
            guard admitted else { close(fd); return }
            threads.enter()
            let thread = Thread { [self] in
                Thread.current.threadDictionary[Self.threadKey] = ObjectIdentifier(self)
                if let connection = LoopbackHTTPConnection(fd: fd, server: self) {
                    respond(connection)
                    connection.finish()
                } else {
                    release(fd)
                }
                threads.leave()
            }
            thread.name = "http-\(port)-connection"
            thread.start()
        }
    }
}

/// One request on a `LoopbackHTTPServer` and the means to answer it. Used only on the
/// connection's own thread.
public final class LoopbackHTTPConnection: @unchecked Sendable {
    public let method: String
    /// The request target, query included (`/live.m3u8`).
    public let path: String
    /// The request's headers, by lowercased name (the last of a repeated one).
    public let headers: [String: String]
    private let fd: Int32
    private unowned let server: LoopbackHTTPServer
    private var closed = false

    /// Reads the request head (at most 16 KB, within 5 s); nil when none came.
    init?(fd: Int32, server: LoopbackHTTPServer) {
        self.fd = fd
        self.server = server
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // A reader that stops reading for 10 s is gone.
        timeout.tv_sec = 10
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        while head.count < 16_384 {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return nil }
            head += buffer[0..<n]
            if head.firstRange(of: end) != nil { break }
        }
        let line = String(decoding: head.prefix { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self).split(separator: " ")
        guard line.count >= 2 else { return nil }
        method = String(line[0])
        path = String(line[1])
        var headers: [String: String] = [:]
        let text = String(decoding: head, as: UTF8.self)
        for field in text.components(separatedBy: "\r\n").dropFirst() {
            guard let colon = field.firstIndex(of: ":") else { continue }
            headers[field[..<colon].lowercased()] = field[field.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        self.headers = headers
    }

    /// Sends the status line and headers of an answer; `length` nil: the body lasts until the
    /// connection closes (a live stream). False when the client is gone.
    @discardableResult
    public func sendHead(status: Int = 200, reason: String = "OK", contentType: String, length: Int? = nil,
                         headers: [(String, String)] = []) -> Bool {
        var head = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(contentType)\r\nConnection: close\r\nCache-Control: no-cache\r\n"
        if let length { head += "Content-Length: \(length)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        return send(Array(head.utf8)[...])
    }

    /// Sends `bytes` whole; false when the client is gone or the server stops.
    @discardableResult
    public func send(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard !closed else { return false }
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            offset += n
        }
        return server.isRunning
    }

    /// Whether the client closed its end (an orderly close or a reset), without waiting: what a
    /// tuner sees when it frees the client's slot, before its next write would fail.
    public var clientClosed: Bool {
        guard !closed else { return true }
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if n == 0 { return true }
        return n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR
    }

    /// Ends the connection with a reset (RST, "connection reset by peer" at the client) instead
    /// of an orderly close.
    public func reset() {
        guard !closed else { return }
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        server.release(fd)
        closed = true
    }

    /// Closes the connection in order, unless `reset()` did already.
    func finish() {
        guard !closed else { return }
        shutdown(fd, Int32(SHUT_WR))
        server.release(fd)
        closed = true
    }
}
