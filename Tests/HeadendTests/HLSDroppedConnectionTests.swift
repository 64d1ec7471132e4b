import Foundation
import GStreamer
@testable import Headend
import LoopbackStreams
import Testing

extension HeadendTests {
    /// An HLS channel whose server resets connections again and again (the soak's
    /// `hls-slow-drops` channel) rides it out and is warm again after each drop.
    ///
    /// Its ingest is `souphttpsrc ! hlsdemux`, not `urisourcebin`: GStreamer 1.22's urisourcebin
    /// plugs `hlsdemux2`, which frees a failed request inside its download helper and then
    /// unlocks the request's mutex (`on_request_sent`): a write into freed memory, the heap
    /// corruption behind the soak's crashes (docs/reliability.md, "HTTP, HLS and PID changes").
    /// The test checks that no `hlsdemux2` is in the ingest. Run under AddressSanitizer with
    /// freed memory filled, it is also the check that no failed request writes into freed memory
    /// (with hlsdemux2 it was a SEGV in `pthread_mutex_unlock` in one run of three):
    ///
    ///     G_SLICE=always-malloc ASAN_OPTIONS=detect_leaks=0:max_free_fill_size=65536:free_fill_byte=85 \
    ///     swift test --build-path .build-asan -Xswiftc -sanitize=address -Xcc -fsanitize=address \
    ///       --filter HLSDroppedConnection
    @Suite struct HLSDroppedConnectionTests {
        @Test func anHLSChannelRidesOutResetConnections() async throws {
            try GStreamer.initialize()
            let format = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 6, bitrateKbps: 400, hue: 0, toneHz: 300)
            let clip = try TransportStreamClip(path: try await format.made(in: ClipFormat.cacheDirectory))
            let server = try LiveHLSServer(clip: try HLSClip(path: clip.path, segmentSeconds: 2), window: 4)
            defer { server.stop() }
            let (source, log) = makeSource([server.url])
            await source.start()
            await expectWarm(source, log: log, audio: true, within: 10)
            let demuxers = await source.ingestElements(factory: "hlsdemux")
            let demuxers2 = await source.ingestElements(factory: "hlsdemux2")
            #expect(demuxers == 1 && demuxers2 == 0, "the ingest reads HLS with hlsdemux (\(demuxers)), never hlsdemux2 (\(demuxers2))")
            // Failed playlist and segment requests, again and again; after each period of drops
            // the channel is warm (again) within a few seconds.
            var recovered = 0
            let rounds = 6
            for _ in 0..<rounds {
                server.mode = .dropping
                try await Task.sleep(for: .milliseconds(2500))
                server.mode = .normal
                let warm = await eventually(within: 12) {
                    guard source.state == .warm, let last = source.cache.lastDelivery else { return false }
                    return ContinuousClock.now - last < .milliseconds(500)
                }
                if warm { recovered += 1 }
            }
            #expect(server.drops > 0, "the server reset connections")
            #expect(recovered == rounds, "warm and delivering after \(recovered) of \(rounds) periods of drops; states: \(log.all.map(\.description))")
            await source.stop()
        }
    }
}
