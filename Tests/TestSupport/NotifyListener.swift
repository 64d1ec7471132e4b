import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A datagram socket bound where `NOTIFY_SOCKET` points, collecting what arrives with its time.
public final class NotifyListener: @unchecked Sendable {
    public let path: String
    private let fd: Int32
    private let lock = NSLock()
    private var messages: [(at: Date, text: String)] = []
    private var stopped = false

    public init() throws {
        path = "/tmp/flipbox-notify-\(UInt32.random(in: 0...UInt32.max)).sock"
        unlink(path)
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() { raw[i] = b }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, bound == 0 else { throw POSIXError(.EADDRINUSE) }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let thread = Thread { [self] in receive() }
        thread.start()
    }

    private func receive() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !lock.withLock({ stopped }) {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                let text = String(decoding: buffer.prefix(n), as: UTF8.self)
                lock.withLock { messages.append((Date(), text)) }
            }
        }
        close(fd)
        unlink(path)
    }

    public func stop() { lock.withLock { stopped = true } }

    public var all: [(at: Date, text: String)] { lock.withLock { messages } }

    /// Every received line (datagrams may hold several `KEY=value` lines).
    public func lines(_ prefix: String) -> [(at: Date, text: String)] {
        all.flatMap { message in message.text.split(separator: "\n").map { (message.at, String($0)) } }.filter { $0.1.hasPrefix(prefix) }
    }

    public func wait(for prefix: String, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while lines(prefix).isEmpty {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return true
    }
}
