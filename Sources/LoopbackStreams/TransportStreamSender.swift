import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A live MPEG-TS channel sent over UDP to 127.0.0.1, paced in real time by the clip's PCR,
/// seven packets a datagram, on a thread of its own. Built to be hostile on request:
///
/// - clips loop byte for byte, so PCR and PTS jump back at every loop (a discontinuity, as at
///   splices and encoder restarts); `loopSkip` starts later loops that far into the clip, so the
///   keyframe at the loop point is lost and the GOP around it straddles the discontinuity;
/// - `play(_:)` switches clip at once, mid-GOP (codec, resolution or PID change);
/// - `garbage` sends random bytes at the clip's rate, `silent` nothing (a source that died or
///   stalled); `bitFlipRate` flips one bit in that fraction of packets;
/// - `pauseAfterNextKeyframe()` stops right after a keyframe is out, for tests.
///
/// Thread-safe. `stop()` ends the thread; it is called by `deinit` too.
public final class TransportStreamSender: @unchecked Sendable {
    public enum Mode: Sendable {
        case stream
        case garbage
        case silent
    }

    public let port: Int
    private let lock = NSLock()
    private var clip: TransportStreamClip
    private var clipChanged = false
    private var modeValue: Mode = .stream
    private var flipRate = 0.0
    private var skip: Double
    private var loopCount = 0
    private var pauseRequested = false
    private var pauseFrames = 1
    private var pausedAfterKeyframe = false
    private var running = true
    private var sentDatagrams = 0
    private let done = DispatchSemaphore(value: 0)

