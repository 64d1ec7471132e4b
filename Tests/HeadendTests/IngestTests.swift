import Foundation
import GStreamer
@testable import Headend
import Lineup
import TestSupport
import Testing

extension HeadendTests {
    /// Real ingest of every source kind into a `ChannelSource`, from senders on loopback.
    @Suite struct Ingest {
        init() throws { try GStreamer.initialize() }

        @Test func testSourceWithToneBecomesWarm() async throws {
            let (source, log) = makeSource(["test://color/ff0000?size=160x90&fps=30&gop=15&tone=440"])
            await source.start()
            await expectWarm(source, log: log, audio: true)
            await source.stop()
            #expect(source.state == .cold)
        }

        @Test(arguments: ["udp://127.0.0.1:", "udp://@127.0.0.1:"])
        func udpMPEGTSBecomesWarm(prefix: String) async throws {
            let port = freePort()
            let (source, log) = makeSource(["\(prefix)\(port)"])
            await source.start()
            let sender = try LoopbackSender(port: port)
            await expectWarm(source, log: log, audio: true)
            await source.stop()
            sender.stop()
        }

        @Test func rtpMPEGTSBecomesWarm() async throws {
            let port = freePort()
            let (source, log) = makeSource(["rtp://127.0.0.1:\(port)"])
            await source.start()
            let sender = try LoopbackSender(port: port, rtp: true)
            await expectWarm(source, log: log, audio: true)
            await source.stop()
            sender.stop()
        }

        @Test func srtCallerToALoopbackListenerBecomesWarm() async throws {
            let port = freePort()
            let sender = try LoopbackSender(port: port, srt: true)
            let (source, log) = makeSource(["srt://127.0.0.1:\(port)"])
            await source.start()
            await expectWarm(source, log: log, audio: true)
            await source.stop()
            sender.stop()
        }

        @Test func progressiveHTTPMPEGTSBecomesWarmPlaysInRealTimeAndRestartsAtItsEnd() async throws {
            let dir = try TempDirectory()
            defer { dir.remove() }
            // 4 s of H.264 + AAC in MPEG-TS, served by a plain file server (no pacing on its side).
            try await Self.writeBlueTransportStream(to: dir.path("stream.ts"))
            let server = try HTTPFileServer(directory: dir.url)
            defer { server.stop() }
            let (source, log) = makeSource([server.url("stream.ts")])
            await source.start()
            await expectWarm(source, log: log, audio: true)
            #expect(await source.ingestPaced == true, "a file (its length is known) is paced")
            // Paced at real time: the file does not end (and fail) the moment it is downloaded.
            try await expectStaysWarm(source, log: log, for: 2)
            // At its end the source says so, reconnects and is warm again by itself.
            let ended = await eventually(within: 4) {
                log.saw { $0.reason?.contains("the stream ended") == true }
            }
            #expect(ended, "states: \(log.all.map(\.description))")
            await expectWarm(source, log: log, audio: true, within: 4)
            await source.stop()
        }

        /// 4 s of blue 160x90 H.264 with AAC in MPEG-TS at `path`.
        static func writeBlueTransportStream(to path: String) async throws {
            try await runToEnd("""
                videotestsrc num-buffers=120 pattern=solid-color foreground-color=0xff0000ff ! video/x-raw,width=160,height=90,framerate=30/1 ! \
                x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 ! h264parse ! queue ! mux. \
                audiotestsrc num-buffers=188 samplesperbuffer=1024 freq=440 ! audio/x-raw,rate=48000 ! audioconvert ! avenc_aac ! aacparse ! queue ! mux. \
                mpegtsmux name=mux ! filesink location=\(path)
                """)
        }

        /// A live HTTP stream (no Content-Length: an IPTV feed, another Flipbox's `/stream/N.ts`)
        /// that starts with a burst, as a head-end's cached GOP: taken as it arrives, not paced.
        @Test func aLiveHTTPStreamIsTakenAsItArrives() async throws {
            let dir = try TempDirectory()
            defer { dir.remove() }
            try await Self.writeBlueTransportStream(to: dir.path("burst.ts"))
            // HTTP/1.0 with no Content-Length: the whole file at once, then the connection stays open.
            let server = try PythonServer(script: """
                import socket, threading, time
                data = open("\(dir.path("burst.ts"))", "rb").read()
                s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind(("127.0.0.1", 0)); s.listen(8)
                print(s.getsockname()[1], flush=True)
                def serve(c):
                    c.recv(65536)
                    c.sendall(b"HTTP/1.0 200 OK\\r\\nContent-Type: video/mp2t\\r\\n\\r\\n" + data)
                    time.sleep(60)
                while True:
                    c, _ = s.accept(); threading.Thread(target=serve, args=(c,), daemon=True).start()
                """)
            defer { server.stop() }
            let (source, log) = makeSource(["http://127.0.0.1:\(server.port)/live.ts"])
            await source.start()
            await expectWarm(source, log: log, audio: true)
            #expect(await source.ingestPaced == false, "a live stream (no length) is taken as it arrives")
            await source.stop()
        }

