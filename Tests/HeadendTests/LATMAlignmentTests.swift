import Foundation
import GStreamer
@testable import Headend
import LoopbackStreams
@testable import MediaFormats
import TestSupport
import Testing

/// AAC in LATM joined mid-stream: GStreamer's `aacparse` searches for its first frame with the
/// configuration byte by byte, and a false ADTS header with an impossible length stalls it for
/// good (one cold LATM flip in twenty-five failed with "no picture within 8 s: still
/// connecting"). `LATMAlignment` on its sink pad gives it a start at a configured frame.
@Suite struct LATMAlignmentTests {
    /// A LOAS frame of `payload` bytes after its 3-byte header; `config` sets `useSameStreamMux` 0
    /// and a StreamMuxConfig (version 0, one sub-frame, AAC LC at `rateIndex`).
    static func frame(payload: Int, config: Bool, rateIndex: UInt8 = 3, fill: UInt8 = 0x11) -> [UInt8] {
        var body = [UInt8](repeating: fill, count: payload)
        if config {
            // 0 useSameStreamMux, 0 audioMuxVersion, 1 allStreamsSameTimeFraming, 000000 numSubFrames,
            // 0000 numProgram, 000 numLayer, 00010 AAC LC, then the 4-bit sampling frequency index.
            let bits = "0" + "0" + "1" + "000000" + "0000" + "000" + "00010" + String(rateIndex, radix: 2).leftPadded(4)
            let padded = bits.padding(toLength: (bits.count + 7) / 8 * 8, withPad: "0", startingAt: 0)
            let bytes = stride(from: 0, to: padded.count, by: 8).map { i in
                UInt8(padded.dropFirst(i).prefix(8), radix: 2)!
            }
            body.replaceSubrange(0..<bytes.count, with: bytes)
        } else {
            body[0] = 0x80 | fill  // useSameStreamMux 1
        }
        return [0x56, 0xE0 | UInt8(payload >> 8), UInt8(payload & 0xFF)] + body
    }

    @Test func framesAndTheirConfigurationAreRead() {
        let bytes = Self.frame(payload: 40, config: false) + Self.frame(payload: 30, config: false) + Self.frame(payload: 50, config: true)
            + Self.frame(payload: 20, config: false)
        let frames = LOASFrames(bytes)
        #expect(frames.starts == [0, 43, 76, 129])
        let configured = frames.firstConfigured
        #expect(configured?.index == 2 && configured?.offset == 76)
        #expect(configured?.frameDuration == ClockTime(1024) * ClockTime.second / 48000, "1024 samples at 48 kHz")
        #expect(LOASFrames(Self.frame(payload: 40, config: true, rateIndex: 4)).firstConfigured?.frameDuration == ClockTime(1024) * ClockTime.second / 44100)
        #expect(LOASFrames(Self.frame(payload: 40, config: true, rateIndex: 13)).firstConfigured?.frameDuration == nil, "a reserved rate")
        #expect(LOASFrames([0x00, 0x56, 0xE0, 0x01, 0x00]).starts.isEmpty, "a buffer that does not start at a frame")
        #expect(LOASFrames(Array(bytes.prefix(60))).starts == [0, 43], "the last frame may end past the buffer")
        #expect(LOASFrames(Self.frame(payload: 40, config: false)).firstConfigured == nil)
    }

    @Test func theGuardStartsAtTheFirstConfiguredFrameAndAfterAGapAtAFrame() throws {
        try GStreamer.initialize()
        let alignment = LATMAlignment()
        let second = ClockTime.second
        func buffer(_ bytes: [UInt8], at seconds: Int, discont: Bool = false) -> Buffer {
            let b = Buffer(bytes: bytes, pts: ClockTime(seconds) * second, dts: .none, keyframe: true)
            return discont ? b.retimed(pts: b.pts, dts: .none, discont: true) : b
        }
        func verdict(_ b: Buffer) -> String {
            switch alignment.filter(b, isLOAS: { true }) {
            case .pass: "pass"
            case .drop: "drop"
            case .replace(let other): "replace \(other.size) bytes at \(other.pts)"
            }
        }
        let plain = Self.frame(payload: 40, config: false)
        let configured = Self.frame(payload: 50, config: true)
        #expect(verdict(buffer(plain + plain, at: 1)) == "drop", "nothing the parser can start from")
        let frameDuration = ClockTime(1024) * second / 48000
        #expect(verdict(buffer(plain + plain + configured + plain, at: 2)) == "replace \(configured.count + plain.count) bytes at \(2 * second + 2 * frameDuration)",
                "starts at the configured frame, two frames later")
        #expect(verdict(buffer(plain + plain, at: 3)) == "pass", "then everything passes")
        #expect(verdict(buffer(Array(plain.dropFirst(5)) + plain, at: 4, discont: true)) == "drop", "after a gap, not mid-frame")
        #expect(verdict(buffer(Array(plain.dropFirst(5)), at: 5)) == "drop", "nor until a buffer starts at a frame")
        #expect(verdict(buffer(plain, at: 6)) == "pass", "a frame start will do: the parser has the configuration")
        #expect(verdict(buffer(plain, at: 7, discont: true)) == "pass")