    /// Starts sending `clip` in a loop to 127.0.0.1:`port`.
    public init(clip: TransportStreamClip, port: Int, loopSkip: Double = 0) throws {
        self.clip = clip
        self.port = port
        self.skip = loopSkip
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw TransportStreamClip.Failure(description: "cannot open a UDP socket: errno \(errno)") }
        let thread = Thread { [self] in
            self.run(fd: fd)
            close(fd)
            self.done.signal()
        }
        thread.name = "ts-sender-\(port)"
        thread.start()
    }

    deinit { stop() }

    /// What the sender sends now.
    public var mode: Mode {
        get { lock.withLock { modeValue } }
        set { lock.withLock { modeValue = newValue; pausedAfterKeyframe = false } }
    }

    /// Fraction of packets (0...1) with one bit flipped.
    public var bitFlipRate: Double {
        get { lock.withLock { flipRate } }
        set { lock.withLock { flipRate = newValue } }
    }

    /// Seconds skipped at the start of every loop after the first.
    public var loopSkip: Double {
        get { lock.withLock { skip } }
        set { lock.withLock { skip = newValue } }
    }

    /// Loops completed so far.
    public var loops: Int { lock.withLock { loopCount } }

    /// Datagrams sent so far.
    public var datagrams: Int { lock.withLock { sentDatagrams } }

    /// Switches to `clip` at once (from its start) and streams it.
    public func play(_ clip: TransportStreamClip) {
        lock.withLock {
            self.clip = clip
            clipChanged = true
            modeValue = .stream
            pausedAfterKeyframe = false
        }
    }

    /// Sends until the next keyframe and `frames - 1` frames after it are out, with the first
    /// packet of the frame after those (so a demuxer has them whole), then sends nothing until
    /// `resume()`.
    public func pauseAfterNextKeyframe(frames: Int = 1) {
        lock.withLock {
            pauseRequested = true
            pauseFrames = max(1, frames)
            pausedAfterKeyframe = false
        }
    }

    /// True once a `pauseAfterNextKeyframe()` took effect.
    public var isPausedAfterKeyframe: Bool { lock.withLock { pausedAfterKeyframe } }

    public func resume() {
        lock.withLock {
            pauseRequested = false
            pausedAfterKeyframe = false
        }
    }

    /// Stops the thread and closes the socket; waits for it. Idempotent.
    public func stop() {
        let wasRunning = lock.withLock {
            let r = running
            running = false
            return r
        }
        if wasRunning { done.wait() }
    }

    private func run(fd: Int32) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var rng = SystemRandomNumberGenerator()
        var current = lock.withLock { clip }
        var index = 0
        var loopStartIndex = 0
        // When packet `loopStartIndex` of the current pass is due.
        var passStart = Self.now()
        // Video PES starts seen since the keyframe a pause waits for (nil: no keyframe yet).
        var framesSinceKeyframe: Int?
        var datagram = [UInt8](repeating: 0, count: 7 * TransportStreamClip.packetSize)
        var lastMode = Mode.stream
        while true {
            let (alive, mode, rate, changed, skip, pause, paused, framesToPause) = lock.withLock {
                let c = clipChanged
                clipChanged = false
                if c { current = clip }
                return (running, modeValue, flipRate, c, self.skip, pauseRequested, pausedAfterKeyframe, pauseFrames)
            }
            guard alive else { return }
            if changed {
                index = 0
                loopStartIndex = 0
                passStart = Self.now()
                framesSinceKeyframe = nil
            }
            if !pause { framesSinceKeyframe = nil }
            if mode != .stream || paused {
                if mode == .garbage {
                    // Random bytes at about the clip's rate.
                    for i in datagram.indices { datagram[i] = UInt8.random(in: 0...255, using: &rng) }
                    send(fd, &datagram, datagram.count, &address)
                    let rate = Double(current.bytes.count) / max(0.1, current.duration)
                    Self.sleep(Double(datagram.count) / rate)
                } else {
                    Self.sleep(0.01)
                }
                lastMode = mode
                continue
            }
            if lastMode != .stream {
                // Back from silence or garbage: carry on where the clip was, from now (at its end
                // when the pass had just ended: the loop below then starts the next pass).
                let at = min(index, current.dueTimes.count - 1)
                passStart = Self.now() - (current.dueTimes[at] - current.dueTimes[min(loopStartIndex, at)])
                lastMode = .stream
            }
            if index >= current.packetCount {
                let next = current.packetIndex(at: skip)
                passStart += current.duration - current.dueTimes[loopStartIndex]
                index = next
                loopStartIndex = next
                lock.withLock { loopCount += 1 }
                continue
            }
            let due = passStart + current.dueTimes[index] - current.dueTimes[loopStartIndex]
            let wait = due - Self.now()
            if wait > 0 { Self.sleep(min(wait, 0.05)); if wait > 0.05 { continue } }
            let end = min(index + 7, current.packetCount)
            var length = 0
            var stopAfter: Int?
            for i in index..<end {
                if pause, current.keyframePackets.contains(i) {
                    framesSinceKeyframe = 0
                } else if pause, let n = framesSinceKeyframe, current.videoPESStarts.contains(i) {
                    framesSinceKeyframe = n + 1
                    if n + 1 >= framesToPause { stopAfter = i }
                }
                let start = i * TransportStreamClip.packetSize
                datagram.replaceSubrange(length..<length + TransportStreamClip.packetSize,
                                         with: current.bytes[start..<start + TransportStreamClip.packetSize])
                if rate > 0, Double.random(in: 0..<1, using: &rng) < rate {
                    let bit = Int.random(in: 8..<(TransportStreamClip.packetSize * 8), using: &rng)
                    datagram[length + bit / 8] ^= UInt8(1 << (bit % 8))
                }
                length += TransportStreamClip.packetSize
                if stopAfter != nil { break }
            }
            send(fd, &datagram, length, &address)
            index += length / TransportStreamClip.packetSize
            if stopAfter != nil {
                framesSinceKeyframe = nil
                lock.withLock {
                    pauseRequested = false
                    pausedAfterKeyframe = true
                }
            }
        }
    }

    private func send(_ fd: Int32, _ datagram: inout [UInt8], _ length: Int, _ address: inout sockaddr_in) {
        let sent = datagram.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, bytes.baseAddress, length, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        if sent > 0 { lock.withLock { sentDatagrams += 1 } }
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func sleep(_ seconds: Double) {
        guard seconds > 0 else { return }
        var ts = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        nanosleep(&ts, nil)
    }
}
