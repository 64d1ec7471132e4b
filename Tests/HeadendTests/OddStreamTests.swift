import Foundation
import GStreamer
@testable import Headend
import Lineup
import LoopbackStreams
import Testing

extension HeadendTests {
    /// Stream structures that are not closed GOPs of IDR frames (issue 15, "odd streams"): open
    /// GOPs, intra refresh with recovery-point SEI instead of keyframes, and a 10 s keyframe
    /// interval. Each is kept warm and flipped to warm like any channel, and shows its own
    /// picture within a GOP, from a real sender on loopback UDP.
    @Suite struct OddStreams {
        init() throws { try GStreamer.initialize() }

        static func format(_ structure: ClipFormat.Structure?, gop: Double, colour: UInt32) -> ClipFormat {
            var f = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: gop, seconds: max(4, gop * 2),
                               bitrateKbps: 300, colour: colour)
            f.structure = structure
            return f
        }

        @Test(arguments: [("open GOPs", ClipFormat.Structure?.some(.openGOP), 1.0, UInt32(0x00C000)),
                          ("recovery points", .some(.recoveryPoints), 1.0, 0x0000C0),
                          ("10 s GOPs", nil, 10.0, 0xC00000)])
        func playsWarmInItsColour(name: String, structure: ClipFormat.Structure?, gop: Double, colour: UInt32) async throws {
            let rig = try await BroadcastStreams.Rig([Self.format(structure, gop: gop, colour: colour)])
            // Warm once the first keyframe (or recovery point) is cached: within a GOP of starting.
            let warm = await rig.warm(within: gop + 10)
            try #require(warm, "\(name): not warm: \(BroadcastStreams.states(rig.headend))")
            // Kept warm: within a GOP of being sent, a flip finds a keyframe; the cache holds
            // everything since the newest.
            try await Task.sleep(for: .milliseconds(Int(gop * 1000) + 500))
            #expect(rig.headend.sources[0].state == .warm, "\(name): \(rig.headend.sources[0].state)")
            let recorder = BroadcastStreams.Recorder()
            let started = ContinuousClock.now
            let (_, path) = try await rig.headend.activate(rig.channels[0], sink: recorder)
            #expect(path == .warm, "\(name)")
            let want = (r: Double((colour >> 16) & 0xFF), g: Double((colour >> 8) & 0xFF), b: Double(colour & 0xFF))
            func right(_ c: (r: Double, g: Double, b: Double)?) -> Bool {
                guard let c else { return false }
                return abs(c.r - want.r) < 40 && abs(c.g - want.g) < 40 && abs(c.b - want.b) < 40
            }
            // The picture: at once from the cache (a recovery point's picture is whole after its
            // refresh period, one GOP); frames keep coming.
            let shown = await eventually(within: 1 + min(gop, 2) + 2) { recorder.frames > 5 && right(rig.colour(recorder.newest)) }
            #expect(shown, "\(name): \(recorder.frames) frames, newest \(String(describing: rig.colour(recorder.newest))) after \(ContinuousClock.now - started)")
            let before = recorder.frames
            try await Task.sleep(for: .seconds(1))
            #expect(recorder.frames >= before + 15, "\(name): the picture moves on: \(recorder.frames - before) frames in 1 s")
            #expect(right(rig.colour(recorder.newest)), "\(name): still its colour: \(String(describing: rig.colour(recorder.newest)))")
            await rig.stop()
        }
    }
}
