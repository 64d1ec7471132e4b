import Foundation
import GStreamer
import LoopbackStreams
import Testing

extension HeadendTests {
    /// An HLS server that resets connections (the soak's `hls-slow-drops` channel), read by
    /// `urisourcebin` as the HLS ingest does. GStreamer 1.22's `hlsdemux2` frees a failed request
    /// inside its download helper and then unlocks the request's mutex (`on_request_sent`, the
    /// return address `libgstadaptivedemux2.so+0x284f6` on Debian 12): a write into freed memory,
    /// the heap corruption behind the soak's crashes in `malloc_consolidate` (docs/reliability.md,
    /// "HTTP, HLS and PID changes").
    ///
    /// A reproducer, not a regular test: in an ordinary build the write goes unseen or corrupts
    /// the test process's heap. Under AddressSanitizer with freed memory filled it is a SEGV in
    /// `pthread_mutex_unlock` called from `libgstadaptivedemux2.so` (in one run of three with these
    /// 37 s of drops; the soak's 3 minutes under ASan showed it in one run of three):
    ///
    ///     G_SLICE=always-malloc ASAN_OPTIONS=detect_leaks=0:max_free_fill_size=65536:free_fill_byte=85 \
    ///     FLIPBOX_HLS_DROP_REPRODUCER=1 swift test --build-path .build-asan \
    ///       -Xswiftc -sanitize=address -Xcc -fsanitize=address --filter HLSDroppedConnection
    ///
    /// It must pass (no report) once the HLS ingest no longer uses an `hlsdemux2` with the bug.
    @Suite struct HLSDroppedConnectionTests {
        @Test(.enabled(if: ProcessInfo.processInfo.environment["FLIPBOX_HLS_DROP_REPRODUCER"] != nil))
        func failedHLSRequestsDoNotWriteIntoFreedMemory() async throws {
            try GStreamer.initialize()
            let format = ClipFormat(codec: .h264, width: 320, height: 180, fps: 25, gopSeconds: 1, seconds: 6, bitrateKbps: 400, hue: 0, toneHz: 300)
            let clip = try TransportStreamClip(path: try format.file(in: ClipFormat.cacheDirectory))
            let server = try LiveHLSServer(clip: try HLSClip(path: clip.path, segmentSeconds: 2), window: 4)
            defer { server.stop() }
            let pipeline = try Pipeline(description: "urisourcebin name=src ! fakesink sync=false async=false")
            defer { pipeline.shutdown() }
            pipeline.child(named: "src")?.set("uri", string: server.url)
            try pipeline.setState(.playing)
            let demuxed = await eventually(within: 10) {
                !(pipeline.descendants(factory: "hlsdemux") + pipeline.descendants(factory: "hlsdemux2")).isEmpty
            }
            #expect(demuxed, "urisourcebin plugged an HLS demuxer")
            // Failed playlist and segment requests, again and again.
            for _ in 0..<25 {
                server.mode = .dropping
                try await Task.sleep(for: .milliseconds(900))
                server.mode = .normal
                try await Task.sleep(for: .milliseconds(600))
            }
            #expect(server.drops > 0)
        }
    }
}