        @Test func hlsBecomesWarm() async throws {
            let dir = try TempDirectory()
            defer { dir.remove() }
            try await runToEnd("""
                videotestsrc num-buffers=150 pattern=solid-color foreground-color=0xff00ff00 ! video/x-raw,width=160,height=90,framerate=30/1 ! \
                x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 ! h264parse ! hls.video \
                audiotestsrc num-buffers=235 samplesperbuffer=1024 freq=440 ! audio/x-raw,rate=48000 ! audioconvert ! avenc_aac ! aacparse ! hls.audio \
                hlssink2 name=hls target-duration=1 playlist-length=0 max-files=0 \
                location=\(dir.path("seg%05d.ts")) playlist-location=\(dir.path("live.m3u8"))
                """)
            let playlist = try String(contentsOfFile: dir.path("live.m3u8"), encoding: .utf8)
            #expect(playlist.contains("seg00002.ts"), "hlssink2 wrote a few segments: \(playlist)")
            let server = try HTTPFileServer(directory: dir.url)
            defer { server.stop() }
            let (source, log) = makeSource([server.url("live.m3u8")])
            await source.start()
            await expectWarm(source, log: log, audio: true)
            try await expectStaysWarm(source, log: log, for: 2)
            await source.stop()
        }

        @Test func liveHLSBecomesWarmAndFollowsTheLivePlaylist() async throws {
            let dir = try TempDirectory()
            defer { dir.remove() }
            // A live packager: 1 s segments, a sliding 4-entry playlist.
            let packager = try Pipeline(description: """
                videotestsrc is-live=true pattern=solid-color foreground-color=0xffffff00 ! video/x-raw,width=160,height=90,framerate=30/1 ! \
                x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 ! h264parse ! hls.video \
                audiotestsrc is-live=true samplesperbuffer=1024 freq=440 ! audio/x-raw,rate=48000 ! audioconvert ! avenc_aac ! aacparse ! hls.audio \
                hlssink2 name=hls target-duration=1 playlist-length=4 max-files=8 \
                location=\(dir.path("seg%05d.ts")) playlist-location=\(dir.path("live.m3u8"))
                """)
            defer { packager.shutdown() }
            try packager.setState(.playing)
            let segments = await eventually(within: 6) {
                let text = (try? String(contentsOfFile: dir.path("live.m3u8"), encoding: .utf8)) ?? ""
                return text.components(separatedBy: "#EXTINF").count > 3
            }
            #expect(segments, "the packager wrote three segments")
            let server = try HTTPFileServer(directory: dir.url)
            defer { server.stop() }
            let (source, log) = makeSource([server.url("live.m3u8")])
            await source.start()
            await expectWarm(source, log: log, audio: true)
            // Still warm after the playlist moved on by more than one segment.
            try await expectStaysWarm(source, log: log, for: 2.5)
            await source.stop()
        }

        /// MP4 loops by segment seeks; MPEG-TS, whose demuxer refuses them, by a flushing seek at
        /// its end (before, a TS file channel never delivered anything).
        @Test(arguments: ["mp4", "ts"]) func localFileLoops(container: String) async throws {
            let dir = try TempDirectory()
            defer { dir.remove() }
            let clip = dir.path("clip.\(container)")
            try await offPool {
                try run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y",
                                   "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=30",
                                   "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                                   "-t", "2", "-g", "30", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                                   "-c:a", "aac", clip])
            }
            let (source, log) = makeSource(["file://\(clip)"])
            await source.start()
            let started = ContinuousClock.now
            await expectWarm(source, log: log, audio: true)
            // Well past the clip's 2 s, twice over: still warm and still delivering, so the loop works.
            try await Task.sleep(until: started + .milliseconds(5500))
            let stillDelivering = await eventually(within: 1.5) {
                guard let last = source.cache.lastDelivery else { return false }
                return ContinuousClock.now - started > .milliseconds(5500) && last - started > .milliseconds(5000)
                    && ContinuousClock.now - last < .milliseconds(500)
            }
            #expect(stillDelivering, "file stopped delivering after its end; states: \(log.all.map(\.description))")
            #expect(source.state == .warm, "state \(source.state); states: \(log.all.map(\.description))")
            #expect(source.cache.hasKeyframe)
            #expect(!log.saw { if case .failed = $0 { true } else if case .stalled = $0 { true } else { false } },
                    "looping never fails or stalls: \(log.all.map(\.description))")
            await source.stop()
        }
    }
}
