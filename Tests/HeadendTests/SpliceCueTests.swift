import Foundation
import GStreamer
@testable import Headend
import Lineup
import Logging
@testable import MediaFormats
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension HeadendTests {
    /// Breaks from SCTE-35 splice cues (issue 13): a live UDP sender muxes its picture with
    /// `mpegtsmux` and an SCTE-35 PID and cues breaks while its colour changes; the channel's
    /// timeshift lists them where the colour says, and with `linear-breaks` a forward seek over
    /// one not watched lands at its start (its colour on screen). Malformed sections on the
    /// same PID are dropped, told once, and the channel plays on.
    @Suite struct SpliceCues {
        init() throws { try GStreamer.initialize() }

        static let pid = 500

        @Test func cuedBreaksAreListedAndStopAForwardSeekAtTheirStart() async throws {
            let port = freePort()
            let sender = try SpliceCueSender(port: port, pid: Self.pid)
            defer { sender.stop() }
            var channel = makeChannel(["udp://127.0.0.1:\(port)"])
            channel.attributes["linear-breaks"] = "true"
            let warnings = WarningRecorder()
            let logger = Logger(label: "splice-cue-test") { _ in warnings }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flipbox-splice-\(UUID().uuidString)")
            let headend = Headend(lineup: Lineup(channels: [channel]), policy: .all, target: DecodeTarget(width: 320, height: 180),
                                  logger: logger)
            await headend.setTimeshift(TimeshiftSettings(window: .seconds(120), directory: directory))
            await headend.applyPolicy(current: 0, last: nil)
            let source = headend.sources[0]
            try #require(await eventually(within: 10) { source.state == .warm && source.cache.hasKeyframe }, "not warm: \(source.state)")
            let recorder = Activation.FrameRecorder()
            let (feed, _) = try await headend.activate(channel, sink: recorder)
            #expect(await eventually(within: 5) { CodecChange.isRed(CodecChange.newestColour(recorder)) }, "red on screen")

            // Malformed sections on the SCTE-35 PID: dropped before the demuxer, told once.
            for _ in 0..<3 { sender.sendMalformedSection(badCRC: false) }
            sender.sendMalformedSection(badCRC: true)
            // A command Flipbox does not read: told once, ignored. (The muxer holds one section
            // at a time: each cue is given time to go out before the next.)
            sender.cueTimeSignal()
            try await Task.sleep(for: .milliseconds(600))
            #expect(warnings.count { $0.contains("malformed SCTE-35") } == 1 && warnings.all.contains { $0.contains("dropped before the demuxer") }, "dropped by the guard, told once: \(warnings.all)")

            // The viewer pauses before the breaks: they will not have watched them.
            _ = try await headend.timeshift(feed: feed, .pause)
            // Break 1: out of network in 2 s for 3 s (blue), cued ahead with its duration.
            let first = Date().addingTimeInterval(2)
            sender.cueOut(id: 1, at: first, duration: 3)
            sender.paint(0x0000FF, at: first)
            sender.paint(0x00FF00, at: first.addingTimeInterval(3))
            // Break 2: no duration; a splice back in ends it 2 s later.
            let second = first.addingTimeInterval(5)
            try await Task.sleep(until: .now + .seconds(second.timeIntervalSinceNow - 1.5))
            sender.cueOut(id: 2, at: second, duration: nil)
            try await Task.sleep(until: .now + .seconds(second.timeIntervalSinceNow + 0.5))
            sender.cueIn(id: 2, at: second.addingTimeInterval(2))
            try await Task.sleep(until: .now + .seconds(second.timeIntervalSinceNow + 3.5))

            let status = try #require(await headend.status(feed: feed))
            let breaks = status.breaks
            #expect(breaks.count == 2 && breaks.allSatisfy { $0.origin == .scte35 && !$0.watched }, "\(breaks)")
            if breaks.count == 2 {
                // The receiver stamps frames when they arrive: a few frames behind the sender.
                #expect(breaks[0].start.timeIntervalSince(first) > -0.2 && breaks[0].start.timeIntervalSince(first) < 1, "\(breaks[0].start) vs \(first)")
                #expect(abs(breaks[0].end.timeIntervalSince(breaks[0].start) - 3) < 0.05, "break_duration 3 s: \(breaks[0])")
                #expect(breaks[1].start.timeIntervalSince(second) > -0.2 && breaks[1].start.timeIntervalSince(second) < 1, "\(breaks[1].start) vs \(second)")
                #expect(abs(breaks[1].end.timeIntervalSince(breaks[1].start) - 2) < 0.2, "ended by the splice back in: \(breaks[1])")
            }
            #expect(warnings.count { $0.contains("time_signal") } == 1, "\(warnings.all)")

            // Forward over both: lands at the first one's start, and its colour plays.
            let skip = try await headend.timeshift(feed: feed, .seekBy(.seconds(300)))
            #expect(!skip.live && skip.adjustment?.reason == .unwatchedBreak, "\(skip)")
            if let start = breaks.first?.start {
                #expect(skip.position.timeIntervalSince(start) > -1.2 && skip.position <= start.addingTimeInterval(0.1), "at the keyframe before the break: \(skip.position) vs \(start)")
            }
            #expect(await eventually(within: 5) { CodecChange.isBlue(CodecChange.newestColour(recorder)) },
                    "the break's colour (blue): \(String(describing: CodecChange.newestColour(recorder)))")
            #expect(source.state == .hot || source.state == .warm, "the channel plays on: \(source.state)")

            await headend.deactivate(feed: feed)
            await headend.shutdown()
        }
    }
}

