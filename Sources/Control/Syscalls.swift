#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The only calls into the C library in this module: terminal modes, polling reads, address parsing.
///
/// Each function names the C function it wraps; none keeps state.
enum Syscalls {
    /// Saved terminal attributes, opaque to callers.
    struct TerminalMode: @unchecked Sendable {
        fileprivate var raw: termios
    }

    enum ReadResult: Equatable {
        case bytes([UInt8])
        /// `poll(2)` timed out with nothing to read.
        case timeout
        case endOfFile
        case failed(errno: Int32)
    }

    /// `isatty(3)`.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// `tcgetattr(3)`; nil when `fd` is not a terminal.
    static func terminalMode(_ fd: Int32) -> TerminalMode? {
        var mode = termios()
        guard tcgetattr(fd, &mode) == 0 else { return nil }
        return TerminalMode(raw: mode)
    }

    /// `tcsetattr(3)` with `TCSANOW`; false on failure.
    @discardableResult
    static func setTerminalMode(_ fd: Int32, _ mode: TerminalMode) -> Bool {
        var raw = mode.raw
        return tcsetattr(fd, TCSANOW, &raw) == 0
    }

    /// `mode` without line buffering and echo, reads returning after one byte.
    /// `ISIG` stays on so Ctrl-C still raises SIGINT, and output processing stays on.
    static func keyByKey(_ mode: TerminalMode) -> TerminalMode {
        var raw = mode.raw
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        return TerminalMode(raw: raw)
    }

    /// `mode` without echo (lines are still read whole): for typing a PIN.
    static func withoutEcho(_ mode: TerminalMode) -> TerminalMode {
        var raw = mode.raw
        raw.c_lflag &= ~tcflag_t(ECHO)
        return TerminalMode(raw: raw)
    }

    /// `poll(2)` for input for up to `timeoutMilliseconds`, then `read(2)` up to `capacity` bytes.
    static func readInput(_ fd: Int32, capacity: Int, timeoutMilliseconds: Int32) -> ReadResult {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&pfd, 1, timeoutMilliseconds)
        if ready == 0 { return .timeout }
        if ready < 0 {
            return errno == EINTR ? .timeout : .failed(errno: errno)
        }
        var buffer = [UInt8](repeating: 0, count: capacity)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, capacity) }
        if count > 0 { return .bytes(Array(buffer.prefix(count))) }
        if count == 0 { return .endOfFile }
        return errno == EINTR || errno == EAGAIN ? .timeout : .failed(errno: errno)
    }

    /// `write(2)` of all of `text` to standard error, ignoring failures.
    static func writeStandardError(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
            if written <= 0 {
                if written < 0 && errno == EINTR { continue }
                return
            }
            offset += written
        }
    }

    /// `inet_pton(3)` with `AF_INET6`: the eight 16-bit words of an IPv6 address, nil if `text` is not one.
    static func ipv6Words(_ text: String) -> [UInt16]? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { bytes in
            stride(from: 0, to: 16, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
        }
    }
}