        let adts = LATMAlignment()
        #expect({ if case .pass = adts.filter(buffer(plain, at: 1), isLOAS: { false }) { true } else { false } }(), "other AAC passes untouched")
    }

    /// The sound of a LATM radio clip as `tsdemux` gives it to `aacparse`: one buffer per PES.
    static func payloads() async throws -> [Buffer] {
        let clip = try await ClipFormat.radio(.latm, toneHz: 600, seconds: 4).made(in: ClipFormat.cacheDirectory)
        let pipeline = try Pipeline(description: "filesrc location=\"\(clip)\" ! tsdemux ! appsink name=out sync=false")
        defer { pipeline.shutdown() }
        let collected = Collected<Buffer>()
        pipeline.appSink(named: "out")?.onSample { s in if let b = s.buffer { collected.append(b) } }
        _ = try pipeline.setState(.playing)
        var last = -1
        // Until no more come (the clip is read as fast as it goes).
        while await eventually(within: 2, { collected.count > 0 }), collected.count != last {
            last = collected.count
            try await Task.sleep(for: .milliseconds(300))
        }
        return collected.all
    }

    /// What `aacparse` gives out for `buffers`, with or without the guard on its sink pad.
    static func parse(_ buffers: [Buffer], guarded: Bool) async throws -> [(pts: ClockTime, rate: Int?)] {
        let pipeline = try Pipeline(description: "appsrc name=src format=time caps=audio/mpeg,mpegversion=4,stream-format=loas ! aacparse name=parse ! appsink name=out sync=false")
        defer { pipeline.shutdown() }
        if guarded, let pad = pipeline.child(named: "parse")?.staticPad("sink") { LATMAlignment.guardParser(sinkPad: pad) }
        let out = Collected<(pts: ClockTime, rate: Int?)>()
        pipeline.appSink(named: "out")?.onSample { s in
            if let b = s.buffer { out.append((b.pts, s.caps?.int("rate"))) }
        }
        _ = try pipeline.setState(.playing)
        for b in buffers { _ = pipeline.appSource(named: "src")?.push(b) }
        // No end of stream: a parser draining at the end finds frames it would not live.
        _ = await eventually(within: 3) { out.count >= buffers.count }
        try await Task.sleep(for: .milliseconds(500))
        return out.all
    }

    @Test func aFalseADTSHeaderBeforeTheConfigurationStallsABareParserButNotAGuardedOne() async throws {
        try GStreamer.initialize()
        let payloads = try await Self.payloads()
        try #require(payloads.count > 20, "the clip's sound: \(payloads.count) buffers")
        // Join where a buffer starts with a frame that does not carry the configuration.
        let join = try #require(payloads.indices.first { i in
            payloads[i].withBytes { LOASFrames(Array($0)) }.map { $0.starts.first == 0 && $0.firstConfigured?.index != 0 } == true
        })
        // In that frame's audio, bytes that look like an ADTS header 0 bytes long (its
        // sampling frequency valid): where a bare parser searching byte by byte stops for good.
        var first = payloads[join].bytes()
        first.replaceSubrange(13..<19, with: [0xFF, 0xF1, 0x50, 0x80, 0x00, 0x1F])
        let joined = [Buffer(bytes: first, pts: payloads[join].pts, dts: .none, keyframe: true)] + payloads[(join + 1)...]
        let frameDuration = ClockTime(1024) * ClockTime.second / 48000
        // Where the sound can start: the first frame with the configuration, dated by the frames before it.
        let starts = joined.compactMap { b -> ClockTime? in
            guard let c = b.withBytes({ LOASFrames(Array($0)) })?.firstConfigured else { return nil }
            return b.pts + ClockTime(c.index) * frameDuration
        }
        let start = try #require(starts.first)

        let bare = try await Self.parse(Array(joined), guarded: false)
        #expect(bare.isEmpty, "the input stalls GStreamer 1.22's aacparse for good (\(bare.count) frames came out); if a newer one parses it, it no longer tests the guard")

        let guarded = try await Self.parse(Array(joined), guarded: true)
        #expect(guarded.count > 100, "the guarded parser passes the sound: \(guarded.count) frames")
        #expect(guarded.first?.rate == 48000)
        let firstPTS = try #require(guarded.first?.pts)
        #expect(firstPTS.isValid && (firstPTS > start ? firstPTS - start : start - firstPTS) < ClockTime.millisecond,
                "it starts at the first frame with the configuration, dated by the frames skipped: \(firstPTS) vs \(start)")
    }
}

/// Items appended on a streaming thread, read by the test.
final class Collected<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    func append(_ item: T) { lock.withLock { items.append(item) } }
    var count: Int { lock.withLock { items.count } }
    var all: [T] { lock.withLock { items } }
}

private extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