/// Collects the warnings a logger gets (any thread).
final class WarningRecorder: LogHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .warning
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String, function: String, line: UInt) {
        lock.withLock { lines.append(message.description) }
    }
    var all: [String] { lock.withLock { lines } }
    func count(_ match: (String) -> Bool) -> Int { all.filter(match).count }
}

/// A live MPEG-TS sender over UDP to 127.0.0.1, muxed by `mpegtsmux` with an SCTE-35 PID: a
/// solid red picture (GOP 1 s) whose colour and splice cues the test sets for wall-clock moments.
final class SpliceCueSender: @unchecked Sendable {
    let pipeline: Pipeline
    let mux: Element
    let port: Int
    let pid: Int

    init(port: Int, pid: Int) throws {
        self.port = port
        self.pid = pid
        pipeline = try Pipeline(description: """
            videotestsrc name=picture is-live=true pattern=solid-color foreground-color=\(0xFFFF_0000 as UInt32) ! video/x-raw,width=320,height=180,framerate=30/1 ! \
            x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! h264parse ! queue ! \
            mpegtsmux name=mux alignment=7 scte-35-pid=\(pid) ! udpsink host=127.0.0.1 port=\(port) sync=false
            """)
        mux = try #require(pipeline.child(named: "mux"))
        try pipeline.setState(.playing)
    }

    /// The sender's running time at wall-clock `moment`.
    private func runningTime(at moment: Date) -> ClockTime {
        let now = pipeline.runningTimeNow
        return ClockTime(max(0, Double(now) + moment.timeIntervalSinceNow * 1e9))
    }

    func cueOut(id: UInt32, at moment: Date, duration: Double?) {
        #expect(mux.sendSpliceInsert(eventID: id, out: true, at: runningTime(at: moment), duration: duration.map { ClockTime($0 * 1e9) }))
    }

    func cueIn(id: UInt32, at moment: Date) {
        #expect(mux.sendSpliceInsert(eventID: id, out: false, at: runningTime(at: moment)))
    }

    func cueTimeSignal() { #expect(mux.sendSpliceTimeSignal(at: runningTime(at: Date()))) }

    /// Changes the picture's colour at `moment` (on a thread of its own).
    func paint(_ rgb: UInt32, at moment: Date) {
        let picture = pipeline.child(named: "picture")
        Thread.detachNewThread {
            Thread.sleep(until: moment)
            picture?.set("foreground-color", uint: 0xFF00_0000 | rgb)
        }
    }

    /// Sends one TS packet on the SCTE-35 PID holding a splice_null section that GStreamer cannot
    /// parse: protocol_version 1 with a good CRC, or version 0 with a wrong CRC (a flipped bit).
    func sendMalformedSection(badCRC: Bool) {
        var section: [UInt8] = [0xFC, 0x30, 0, badCRC ? 0 : 1, 0x00, 0, 0, 0, 0, 0x00, 0xFF, 0xF0, 0x00, 0x00, 0x00, 0x00]
        section[2] = UInt8(section.count - 3 + 4)
        let crc = ProgramMapWatch.crc32(section) ^ (badCRC ? 0x10 : 0)
        section += [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
        var packet: [UInt8] = [0x47, 0x40 | UInt8(pid >> 8), UInt8(pid & 0xFF), 0x10, 0x00] + section
        packet += [UInt8](repeating: 0xFF, count: 188 - packet.count)
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &addr) { a in
            a.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, packet, packet.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    func stop() { pipeline.shutdown() }
}
