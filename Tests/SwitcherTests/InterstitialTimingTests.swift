import FlipboxCore
import Foundation
import GStreamer
import Lineup
import Switcher
import TestSupport
import Testing

/// Checks whose outcome depends on how fast a flip is, not only on what it does. `make test`
/// runs suites named `…TimingTests` in its second phase, one test at a time, not among the
/// hundreds of tests of the parallel phase, where a warm flip has taken seconds.
@Suite(.serialized) struct InterstitialTimingTests {
    @Test func warmFlipsDoNotShowTheCard() async throws {
        let player = try InterstitialTests().makePlayer([
            ("A", "test://color/ff0000?size=160x90&gop=15"),
            ("B", "test://color/00ff00?size=160x90&gop=15"),
            ("C", "test://color/0000ff?size=160x90&gop=15"),
        ])
        let events = EventLog(player.events())
        try await player.start()
        #expect(await events.waitFor(15) { if case .flipCompleted(let r) = $0 { r.ok } else { false } })
        #expect(await waitUntil(5) { await player.channels().allSatisfy { $0.state.tier == .warm || $0.state.tier == .hot } })
        var results: [FlipResult] = []
        for _ in 0..<9 {
            results.append(await player.flip(.next))
            try await Task.sleep(for: .milliseconds(150))
        }
        await player.shutdown()
        #expect(results.allSatisfy { $0.ok && $0.path == .warm })
        // The rule: a card only when the picture takes longer than the delay. Warm flips take
        // about 20 ms, so (nearly) all of them show none.
        for r in results where r.interstitialShown {
            #expect((r.latency ?? .zero) >= .milliseconds(80), "a card was shown for a flip of \(r.latencyMilliseconds ?? 0) ms")
        }
        // Most show none. (How fast warm flips are is the bench's to measure; this suite runs
        // in the quiet phase, because in the parallel one 6 of 9 have taken over 80 ms, and
        // showed their card, as the rule says.)
        #expect(results.filter { !$0.interstitialShown }.count >= 5, "\(results.map { $0.latencyMilliseconds ?? -1 })")
        let ids = Set(results.map(\.requestID))
        let shownFor = Set(await events.all.compactMap { if case .cardShown(let id, _, _) = $0 { id } else { nil } }).intersection(ids)
        #expect(shownFor == Set(results.filter(\.interstitialShown).map(\.requestID)), "the events agree with the results")
    }
}
