import Foundation
import GStreamer
import Testing

/// SCTE-35 splice cues through real elements: `mpegtsmux` with an SCTE-35 PID muxes the cues
/// sent with `sendSpliceInsert`, `tsdemux` with `forwardSpliceCues` hands them downstream, and
/// `Pad.onSpliceCommand` reads them back as values.
@Suite struct SpliceCueTests {
    init() throws { try GStreamer.initialize() }

    /// Collects the commands a pad sees (any thread).
    final class Commands: @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [SpliceCommand] = []
        func add(_ c: SpliceCommand) { lock.withLock { seen.append(c) } }
        var all: [SpliceCommand] { lock.withLock { seen } }
        var inserts: [SpliceInsert] { all.compactMap { if case .insert(let i) = $0 { i } else { nil } } }
        var signals: [SpliceTimeSignal] { all.compactMap { if case .timeSignal(let s) = $0 { s } else { nil } } }
    }

    /// Polls `condition` without holding a thread of the concurrency pool (the test process has
    /// two, shared by every test running at once).
    static func waitFor(_ seconds: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return condition()
    }

    /// A live H.264 picture muxed with an SCTE-35 PID and demuxed at once, playing for a second:
    /// the muxer, what the sink's pad reads, and what the guard turned away.
    static func muxAndDemux() async throws -> (Pipeline, Element, Commands, Commands) {
        let pipeline = try Pipeline(description: """
            videotestsrc is-live=true ! video/x-raw,width=160,height=90,framerate=30/1 ! \
            x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 ! h264parse ! \
            mpegtsmux name=mux alignment=7 scte-35-pid=300 ! tsdemux name=demux ! h264parse ! fakesink name=sink sync=false async=false
            """)
        let demux = try #require(pipeline.child(named: "demux"))
        #expect(demux.factoryName == "tsdemux")
        let rejected = Commands()
        demux.forwardSpliceCues { _ in rejected.add(.malformed) }
        let commands = Commands()
        try #require(pipeline.child(named: "sink")?.staticPad("sink")).onSpliceCommand { commands.add($0) }
        try pipeline.setState(.playing)
        try await Task.sleep(for: .seconds(1))
        return (pipeline, try #require(pipeline.child(named: "mux")), commands, rejected)
    }

    @Test func spliceInsertsGoThroughMuxAndDemuxAsValues() async throws {
        let (pipeline, mux, commands, rejected) = try await Self.muxAndDemux()
        defer { pipeline.shutdown() }

        let at = pipeline.runningTimeNow + ClockTime.second
        #expect(mux.sendSpliceInsert(eventID: 11, out: true, at: at, duration: 2 * ClockTime.second))
        #expect(await Self.waitFor(5) { commands.inserts.count == 1 }, "\(commands.all)")
        try await Task.sleep(for: .seconds(0.3))
        #expect(mux.sendSpliceInsert(eventID: 11, out: false, at: nil))
        #expect(await Self.waitFor(5) { commands.inserts.count == 2 }, "\(commands.all)")
        try await Task.sleep(for: .seconds(0.3))
        #expect(mux.sendSpliceTimeSignal(at: pipeline.runningTimeNow))
        #expect(await Self.waitFor(5) { commands.all.contains(.unsupported("time_signal")) }, "\(commands.all)")

        let inserts = commands.inserts
        if inserts.count == 2 {
            let out = inserts[0], back = inserts[1]
            #expect(out.eventID == 11 && out.outOfNetwork && !out.isCancel && !out.autoReturn)
            #expect(out.duration == 2 * ClockTime.second, "break_duration in 90 kHz back to 2 s: \(String(describing: out.duration))")
            let error = Double(Int64(bitPattern: UInt64(out.runningTime ?? 0)) - Int64(bitPattern: UInt64(at))) / 1e9
            #expect(abs(error) < 0.5, "the splice time comes back as running time: \(error) s off")
            #expect(back.eventID == 11 && !back.outOfNetwork && back.runningTime == nil && back.duration == nil, "immediate splice back in: \(back)")
        }
        #expect(commands.all.contains(.empty), "mpegtsmux's splice_null heartbeat")
        #expect(rejected.all.isEmpty, "nothing turned away: \(rejected.all)")
    }

    /// A time_signal with a segmentation descriptor (a provider placement opportunity with its
    /// duration) comes back with its splice time and descriptor; a section longer than a TS
    /// packet (many descriptors: the muxer spreads them over two packets) is reassembled by the
    /// guard, checked and let through. (GStreamer 1.22's section filter takes every later
    /// multi-packet section on the PID for a repeat of the first: only the first is read.)
    @Test func timeSignalsAndSectionsLongerThanAPacketComeThrough() async throws {
        let (pipeline, mux, commands, rejected) = try await Self.muxAndDemux()
        defer { pipeline.shutdown() }

        let opportunity = SpliceSegmentation(eventID: 21, typeID: 0x34, duration: 5 * ClockTime.second)
        let at = pipeline.runningTimeNow + ClockTime.second
        #expect(mux.sendSpliceTimeSignal(at: at, segmentation: opportunity))
        #expect(await Self.waitFor(5) { commands.signals.count == 1 }, "\(commands.all)")
        try await Task.sleep(for: .seconds(0.3))
        // 30 avail descriptors: a section of about 330 bytes.
        #expect(mux.sendSpliceInsert(eventID: 12, out: true, at: nil, duration: 2 * ClockTime.second, padding: 30))
        #expect(await Self.waitFor(5) { commands.inserts.count == 1 }, "\(commands.all)")
        try await Task.sleep(for: .seconds(0.3))
        let end = SpliceSegmentation(eventID: 21, typeID: 0x35)
        #expect(mux.sendSpliceTimeSignal(at: pipeline.runningTimeNow, segmentation: end))
        #expect(await Self.waitFor(5) { commands.signals.count == 2 }, "\(commands.all)")

        let signals = commands.signals
        if signals.count == 2 {
            #expect(signals[0].segmentations == [opportunity], "\(signals[0])")
            #expect(signals[0].segmentations.first?.startsBreak == true && signals[1].segmentations.first?.endsBreak == true)
            let error = Double(Int64(bitPattern: UInt64(signals[0].runningTime ?? 0)) - Int64(bitPattern: UInt64(at))) / 1e9
            #expect(abs(error) < 0.5, "the time_signal's splice time comes back as running time: \(error) s off")
            #expect(signals[1].segmentations == [end], "\(signals[1])")
        }
        #expect(commands.inserts.first.map { $0.eventID == 12 && $0.outOfNetwork && $0.duration == 2 * ClockTime.second } == true, "\(commands.inserts)")
        #expect(rejected.all.isEmpty, "nothing turned away: \(rejected.all)")
    }
}
